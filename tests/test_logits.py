import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnlab import log_softmax, logsumexp, softmax
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


#: (x, axis, exception, pattern): every message names the caller's parameter (x or axis).
BAD = [
    (np.array([0.0, np.nan]), -1, ValueError, "x contains NaN"),
    (np.array([0.0, np.inf]), -1, ValueError, r"x contains NaN or \+inf"),
    (np.array([[-np.inf, -np.inf]]), -1, ValueError, "x has a slice .* all -inf"),
    (np.array(1.0), -1, ValueError, "x must have at least one dimension"),
    (3.0, -1, ValueError, "x must have at least one dimension"),
    (np.zeros((2, 0)), -1, ValueError, "x must have at least one entry"),
    (np.zeros(3), 5, ValueError, "axis=5 is out of range for x"),
    (np.zeros((2, 3)), -3, ValueError, "axis=-3 is out of range for x"),
    (np.zeros(3), 1.5, TypeError, "axis must be an integer"),
    (np.zeros(3), True, TypeError, "axis must be an integer, not bool"),
    (np.zeros(3), "0", TypeError, "axis must be an integer"),
    (np.zeros(3), 1.5, TypeError, "axis must be an integer"),
    (np.array(["a", "b"]), -1, TypeError, "x must be a real floating array"),
    (np.array([True, False]), -1, TypeError, "x must be a real floating array"),
    (np.array([1 + 2j, 0j]), -1, TypeError, "x must be a real floating array"),
    ([[1.0], [1.0, 2.0]], -1, TypeError, "x must be an array"),
]


@pytest.mark.parametrize("fn", [softmax, logsumexp])
@pytest.mark.parametrize("x, axis, exc, msg", BAD, ids=lambda v: repr(v)[:30] if not callable(v) else None)
def test_bad_input(fn, x, axis, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(x, axis=axis)


def test_dtype_policy():
    """float16 is computed (and returned) in float32, integers in float64, float32/float64 kept."""
    h = np.array([1.0, 2.0, 3.0], dtype=np.float16)
    assert softmax(h).dtype == np.float32 and logsumexp(h).dtype == np.float32
    np.testing.assert_allclose(softmax(h), scipy.special.softmax([1.0, 2.0, 3.0]), rtol=1e-6)
    assert softmax(np.array([1, 2, 3])).dtype == np.float64
    np.testing.assert_allclose(softmax([1, 2, 3]), scipy.special.softmax([1.0, 2.0, 3.0]), rtol=1e-15)
    for dt in (np.float32, np.float64):
        assert softmax(np.zeros(2, dt)).dtype == dt and logsumexp(np.zeros(2, dt)).dtype == dt
    assert softmax(np.zeros((0, 3))).shape == (0, 3)  # empty along other axes is fine


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_array_api_strict_matches_numpy(dtype, axis):
    """The array-API path on array_api_strict (which rejects anything outside the standard) gives the NumPy result."""
    xs = pytest.importorskip("array_api_strict")
    x = (np.random.default_rng(2).uniform(-1, 1, (5, 7)) * 1e4).astype(dtype)
    x[1, 2] = -np.inf
    sx = xs.asarray(x)
    for fn in (softmax, logsumexp):
        got = fn(sx, axis=axis)
        assert isinstance(got, type(sx)) and str(got.dtype) == f"array_api_strict.{dtype}"
        np.testing.assert_array_equal(np.from_dlpack(got), fn(x, axis=axis))
    with pytest.raises(ValueError, match="x contains NaN"):
        softmax(xs.asarray([0.0, float("nan")]))
    with pytest.raises(ValueError, match="axis=2 is out of range"):
        logsumexp(sx, axis=2)


logits = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 40)),
                elements=st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
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


# ---------------------------------------------------------------------------------------- the scipy.special signature
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axes_and_keepdims_as_scipy(axis, keepdims):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)) * 30
    np.testing.assert_allclose(softmax(x, axis=axis), scipy.special.softmax(x, axis=axis), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(log_softmax(x, axis=axis), scipy.special.log_softmax(x, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(logsumexp(x, axis=axis, keepdims=keepdims),
                               scipy.special.logsumexp(x, axis=axis, keepdims=keepdims), rtol=1e-12)


def test_weights_and_sign_as_scipy():
    rng = np.random.default_rng(1)
    x, b = rng.standard_normal((4, 6)) * 10, rng.standard_normal((4, 6))
    got, sign = logsumexp(x, axis=1, b=b, return_sign=True)
    ref, rsign = scipy.special.logsumexp(x, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    np.testing.assert_array_equal(sign, rsign)
    np.testing.assert_allclose(logsumexp(x, b=np.abs(b)), scipy.special.logsumexp(x, axis=-1, b=np.abs(b)), rtol=1e-12)
    with pytest.raises(ValueError, match="negative"):
        logsumexp(np.zeros(2), b=[1.0, -2.0])
    # weight 0 where x is -inf: that entry does not count (scipy's rule)
    assert float(logsumexp(np.array([-np.inf, 0.0]), b=np.array([0.0, 1.0]))) == 0.0
    with pytest.raises(ValueError, match="b of shape"):
        logsumexp(np.zeros((2, 3)), b=np.ones(2))
    with pytest.raises(TypeError, match="keepdims must be True or False"):
        logsumexp(np.zeros(2), keepdims="yes")


def test_log_softmax_keeps_tiny_probabilities():
    x = np.array([0.0, -1000.0])
    assert np.isneginf(np.log(softmax(x))[1]) and log_softmax(x)[1] == -1000.0


def test_repeated_axis_names_axis():
    with pytest.raises(ValueError, match="repeats an axis"):
        softmax(np.zeros((2, 2)), axis=(0, 0))
