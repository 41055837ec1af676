import numpy as np
import pytest

from attnlab.core import backend
from attnlab import gaussian_projection, get_array_module, make_rng, to_numpy
from conftest import HAS_GPU, gpu


def test_numpy_default_and_override(monkeypatch):
    monkeypatch.setenv("ATTNLAB_BACKEND", "numpy")
    assert backend.default_backend() == "numpy" and backend.default_xp() is np
    monkeypatch.setenv("ATTNLAB_BACKEND", "tpu")
    with pytest.raises(ValueError, match="ATTNLAB_BACKEND"):
        backend.default_backend()
    monkeypatch.setenv("ATTNLAB_BACKEND", "auto")
    assert backend.default_backend() == ("cupy" if HAS_GPU else "numpy")


@pytest.mark.skipif(HAS_GPU, reason="checks the error raised without a GPU")
def test_cupy_requested_without_gpu(monkeypatch):
    monkeypatch.setenv("ATTNLAB_BACKEND", "cupy")
    with pytest.raises(RuntimeError, match="not available"):
        backend.default_backend()


def test_get_array_module_and_rng():
    assert get_array_module(np.ones(2), 3.0) is np
    rng = make_rng(5, np)
    assert isinstance(rng, np.random.Generator)
    np.testing.assert_array_equal(make_rng(5, np).standard_normal(3), rng.standard_normal(3))
    with pytest.raises(TypeError, match="seed"):
        make_rng(1.5, np)
    with pytest.raises(TypeError, match="rng must be"):
        gaussian_projection(2, 3, rng=np.random.RandomState(0))
    assert isinstance(to_numpy(np.ones(2)), np.ndarray)


def test_to_numpy_reads_any_array_api_array():
    xs = pytest.importorskip("array_api_strict")
    out = to_numpy(xs.asarray([[1.0, 2.0]]))
    assert isinstance(out, np.ndarray) and out.tolist() == [[1.0, 2.0]]
    a = np.ones(3)
    assert to_numpy(a) is a
    assert to_numpy(2.5).shape == () and to_numpy([1, 2]).tolist() == [1, 2]


def test_is_cupy_and_default_xp(monkeypatch):
    assert not backend.is_cupy(np.ones(2)) and not backend.is_cupy(3.0)
    monkeypatch.setenv("ATTNLAB_BACKEND", "NumPy")
    assert backend.default_xp() is np
    with pytest.raises(TypeError, match="seed must be an integer, not bool"):
        make_rng(True, np)


@gpu
def test_cupy_types_preserved():
    import cupy

    P = gaussian_projection(4, 8, rng=make_rng(0, cupy))
    assert isinstance(P, cupy.ndarray) and get_array_module(P) is cupy
    assert isinstance(to_numpy(P), np.ndarray)


def test_cpu_count_is_the_affinity():
    import os

    n = backend.cpu_count()
    assert n >= 1 and n <= (os.cpu_count() or n)
