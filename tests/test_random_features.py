"""attnlab.approx.random_features: FAVOR+ (features, unbiasedness, variance, stabiliser, causal scan) and Linformer."""
import math
import tracemalloc

import array_api_strict as xps
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from attnlab import (attention, draw_omega, favor_attention, favor_features, favor_kernel_variance,
                     linformer_attention, performer_attention)


def _qkv(n=12, d=4, seed=0, nq=None):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((nq or n, d)), rng.standard_normal((n, d)), rng.standard_normal((n, 3))


def _log_domain(Q, K, V, omega, beta, causal):
    """Independent reference: the estimator's weights in the log domain with SciPy's logsumexp."""
    s = math.sqrt(beta)
    a = (s * Q) @ omega.T - ((s * Q) ** 2).sum(1, keepdims=True) / 2
    b = (s * K) @ omega.T - ((s * K) ** 2).sum(1, keepdims=True) / 2
    logk = special.logsumexp(a[:, None, :] + b[None, :, :], axis=2)
    if causal:
        logk = np.where(np.tril(np.ones_like(logk, dtype=bool)), logk, -np.inf)
    w = np.exp(logk - logk.max(1, keepdims=True))
    return (w @ V) / w.sum(1, keepdims=True)


# --------------------------------------------------------------------------- features
def test_orthogonal_draw_has_orthogonal_blocks_and_chi_norms():
    W = draw_omega(8, 4, rng=np.random.default_rng(0), norms="unit")
    assert np.allclose(W[:4] @ W[:4].T, np.eye(4)) and np.allclose(W[4:] @ W[4:].T, np.eye(4))
    norms = np.linalg.norm(draw_omega(4, 4, rng=np.random.default_rng(1), size=3000).reshape(-1, 4), axis=1)
    assert stats.kstest(norms, stats.chi(4).cdf).pvalue > 1e-3
    assert np.allclose(np.linalg.norm(draw_omega(5, 4, rng=np.random.default_rng(2), norms="sqrt_d"), axis=1), 2.0)
    assert draw_omega(5, 4, rng=np.random.default_rng(0), size=2).shape == (2, 5, 4)


@pytest.mark.parametrize("orthogonal", [False, True])
def test_kernel_estimate_is_unbiased(orthogonal):
    """Mean of φ(q)ᵀφ(k) over 20,000 draws against e^{qᵀk}: a z-test at |z| < 4 (false alarm ≈ 6e-5)."""
    q, k = np.array([[0.6, -0.2, 0.1]]), np.array([[0.3, 0.5, -0.4]])
    R, m = 20000, 6
    W = draw_omega(m, 3, rng=np.random.default_rng(3), orthogonal=orthogonal, size=R).reshape(R * m, 3)
    est = (favor_features(q, W) * favor_features(k, W) * (R * m)).reshape(R, m).mean(1)
    z = (est.mean() - math.exp((q @ k.T).item())) / (est.std(ddof=1) / math.sqrt(R))
    assert abs(z) < 4, z
    if not orthogonal:  # the closed-form variance: ratio of sample to formula inside a chi-square band
        ratio = est.var(ddof=1) / favor_kernel_variance(q[0], k[0], m)
        assert 0.9 < ratio < 1.1, ratio


def test_unit_rows_are_biased_as_the_closed_form_says():
    q, k = np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]])
    R = 20000
    W = draw_omega(2, 2, rng=np.random.default_rng(4), norms="unit", size=R).reshape(2 * R, 2)
    est = (favor_features(q, W) * favor_features(k, W) * (2 * R)).reshape(R, 2).mean(1)
    closed = math.exp(-(1 + 0.5) / 2) * special.hyp0f1(1, 2.5 / 4)
    se = est.std(ddof=1) / math.sqrt(R)
    assert abs(est.mean() - closed) < 4 * se
    assert math.exp(0.5) - est.mean() > 50 * se  # far below e^{qᵀk}


