import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_tmp(tmp_path_factory) -> Path:
    """A temporary folder shared by every worker of this run (pytest-xdist gives each worker its own basetemp
    inside one folder of the run); without xdist, the run's basetemp."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Verdict cache and figure files of a test go to temporary folders, never to the user's. The memo cache is
    shared by the workers of a run (its writes are atomic), so an experiment is computed once per run."""
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(shared_tmp(tmp_path_factory) / "cache"))
    monkeypatch.setenv("ATTNLAB_FIGURE_DIR", str(tmp_path_factory.getbasetemp() / "figures"))


def _has_gpu():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


HAS_GPU = _has_gpu()
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CuPy with a GPU on this machine: GPU variant skipped")
os.environ.setdefault("ATTNLAB_BACKEND", "numpy" if not HAS_GPU else "auto")
