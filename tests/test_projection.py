"""Gaussian projections and projected logits: distribution, scalings, bad input, the array API path."""
import math

import array_api_strict as xps
import numpy as np
import pytest
from conftest import gpu
from scipy import stats

from attnlab import gaussian_projection, projected_logits


def test_entries_are_n_0_1_over_m():
    P = gaussian_projection(50, 400, rng=np.random.default_rng(0))
    assert P.shape == (50, 400) and P.dtype == np.float64
    z = (P * math.sqrt(400)).ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-3
    # E[P P^T] = I_d: the sample mean of 200 draws is within a few standard errors
    # (sd of an entry: sqrt(1/m) or sqrt(2/m))
    rng = np.random.default_rng(1)
    mean = sum(G @ G.T for G in (gaussian_projection(5, 64, rng=rng) for _ in range(200))) / 200
    assert np.abs(mean - np.eye(5)).max() < 5 * math.sqrt(2 / 64 / 200)


def test_float32():
    assert gaussian_projection(3, 4, rng=np.random.default_rng(0), dtype="float32").dtype == np.float32


def test_projected_logit_scalings():
    rng = np.random.default_rng(2)
    Q, K = rng.standard_normal((6, 16)), rng.standard_normal((5, 16))
    P = gaussian_projection(16, 64, rng=rng)
    base = (Q @ P) @ (K @ P).T
    np.testing.assert_allclose(projected_logits(Q, K, P, scaling="printed"), base / 8)
    np.testing.assert_allclose(projected_logits(Q, K, P, scaling="unbiased"), base / 4)
    # the identity "projection" (m = d) reproduces S exactly under the unbiased scaling
    np.testing.assert_allclose(projected_logits(Q, K, np.eye(16)), Q @ K.T / 4)


def test_projected_logits_dtypes():
    rng = np.random.default_rng(3)
    Q = rng.standard_normal((4, 3))
    P = gaussian_projection(3, 5, rng=rng)
    assert projected_logits(Q.astype(np.float32), Q.astype(np.float32), P.astype(np.float32)).dtype == np.float32
    assert projected_logits(Q.astype(np.float16), Q.astype(np.float16), P.astype(np.float16)).dtype == np.float32
    ints = np.arange(12).reshape(4, 3)
    np.testing.assert_array_equal(projected_logits(ints, ints, np.eye(3)), (ints @ ints.T) / math.sqrt(3))
    # lists are taken as NumPy arrays
    np.testing.assert_array_equal(projected_logits(Q.tolist(), Q, P), projected_logits(Q, Q, P))


def test_huge_float32_logits_raise_not_inf():
    Q = np.full((2, 4), 1e2, dtype=np.float32)
    P = np.eye(4, dtype=np.float32)
    # logits of 1e4 (and far beyond) are fine ...
    assert np.isfinite(projected_logits(Q, Q, P)).all()
    # ... but finite inputs whose logits exceed float32 raise instead of returning inf
    big = np.full((2, 4), 1e20, dtype=np.float32)
    with pytest.warns(RuntimeWarning), pytest.raises(ValueError, match="overflow float32"):
        projected_logits(big, big, P)


def _good():
    rng = np.random.default_rng(0)
    return rng.standard_normal((5, 4)), rng.standard_normal((6, 4)), gaussian_projection(4, 3, rng=rng)


BAD_PROJECTION = [
    (dict(d=0), ValueError, "d must be >= 1"),
    (dict(m=-1), ValueError, "m must be >= 1"),
    (dict(m=2.0), TypeError, "m must be an integer"),
    (dict(d=True), TypeError, "d must be an integer"),
    (dict(d="3"), TypeError, "d must be an integer"),
    (dict(rng=np.random.RandomState(0)), TypeError, "rng must be"),
    (dict(rng=1.5), TypeError, "rng must be"),
    (dict(dtype="int8"), ValueError, "dtype"),
    (dict(dtype="float16"), ValueError, "dtype"),
]


