import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Verdict cache and figure files of a test go to temporary folders, never to the user's."""
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
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
