"""PDA (the library): the algorithm against a dense reference, its SVD options, the array API path, bad input, the
parameter rule."""
import math

import array_api_strict as xps
import numpy as np
import pytest
from conftest import gpu

import attnlab
from attnlab import (PdaParts, SvdFactors, gaussian_projection, m_required, pda_attention, pda_attention_parts,
                     projected_logits, randomized_svd_op)


def _qkv(L=96, d=16, dv=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((L, d)), rng.standard_normal((L, d)), rng.standard_normal((L, dv))


@pytest.mark.parametrize("scaling", ["printed", "unbiased"])
def test_full_rank_equals_dense_reference(scaling):
    Q, K, V = _qkv()
    P = gaussian_projection(16, 32, rng=np.random.default_rng(5))
    dense = attnlab.softmax(projected_logits(Q, K, P, scaling=scaling)) @ V
    out = pda_attention(Q, K, V, 32, 96, rng=np.random.default_rng(5), scaling=scaling)
    assert np.allclose(out, dense, atol=1e-12)


def test_truncation_is_eckart_young():
    Q, K, V = _qkv()
    P = gaussian_projection(16, 32, rng=np.random.default_rng(5))
    A = attnlab.softmax(projected_logits(Q, K, P))
    U, s, Vt = np.linalg.svd(A)
    ref = (U[:, :10] * s[:10]) @ Vt[:10] @ V
    parts = pda_attention_parts(Q, K, V, 32, 10, rng=np.random.default_rng(5), svd="full")
    assert np.allclose(parts.O, ref, atol=1e-12) and np.allclose(parts.s, s[:10])
    assert np.array_equal(parts.P, P)


@pytest.mark.parametrize("svd", ["randomized", "streamed"])
def test_randomized_and_streamed_match_exact(svd):
    # with enough power iterations both match the exact truncation closely
    Q, K, V = _qkv(L=64, d=4)
    exact = pda_attention(Q, K, V, 8, 20, rng=np.random.default_rng(3), svd="full")
    approx = pda_attention(Q, K, V, 8, 20, rng=np.random.default_rng(3), svd=svd, n_iter=8, block=16)
    assert np.linalg.norm(approx - exact) / np.linalg.norm(exact) < 1e-3


def test_streamed_equals_operator_on_materialised_matrix():
    Q, K, V = _qkv(L=50, d=8)
    a = pda_attention(Q, K, V, 16, 5, rng=np.random.default_rng(2), svd="streamed", block=7, n_iter=3)
    P = gaussian_projection(8, 16, rng=np.random.default_rng(2))
    A = attnlab.softmax(projected_logits(Q, K, P))
    rng = np.random.default_rng(2)
    gaussian_projection(8, 16, rng=rng)  # same stream position as inside pda_attention
    U, s, Vt = randomized_svd_op(lambda X: A @ X, lambda Y: A.T @ Y, A.shape, 5, rng=rng, n_iter=3)
    assert np.allclose(a, U @ (s[:, None] * (Vt @ V)), atol=1e-10)


@pytest.mark.parametrize("block", [1, 7, 50, 1000])
def test_streamed_does_not_depend_on_block(block):
    Q, K, V = _qkv(L=50, d=8)
    ref = pda_attention(Q, K, V, 16, 5, rng=np.random.default_rng(2), svd="streamed", block=50)
    out = pda_attention(Q, K, V, 16, 5, rng=np.random.default_rng(2), svd="streamed", block=block)
    assert np.allclose(out, ref, atol=1e-12)


@pytest.mark.parametrize("svd", ["full", "randomized", "streamed"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_logits_stay_finite(svd, dtype):
    """Logits of order 1e4 (and beyond) in float32 and float64: the row softmax is shifted, never inf or NaN."""
    Q, K, V = (a.astype(dtype) for a in _qkv())
    out = pda_attention(1e3 * Q, 10 * K, V, 32, 8, rng=np.random.default_rng(0), svd=svd)
    assert out.dtype == dtype and np.isfinite(out).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("svd", ["full", "randomized", "streamed"])
def test_overflowing_logits_raise_for_every_variant(svd):
    Q, K, V = _qkv()
    with pytest.raises(ValueError, match="overflow float32: scale Q and K down"):
        pda_attention((1e20 * Q).astype(np.float32), (1e20 * K).astype(np.float32), V.astype(np.float32), 32, 8,
                      rng=np.random.default_rng(0), svd=svd)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_overflowing_output_raises():
    Q, K, V = _qkv()
    with pytest.raises(ValueError, match="scale V down"):
        pda_attention(Q, K, 1e308 * np.ones_like(V), 32, 8, rng=np.random.default_rng(0))


def test_float16_and_integer_inputs():
    Q, K, V = _qkv(L=32, d=4)
    out16 = pda_attention(Q.astype(np.float16), K.astype(np.float16), V.astype(np.float16), 8, 4,
                          rng=np.random.default_rng(0))
    assert out16.dtype == np.float32
    ints = np.arange(32 * 4).reshape(32, 4) % 5
    assert pda_attention(ints, ints, ints, 8, 4, rng=np.random.default_rng(0)).dtype == np.float64


def test_default_svd_is_randomized_on_numpy():
    """The default is the randomized SVD (no dense L × L SVD); other array libraries get the full SVD."""
    Q, K, V = _qkv()
    default = pda_attention(Q, K, V, 32, 10, rng=np.random.default_rng(5))
    randomized = pda_attention(Q, K, V, 32, 10, rng=np.random.default_rng(5), svd="randomized")
    np.testing.assert_array_equal(default, randomized)
    strict = pda_attention(xps.asarray(Q), xps.asarray(K), xps.asarray(V), 32, 10, rng=np.random.default_rng(5))
    full = pda_attention(Q, K, V, 32, 10, rng=np.random.default_rng(5), svd="full")
    np.testing.assert_allclose(np.asarray(strict), full, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- the array API standard
@pytest.mark.parametrize("scaling", ["printed", "unbiased"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_svd_on_array_api_strict_matches_numpy(scaling, dtype):
    Q, K, V = (a.astype(dtype) for a in _qkv(L=40, d=6, dv=3))
    parts = pda_attention_parts(Q, K, V, 12, 7, rng=np.random.default_rng(4), scaling=scaling, svd="full")
    sparts = pda_attention_parts(xps.asarray(Q), xps.asarray(K), xps.asarray(V), 12, 7, rng=np.random.default_rng(4),
                                 scaling=scaling)
    ref, out = parts.O, sparts.O
    assert out.dtype == getattr(xps, dtype) and out.shape == (40, 3)
    tol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(out), ref, rtol=tol, atol=tol)
    np.testing.assert_array_equal(np.asarray(sparts.P), parts.P)
    np.testing.assert_allclose(np.asarray(sparts.s), parts.s, rtol=tol)


def test_array_api_strict_huge_logits_and_bad_input():
    Q, K, V = (xps.asarray(a) for a in _qkv(L=20, d=4, dv=2))
    assert bool(xps.all(xps.isfinite(pda_attention(1e4 * Q, K, V, 8, 3, rng=np.random.default_rng(0)))))
    with pytest.raises(TypeError, match="svd='randomized' needs NumPy or CuPy"):
        pda_attention(Q, K, V, 8, 3, rng=np.random.default_rng(0), svd="randomized")
    with pytest.raises(ValueError, match="Q contains NaN"):
        pda_attention(Q * xps.nan, K, V, 8, 3, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="Q, K, V must be arrays of one library"):
        pda_attention(Q, np.asarray(K), V, 8, 3, rng=np.random.default_rng(0))


# --------------------------------------------------------------------------- bad input: every argument
BAD_PDA = [
    (dict(m=0), ValueError, "m must be >= 1"),
    (dict(m=-3), ValueError, "m must be >= 1"),
    (dict(m=8.0), TypeError, "m must be an integer"),
    (dict(m=True), TypeError, "m must be an integer"),
    (dict(r=0), ValueError, "r must be >= 1"),
    (dict(r=97), ValueError, "r must be <= L = 96"),
    (dict(r=4.5), TypeError, "r must be an integer"),
    (dict(scaling="sqrt"), ValueError, "scaling must be"),
    (dict(svd="qr"), ValueError, "svd must be"),
    (dict(n_oversamples=0), ValueError, "n_oversamples must be >= 1"),
    (dict(n_oversamples=2.0), TypeError, "n_oversamples must be an integer"),
    (dict(n_iter=0), ValueError, "n_iter must be >= 1"),
    (dict(n_iter=False), TypeError, "n_iter must be an integer"),
    (dict(block=0), ValueError, "block must be >= 1"),
    (dict(block=None), TypeError, "block must be an integer"),
    (dict(return_parts="yes"), TypeError, "return_parts must be True or False"),
    (dict(rng=np.random.RandomState(0)), TypeError, "rng must be"),
    (dict(rng=1.5), TypeError, "rng must be"),
    (dict(Q=np.ones((96, 5))), ValueError, "Q and K must have the same width"),
    (dict(V=np.ones((10, 8))), ValueError, "K and V must have the same number of rows"),
    (dict(Q=np.ones(16)), ValueError, "Q must be 2-dimensional"),
    (dict(K=np.ones((0, 16))), ValueError, "K must have positive dimensions"),
    (dict(V=np.full((96, 8), np.nan)), ValueError, "V contains NaN or inf"),
    (dict(Q=np.full((96, 16), np.inf)), ValueError, "Q contains NaN or inf"),
    (dict(K=np.ones((96, 16), complex)), TypeError, "K must be a real floating array"),
    (dict(V="values"), TypeError, "V must be a real floating array"),
]


@pytest.mark.parametrize("svd", ["full", "randomized", "streamed"])
@pytest.mark.parametrize("kw, exc, match", BAD_PDA)
def test_bad_arguments(kw, exc, match, svd):
    """The same error whichever SVD variant is asked for."""
    Q, K, V = _qkv()
    args = dict(Q=Q, K=K, V=V, m=8, r=4, rng=np.random.default_rng(0), svd=svd)
    args.update(kw)
    with pytest.raises(exc, match=match):
        pda_attention(**args)


def _op(A):
    return (lambda X: A @ X), (lambda Y: A.T @ Y)


BAD_RSVD = [
    (dict(matmat=None), TypeError, "matmat must be callable"),
    (dict(rmatmat=3), TypeError, "rmatmat must be callable"),
    (dict(shape=(6,)), TypeError, "shape must be a pair"),
    (dict(shape=(6, 0)), ValueError, "shape must be >= 1"),
    (dict(shape=(6.0, 5)), TypeError, "shape must be an integer"),
    (dict(r=0), ValueError, "r must be >= 1"),
    (dict(r=6), ValueError, r"r must be <= min\(shape\) = 5"),
    (dict(r=2.0), TypeError, "r must be an integer"),
    (dict(rng=np.random.RandomState(0)), TypeError, "rng must be"),
    (dict(n_oversamples=0), ValueError, "n_oversamples must be >= 1"),
    (dict(n_iter=-1), ValueError, "n_iter must be >= 1"),
    (dict(n_iter=1.5), TypeError, "n_iter must be an integer"),
    (dict(xp=math), TypeError, "xp must be the numpy or the cupy module"),
    (dict(matmat=lambda X: np.ones((6, 1))), ValueError, r"matmat must return an array of shape \(6, 5\)"),
    (dict(rmatmat=lambda Y: [[1.0]]), ValueError, r"rmatmat must return an array of shape \(5, 5\)"),
    (dict(matmat=lambda X: np.full((6, X.shape[1]), np.nan)), ValueError, "matmat returned NaN or inf"),
]


@pytest.mark.parametrize("kw, exc, match", BAD_RSVD)
def test_randomized_svd_op_bad_input(kw, exc, match):
    A = np.random.default_rng(0).standard_normal((6, 5))
    mm, rm = _op(A)
    args = dict(matmat=mm, rmatmat=rm, shape=A.shape, r=2, rng=np.random.default_rng(1))
    args.update(kw)
    with pytest.raises(exc, match=match):
        randomized_svd_op(**args)


def test_randomized_svd_op_recovers_low_rank():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((40, 4)) @ rng.standard_normal((4, 30))
    U, s, Vt = randomized_svd_op(*_op(A), A.shape, 4, rng=np.random.default_rng(1), n_iter=1, n_oversamples=1)
    np.testing.assert_allclose(s, np.linalg.svd(A, compute_uv=False)[:4], rtol=1e-10)
    np.testing.assert_allclose(U @ np.diag(s) @ Vt, A, atol=1e-10)


def test_randomized_svd_op_returns_svd_factors():
    A = np.random.default_rng(3).standard_normal((12, 9))
    svd = randomized_svd_op(*_op(A), A.shape, 3, rng=np.random.default_rng(1))
    assert isinstance(svd, SvdFactors) and svd._fields == ("U", "s", "Vt")
    U, s, Vt = svd  # unpacks as numpy.linalg.svd's result
    assert U is svd.U and s is svd.s and Vt is svd.Vt
    assert svd.U.shape == (12, 3) and svd.s.shape == (3,) and svd.Vt.shape == (3, 9)
    np.testing.assert_allclose(svd.U.T @ svd.U, np.eye(3), atol=1e-12)


def test_pda_attention_parts_and_the_deprecated_return_parts():
    Q, K, V = _qkv(L=48, d=8, dv=3)
    for svd in ("full", "randomized", "streamed"):
        kw = dict(rng=np.random.default_rng(7), svd=svd, block=16)
        parts = pda_attention_parts(Q, K, V, 12, 6, **kw)
        assert isinstance(parts, PdaParts) and parts._fields == ("O", "P", "U", "s", "Vt")
        np.testing.assert_array_equal(parts.O, pda_attention(Q, K, V, 12, 6, **{**kw, "rng": np.random.default_rng(7)}))
        np.testing.assert_allclose(parts.O, parts.U @ (parts.s[:, None] * (parts.Vt @ V)), atol=1e-12)
        np.testing.assert_array_equal(parts.P, gaussian_projection(8, 12, rng=np.random.default_rng(7)))
        with pytest.warns(DeprecationWarning, match=r"return_parts=True\) is deprecated"):
            out, old = pda_attention(Q, K, V, 12, 6, **{**kw, "rng": np.random.default_rng(7)}, return_parts=True)
        np.testing.assert_array_equal(out, parts.O)
        for key in ("P", "U", "s", "Vt"):
            with pytest.warns(DeprecationWarning, match=f"PdaParts is no longer a dict.*\\.{key}"):
                np.testing.assert_array_equal(old[key], getattr(parts, key))


# --------------------------------------------------------------------------- the parameter rule
def test_m_required_matches_formula():
    for L in (512, 8192):
        eps = 0.01 / (4 * math.sqrt(L))
        exact = 8 * 64 / eps**2 * math.log(2 * L**2 / 0.1)
        got = float(m_required(64, L, 0.01, 0.1))
        assert got >= exact and got - exact <= 1 + 1e-12 * exact
    assert m_required(64, np.array([512, 1024]), 0.01, 0.1).shape == (2,)


BAD_M = [
    (dict(d=0), ValueError, "d must be >= 1"),
    (dict(d=64.0), TypeError, "d must be an integer"),
    (dict(L=0), ValueError, "L must hold integers >= 1"),
    (dict(L=[512, 100.5]), ValueError, "L must hold integers >= 1"),
    (dict(L=np.inf), ValueError, "L must hold integers >= 1"),
    (dict(L=True), TypeError, "L must be an integer"),
    (dict(L="512"), TypeError, "L must be an integer"),
    (dict(L=[[1], [1, 2]]), TypeError, "L must be an integer"),
    (dict(eta=0.0), ValueError, "eta must be a finite number > 0"),
    (dict(eta=math.inf), ValueError, "eta must be a finite number > 0"),
    (dict(eta="0.1"), TypeError, "eta must be a real number"),
    (dict(delta=1.5), ValueError, "delta must lie in"),
    (dict(delta=0.0), ValueError, "delta must lie in"),
    (dict(delta=None), TypeError, "delta must be a real number"),
]


@pytest.mark.parametrize("kw, exc, match", BAD_M)
def test_m_required_bad_input(kw, exc, match):
    args = dict(d=64, L=512, eta=0.01, delta=0.1)
    args.update(kw)
    with pytest.raises(exc, match=match):
        m_required(**args)


# --------------------------------------------------------------------------- CuPy (on a GPU when one is lent)
@gpu
@pytest.mark.parametrize("svd", ["full", "randomized", "streamed"])
def test_cupy_matches_numpy(svd):
    import cupy

    Q, K, V = _qkv(L=64, d=8, dv=4)
    cQ, cK, cV = (cupy.asarray(a) for a in (Q, K, V))
    # a NumPy generator: the same P on both backends, so the full variant agrees to rounding
    out = pda_attention(cQ, cK, cV, 16, 6, rng=np.random.default_rng(0), svd=svd, n_iter=6, block=16)
    ref = pda_attention(Q, K, V, 16, 6, rng=np.random.default_rng(0), svd="full")
    assert isinstance(out, cupy.ndarray)
    assert np.linalg.norm(out.get() - ref) / np.linalg.norm(ref) < (1e-10 if svd == "full" else 1e-3)
    # a CuPy generator works as before
    out2 = pda_attention(cQ, cK, cV, 16, 6, rng=cupy.random.default_rng(0), svd=svd, n_iter=6, block=16)
    assert isinstance(out2, cupy.ndarray) and bool(cupy.isfinite(out2).all())
    with pytest.raises(TypeError, match="rng must be"):
        pda_attention(Q, K, V, 16, 6, rng=cupy.random.default_rng(0))