@pytest.mark.parametrize("kw, exc, match", BAD_PROJECTION)
def test_gaussian_projection_bad_input(kw, exc, match):
    args = dict(d=3, m=4, rng=np.random.default_rng(0))
    args.update(kw)
    with pytest.raises(exc, match=match):
        gaussian_projection(**args)


BAD_LOGITS = [
    (lambda Q, K, P: (Q[:, 0], K, P), {}, ValueError, "Q must be 2-dimensional"),
    (lambda Q, K, P: (Q, K[None], P), {}, ValueError, "K must be 2-dimensional"),
    (lambda Q, K, P: (Q, K, P[:, 0]), {}, ValueError, "P must be 2-dimensional"),
    (lambda Q, K, P: (Q, K[:, :3], P), {}, ValueError, "Q and K must have the same width"),
    (lambda Q, K, P: (Q, K, P[:3]), {}, ValueError, "P must have d = 4 rows"),
    (lambda Q, K, P: (Q[:0], K, P), {}, ValueError, "Q must have positive dimensions"),
    (lambda Q, K, P: (np.where(Q > 0, np.nan, Q), K, P), {}, ValueError, "Q contains NaN or inf"),
    (lambda Q, K, P: (Q, np.where(K > 0, np.inf, K), P), {}, ValueError, "K contains NaN or inf"),
    (lambda Q, K, P: (Q, K, P * np.inf), {}, ValueError, "P contains NaN or inf"),
    (lambda Q, K, P: (Q + 1j, K, P), {}, TypeError, "Q must be a real floating array"),
    (lambda Q, K, P: (Q.astype(str), K, P), {}, TypeError, "Q must be a real floating array"),
    (lambda Q, K, P: ([[1.0], [1.0, 2.0]], K, P), {}, TypeError, "Q must be an array"),
    (lambda Q, K, P: (Q, xps.asarray(K), P), {}, TypeError, "Q, K, P must be arrays of one library"),
    (lambda Q, K, P: (Q * 1e200, K * 1e200, P), {}, ValueError, "overflow float64"),
    (lambda Q, K, P: (Q, K, P), dict(scaling="other"), ValueError, "scaling must be"),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("make, kw, exc, match", BAD_LOGITS)
def test_projected_logits_bad_input(make, kw, exc, match):
    with pytest.raises(exc, match=match):
        projected_logits(*make(*_good()), **kw)


@pytest.mark.parametrize("scaling", ["printed", "unbiased"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_projected_logits_array_api_strict_matches_numpy(scaling, dtype):
    Q, K, P = (a.astype(dtype) for a in _good())
    ref = projected_logits(Q, K, P, scaling=scaling)
    out = projected_logits(xps.asarray(Q), xps.asarray(K), xps.asarray(P), scaling=scaling)
    assert isinstance(out, type(xps.asarray(0.0))) and out.dtype == getattr(xps, dtype)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_projected_logits_array_api_strict_bad_input():
    Q, K, P = (xps.asarray(a) for a in _good())
    with pytest.raises(ValueError, match="Q contains NaN"):
        projected_logits(Q * xps.nan, K, P)
    with pytest.raises(TypeError, match="Q must be a real floating"):
        projected_logits(xps.asarray([[1 + 1j]]), K, P)
    with pytest.raises(ValueError, match="overflow"):
        projected_logits(Q * 1e200, K * 1e200, P)


@gpu
def test_cupy_projection_and_logits():
    import cupy

    rng = cupy.random.default_rng(0)
    P = gaussian_projection(4, 8, rng=rng)
    Q = cupy.asarray(np.random.default_rng(1).standard_normal((5, 4)))
    S = projected_logits(Q, Q, P)
    assert isinstance(S, cupy.ndarray)
    np.testing.assert_allclose(S.get(), projected_logits(Q.get(), Q.get(), P.get()), rtol=1e-12)
