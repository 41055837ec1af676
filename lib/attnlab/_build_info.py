"""Which code this is: the package version and the git commit it was built from.

A figure or verdict names the code that made it. In a git checkout of the repository (an editable install, or
``PYTHONPATH=lib``) the commit is read from git when asked. A wheel or sdist built from a git checkout carries it in
``_build_info.json``, written beside this file at build time by ``setup.py`` (``build_py`` and ``sdist``), so an
install without the repository (``pip install`` of a wheel, Colab) names its commit too.
"""
from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Written at build time into the built package (never into the source tree); see ``setup.py``.
BUILD_INFO = HERE / "_build_info.json"


def _git(*args: str, cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_info(package_dir: Path = HERE) -> dict | None:
    """Commit (and whether tracked files differ from it) of the checkout whose ``lib/attnlab`` is ``package_dir``.

    ``None`` unless ``package_dir`` is the package folder of a git work tree: a wheel installed into a folder
    that happens to lie inside some other repository (a virtual environment in a checkout) does not take
    that repository's commit.
    """
    top = _git("rev-parse", "--show-toplevel", cwd=package_dir)
    if not top or (Path(top) / "lib" / "attnlab").resolve() != Path(package_dir).resolve():
        return None
    commit = _git("rev-parse", "HEAD", cwd=package_dir)
    if not commit:
        return None
    status = _git("status", "--porcelain", "--untracked-files=no", cwd=package_dir)
    return {"git_commit": commit, "git_dirty": bool(status), "source": "git"}


@lru_cache(maxsize=1)
def build_info() -> dict:
    """``{"version", "git_commit", "git_dirty", "source"}`` of the imported package.

    ``source`` says where the commit came from: ``"git"`` (a checkout, read now), ``"build"`` (recorded when the
    wheel or sdist was built) or ``None`` (neither: ``git_commit`` is then ``None``).
    """
    from . import __version__  # noqa: PLC0415

    info = git_info()
    if info is None and BUILD_INFO.exists():
        recorded = json.loads(BUILD_INFO.read_text())
        info = {"git_commit": recorded.get("git_commit"), "git_dirty": recorded.get("git_dirty"), "source": "build"}
    return {"version": __version__, **(info or {"git_commit": None, "git_dirty": None, "source": None})}
