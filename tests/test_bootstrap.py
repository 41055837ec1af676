"""The Colab bootstrap cell installs attnlab (not editable) from a clone of this repository."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to clone the repository")
def test_bootstrap_installs_from_a_local_clone(tmp_path):
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout with commits")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    branch = subprocess.run(["git", "-C", str(clone), "rev-parse", "--abbrev-ref", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    cell = json.loads(next((ROOT / "notebooks").glob("*.ipynb")).read_text())["cells"][0]["source"]
    cell = "".join(cell)
    target = tmp_path / "site"
    env = dict(os.environ, ATTNLAB_BOOTSTRAP_FORCE="1", ATTNLAB_REPO_URL=clone.as_uri(), ATTNLAB_REPO_REF=branch,
               ATTNLAB_PIP_ARGS=f"--no-deps --no-build-isolation --target {target}", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-c", cell], env=env, check=True, timeout=600)
    installed = list(target.glob("attnlab"))
    assert installed and (installed[0] / "exact.py").exists() and (installed[0] / "audit" / "claims.py").exists()
    assert not list(target.glob("__editable__*")), "the bootstrap must not make an editable install"
    probe = "import attnlab, numpy as np; print(attnlab.__file__); print(attnlab.softmax(np.zeros(4)).sum())"
    out = subprocess.run([sys.executable, "-c", probe], env=dict(os.environ, PYTHONPATH=str(target)),
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    path, total = out.stdout.split()
    assert Path(path).is_relative_to(target) and float(total) == 1.0


def test_bootstrap_does_nothing_outside_colab(tmp_path):
    cell = "".join(json.loads(next((ROOT / "notebooks").glob("*.ipynb")).read_text())["cells"][0]["source"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNLAB_BOOTSTRAP")}
    env["ATTNLAB_REPO_URL"] = "file:///nonexistent"  # would fail loudly if it tried to install
    subprocess.run([sys.executable, "-c", cell], env=env, check=True, timeout=60)
