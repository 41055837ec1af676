import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnlab import logsumexp, softmax
from conftest import gpu


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [1.0, 1e2, 1e4])
def test_matches_scipy_at_any_temperature(dtype, scale):
    x = (np.random.default_rng(0).uniform(-1, 1, (7, 33)) * scale).astype(dtype)
    ref = scipy.special.softmax(x.astype(np.float64), axis=-1)
    got = softmax(x)
    assert got.dtype == dtype and np.isfinite(got).all()
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got, ref, rtol=tol * 10, atol=tol)
    np.testing.assert_allclose(logsumexp(x), scipy.special.logsumexp(x.astype(np.float64), axis=-1),
                               rtol=tol * 10)


def test_extreme_logits_pm_1e4():
    for dtype in (np.float32, np.float64):
        x = np.array([[1e4, -1e4, 1e4 - 1.0], [-1e4, -1e4, -1e4]], dtype=dtype)
        p = softmax(x)
        np.testing.assert_allclose(p[0], [1 / (1 + np.exp(-1.0)), 0, np.exp(-1.0) / (1 + np.exp(-1.0))], rtol=1e-6)
        np.testing.assert_allclose(p[1], [1 / 3] * 3, rtol=1e-6)
        np.testing.assert_allclose(logsumexp(x)[1], -1e4 + np.log(3.0), rtol=1e-7)


def test_masked_entries_get_zero_weight():
    x = np.array([[0.0, -np.inf, np.log(3.0)], [-np.inf, 5.0, -np.inf]])
    np.testing.assert_allclose(softmax(x), [[0.25, 0, 0.75], [0, 1, 0]])
    np.testing.assert_allclose(logsumexp(x), [np.log(4.0), 5.0])


def test_axis_argument():
    x = np.random.default_rng(1).standard_normal((3, 4))
    np.testing.assert_allclose(softmax(x, axis=0), scipy.special.softmax(x, axis=0))
    np.testing.assert_allclose(logsumexp(x, axis=0), scipy.special.logsumexp(x, axis=0))


@pytest.mark.parametrize("bad, msg", [
    (np.array([0.0, np.nan]), "NaN"),
    (np.array([0.0, np.inf]), r"\+inf"),
    (np.array([[-np.inf, -np.inf]]), "all -inf"),
    (np.array(1.0), "at least one dimension"),
    (np.zeros((2, 0)), "at least one entry"),
])
def test_bad_input(bad, msg):
    with pytest.raises(ValueError, match=msg):
        softmax(bad)
    with pytest.raises(ValueError, match=msg):
        logsumexp(bad)


def test_bad_types_and_axis():
    with pytest.raises(TypeError, match="x must be"):
        softmax(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="axis"):
        softmax(np.zeros(3), axis=2)


logits = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 40)),
                elements=st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False))


@settings(max_examples=2000, deadline=None)
@given(logits)
def test_property_simplex_and_shift_invariance(x):
    p = softmax(x)
    assert np.isfinite(p).all() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(softmax(x + 123.0), p, atol=1e-12)
    lse = logsumexp(x)
    assert np.all(lse >= x.max(axis=-1) - 1e-9) and np.all(lse <= x.max(axis=-1) + np.log(x.shape[1]) + 1e-9)


@gpu
def test_cupy_roundtrip():
    import cupy

    x = cupy.asarray(np.random.default_rng(0).standard_normal((4, 5)) * 1e3)
    p = softmax(x)
    assert isinstance(p, cupy.ndarray)
    np.testing.assert_allclose(p.get(), scipy.special.softmax(x.get(), axis=-1), rtol=1e-12, atol=1e-300)