def test_worked_example_arithmetic():
    phi_q = favor_features(np.array([[1.0, 0.0]]), np.eye(2))
    phi_k = favor_features(np.array([[0.5, 0.5]]), np.eye(2))
    assert np.allclose(phi_q * math.sqrt(2), [[math.exp(0.5), math.exp(-0.5)]])
    assert math.isclose((phi_q @ phi_k.T).item(), math.exp(0.25) * math.cosh(0.5), rel_tol=1e-14)


# --------------------------------------------------------------------------- attention
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("chunk", [1, 5, 128])
def test_favor_attention_equals_the_dense_formula(causal, chunk):
    Q, K, V = _qkv(13, 4)
    W = draw_omega(7, 4, rng=np.random.default_rng(1))
    s = 4 ** -0.25
    Kap = favor_features(Q * s, W) @ favor_features(K * s, W).T
    if causal:
        Kap = np.tril(Kap)
    assert np.allclose(favor_attention(Q, K, V, W, causal=causal, chunk=chunk), Kap @ V / Kap.sum(1, keepdims=True),
                       rtol=1e-12, atol=1e-12)


def test_causal_matches_masked_exact_attention_for_many_features():
    Q, K, V = _qkv(10, 3, seed=5)
    O = performer_attention(Q * 0.5, K * 0.5, V, 20000, rng=np.random.default_rng(6), causal=True, chunk=4)
    assert np.linalg.norm(O - attention(Q * 0.5, K * 0.5, V, causal=True)) < 0.05 * np.linalg.norm(V)
    # row i of the causal estimate is the non-causal estimate over the prefix, with the same features
    W = draw_omega(16, 3, rng=np.random.default_rng(7))
    Oc = favor_attention(Q, K, V, W, causal=True, chunk=3)
    for i in (0, 4, 9):
        assert np.allclose(Oc[i], favor_attention(Q[i:i + 1], K[:i + 1], V[:i + 1], W)[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("beta", [1.0, 30.0, 1e3, 1e4])
@pytest.mark.parametrize("causal", [False, True])
def test_stabiliser_is_exact_at_any_temperature(dtype, beta, causal):
    Q, K, V = _qkv(24, 4, seed=8)
    W = draw_omega(8, 4, rng=np.random.default_rng(9))
    O = favor_attention(Q.astype(dtype), K.astype(dtype), V.astype(dtype), W.astype(dtype), causal=causal,
                        beta=beta, chunk=5)
    assert O.dtype == dtype and np.isfinite(O).all()
    ref = _log_domain(Q, K, V, W, beta, causal)
    tol = 1e-9 if dtype == np.float64 else 2e-2
    assert np.allclose(O, ref, atol=tol * max(1.0, beta ** 0.5), rtol=tol)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 20), d=st.integers(1, 5), m=st.integers(1, 12), log_beta=st.floats(-3, 4),
       causal=st.booleans(), chunk=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_outputs_are_convex_combinations_of_values(n, d, m, log_beta, causal, chunk, seed):
    """Positive features: every output row lies in the box spanned by the value rows it may see."""
    Q, K, V = _qkv(n, d, seed=seed)
    O = performer_attention(Q, K, V, m, rng=np.random.default_rng(seed), causal=causal, beta=10.0**log_beta,
                            chunk=chunk)
    assert np.isfinite(O).all()
    for i in range(n):
        seen = V[: i + 1] if causal else V
        assert np.all(O[i] >= seen.min(0) - 1e-9) and np.all(O[i] <= seen.max(0) + 1e-9)


def test_causal_memory_has_no_n_by_n_intermediate():
    Q, K, V = _qkv(4096, 8, seed=10)
    tracemalloc.start()
    performer_attention(Q, K, V, 32, rng=np.random.default_rng(0), causal=True, chunk=64)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4096 * 4096 * 8 / 16, peak   # far below one n×n float64 matrix (134 MB)


def test_linformer_equals_its_formula():
    Q, K, V = _qkv(20, 4, seed=11)
    O = linformer_attention(Q, K, V, 6, rng=np.random.default_rng(12), beta=0.7)
    g = np.random.default_rng(12)
    E, F = g.standard_normal((6, 20)) / math.sqrt(6), g.standard_normal((6, 20)) / math.sqrt(6)
    S = 0.7 * Q @ (E @ K).T
    P = np.exp(S - S.max(1, keepdims=True))
    assert np.allclose(O, (P / P.sum(1, keepdims=True)) @ (F @ V))
    assert np.isfinite(linformer_attention(Q, K, V, 6, rng=np.random.default_rng(12), beta=1e6)).all()


@pytest.mark.parametrize("causal", [False, True])
def test_array_api_strict_matches_numpy(causal):
    Q, K, V = _qkv(11, 4, seed=13)
    a = performer_attention(*(xps.asarray(x) for x in (Q, K, V)), 8, rng=np.random.default_rng(0), causal=causal,
                            chunk=4)
    b = performer_attention(Q, K, V, 8, rng=np.random.default_rng(0), causal=causal, chunk=4)
    assert type(a).__module__.startswith("array_api_strict")
    assert np.allclose(np.asarray(xps.asarray(a, copy=True)._array), b, rtol=1e-12, atol=1e-12)
    c = linformer_attention(*(xps.asarray(x) for x in (Q, K, V)), 5, rng=np.random.default_rng(0))
    assert np.allclose(c._array, linformer_attention(Q, K, V, 5, rng=np.random.default_rng(0)))


# --------------------------------------------------------------------------- bad input
Q0, K0, V0 = _qkv(6, 3)
W0 = draw_omega(4, 3, rng=np.random.default_rng(0))
G = np.random.default_rng
NAN = Q0.copy()
NAN[1, 1] = np.nan
INF = V0.copy()
INF[0, 0] = np.inf

BAD = [
    ("m0", lambda: performer_attention(Q0, K0, V0, 0, rng=G(0)), ValueError, "m"),
    ("m-neg", lambda: performer_attention(Q0, K0, V0, -3, rng=G(0)), ValueError, "m"),
    ("m-float", lambda: performer_attention(Q0, K0, V0, 2.5, rng=G(0)), TypeError, "m"),
    ("m-bool", lambda: performer_attention(Q0, K0, V0, True, rng=G(0)), TypeError, "m"),
    ("rng", lambda: performer_attention(Q0, K0, V0, 4, rng=1.5), TypeError, "rng"),
    ("width", lambda: performer_attention(Q0, K0[:, :2], V0, 4, rng=G(0)), ValueError, "Q and K"),
    ("rows", lambda: performer_attention(Q0, K0, V0[:4], 4, rng=G(0)), ValueError, "K and V"),
    ("nan", lambda: performer_attention(NAN, K0, V0, 4, rng=G(0)), ValueError, "Q"),
    ("inf", lambda: performer_attention(Q0, K0, INF, 4, rng=G(0)), ValueError, "V"),
    ("1d", lambda: performer_attention(Q0[0], K0, V0, 4, rng=G(0)), ValueError, "Q"),
    ("int-dtype-str", lambda: performer_attention(Q0.astype(str), K0, V0, 4, rng=G(0)), TypeError, "Q"),
    ("causal-lengths", lambda: performer_attention(Q0[:3], K0, V0, 4, rng=G(0), causal=True), ValueError, "causal"),
    ("chunk", lambda: performer_attention(Q0, K0, V0, 4, rng=G(0), causal=True, chunk=0), ValueError, "chunk"),
    ("beta", lambda: performer_attention(Q0, K0, V0, 4, rng=G(0), beta=float("inf")), ValueError, "beta"),
    ("beta-nan", lambda: favor_attention(Q0, K0, V0, W0, beta=float("nan")), ValueError, "beta"),
    ("omega-width", lambda: favor_attention(Q0, K0, V0, W0[:, :2]), ValueError, "omega"),
    ("omega-nan", lambda: favor_attention(Q0, K0, V0, W0 * np.nan), ValueError, "omega"),
    ("causal-type", lambda: favor_attention(Q0, K0, V0, W0, causal="yes"), TypeError, "causal"),
    ("overflow", lambda: favor_attention(Q0 * 1e200, K0, V0, W0), ValueError, "Q"),
    ("feat-1d", lambda: favor_features(Q0[0], W0), ValueError, "X"),
    ("feat-width", lambda: favor_features(Q0, W0[:, :2]), ValueError, "X and omega"),
    ("feat-overflow", lambda: favor_features(Q0 * 1e3, W0 * 1e3), ValueError, "X"),
    ("draw-m", lambda: draw_omega(0, 3, rng=G(0)), ValueError, "m"),
    ("draw-d", lambda: draw_omega(3, 0, rng=G(0)), ValueError, "d"),
    ("draw-size", lambda: draw_omega(3, 3, rng=G(0), size=0), ValueError, "size"),
    ("draw-norms", lambda: draw_omega(3, 3, rng=G(0), norms="l2"), ValueError, "norms"),
    ("draw-iid-norms", lambda: draw_omega(3, 3, rng=G(0), orthogonal=False, norms="unit"), ValueError, "norms"),
    ("draw-rng", lambda: draw_omega(3, 3, rng=np.random.RandomState(0)), TypeError, "rng"),
    ("var-m", lambda: favor_kernel_variance(np.ones(2), np.ones(2), 0), ValueError, "m"),
    ("var-shape", lambda: favor_kernel_variance(np.ones(2), np.ones(3), 1), ValueError, "q and k"),
    ("var-nan", lambda: favor_kernel_variance(np.array([np.nan, 1.0]), np.ones(2), 1), ValueError, "q"),
    ("lin-m0", lambda: linformer_attention(Q0, K0, V0, 0, rng=G(0)), ValueError, "m"),
    ("lin-m-float", lambda: linformer_attention(Q0, K0, V0, 2.0, rng=G(0)), TypeError, "m"),
    ("lin-rows", lambda: linformer_attention(Q0, K0, V0[:5], 2, rng=G(0)), ValueError, "K and V"),
    ("lin-nan", lambda: linformer_attention(NAN, K0, V0, 2, rng=G(0)), ValueError, "Q"),
    ("lin-rng", lambda: linformer_attention(Q0, K0, V0, 2, rng=1.5), TypeError, "rng"),
    ("lin-overflow", lambda: linformer_attention(Q0 * 1e200, K0 * 1e200, V0, 2, rng=G(0)), ValueError, "Q"),
]


@pytest.mark.parametrize("name,call,exc,word", BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_the_argument(name, call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_float16_is_computed_in_float32():
    O = performer_attention(Q0.astype(np.float16), K0.astype(np.float16), V0.astype(np.float16), 4, rng=G(0))
    assert O.dtype == np.float32


def test_negative_beta_is_the_sign_moved_into_the_queries():
    """beta < 0 is accepted as by attention: exp(beta q.k) = exp(|beta| (-q).k), so FAVOR+ estimates it exactly as
    it estimates beta > 0 (same features, the queries negated)."""
    rng = np.random.default_rng(3)
    Q, K, V = (rng.standard_normal((12, 4)) for _ in range(3))
    W = draw_omega(64, 4, rng=5)
    np.testing.assert_allclose(favor_attention(Q, K, V, W, beta=-0.5), favor_attention(-Q, K, V, W, beta=0.5))
    np.testing.assert_allclose(linformer_attention(Q, K, V, 6, rng=1, beta=-0.5),
                               linformer_attention(-Q, K, V, 6, rng=1, beta=0.5))


def test_linformer_old_keyword_k_warns_and_works():
    Q, K, V = (np.random.default_rng(i).standard_normal((8, 4)) for i in range(3))
    with pytest.warns(DeprecationWarning, match="'k' is deprecated; use 'm'"):
        old = linformer_attention(Q, K, V, k=4, rng=2)
    np.testing.assert_array_equal(old, linformer_attention(Q, K, V, m=4, rng=2))
