"""Build hook: record the git commit in the built package (``attnlab/_build_info.json``).

Everything else about the package is in pyproject.toml. A wheel built from a git checkout, or from an sdist made
from one, carries the commit, so that ``attnlab.plotting.provenance()`` names it in an install without the
repository (Colab). Editable installs read git at run time instead and get no file.
"""
import json
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
SOURCE_INFO = ROOT / "lib" / "attnlab" / "_build_info.json"  # present only in an unpacked sdist


def _git(*args):
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _info():
    top = _git("rev-parse", "--show-toplevel")
    commit = _git("rev-parse", "HEAD") if top and Path(top).resolve() == ROOT else None
    if commit:
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
        return {"git_commit": commit, "git_dirty": dirty}
    if SOURCE_INFO.exists():  # building from an sdist: keep what the sdist recorded
        return json.loads(SOURCE_INFO.read_text())
    return {"git_commit": None, "git_dirty": None}


def _write(folder):
    path = Path(folder) / "attnlab" / "_build_info.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_info(), indent=2) + "\n")


class BuildPy(build_py):
    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            _write(self.build_lib)

    def get_outputs(self, *args, **kwargs):
        outputs = super().get_outputs(*args, **kwargs)
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / "attnlab" / "_build_info.json"))
        return outputs


class Sdist(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        _write(Path(base_dir) / "lib")


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
