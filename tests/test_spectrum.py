"""Spectrum of attention: Eckart–Young, the power-law tail bound, rank, energy, the softmax kernel."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab import attention_matrix
from attnlab import spectrum as S


@settings(max_examples=200, deadline=None)
@given(alpha=st.floats(0.51, 4.0), r=st.integers(1, 2000))
def test_powerlaw_tail_bound_holds_for_alpha_above_half(alpha, r):
    k = np.arange(r + 1, r + 200_000, dtype=float)
    tail_partial = math.sqrt(np.sum(k ** (-2 * alpha)))  # a partial sum: below the full tail
    assert tail_partial <= S.powerlaw_tail_bound(1.0, alpha, r) * (1 + 1e-12)


def test_powerlaw_tail_bound_needs_alpha_above_half():
    assert np.isinf(S.powerlaw_tail_bound(1.0, 0.5, 4))
    assert np.isinf(S.powerlaw_tail_bound(1.0, 0.3, 4))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), d=st.integers(1, 8), r=st.integers(1, 39))
def test_eckart_young_identity_and_rank_bound(seed, n, d, r):
    rng = np.random.default_rng(seed)
    Q, K = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    A = attention_matrix(Q, K)
    r = min(r, n)
    U, s, Vt = np.linalg.svd(A)
    direct = np.linalg.norm(A - (U[:, :r] * s[:r]) @ Vt[:r])
    assert abs(direct - S.tail_norm(s, r)) <= 1e-12 * max(1.0, direct)
    sS = np.linalg.svd(Q @ K.T, compute_uv=False)
    assert int((sS > sS[0] * n * 1e-15 * 10).sum()) <= min(n, d)


def test_cutoff_counterexample_smallest():
    """n = 2, d = 1: scores of rank 1, attention matrix of rank 2."""
    Q = np.array([[0.0], [1.0]])
    A = attention_matrix(Q, Q)
    assert np.linalg.matrix_rank(Q @ Q.T) == 1
    assert np.linalg.matrix_rank(A) == 2
    assert abs(np.linalg.det(A) - (math.e - 1) / (2 * (1 + math.e))) < 1e-14


def test_energy_count():
    assert S.energy_count(np.array([1.0])) == 1
    assert S.energy_count(np.array([3.0, 1.0, 1.0]), 0.9) == 2
    assert S.energy_count(np.ones(10), 0.9) == 9


def test_sharpening_raises_k90_for_one_hot_limit():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((64, 64)), rng.standard_normal((64, 64))
    flat = S.energy_count(S.singular_values(attention_matrix(Q, K, beta=1e-6)))
    sharp = S.energy_count(S.singular_values(attention_matrix(Q, K, beta=10.0)))
    assert flat == 1 and sharp > 20


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 12), d=st.integers(1, 6), scale=st.floats(0.01, 5.0))
def test_softmax_kernel_is_psd(seed, n, d, scale):
    X = scale * np.random.default_rng(seed).standard_normal((n, d))
    M, shift = S.softmax_kernel(X)
    ev = np.linalg.eigvalsh(M)
    assert ev[0] >= -1e-12 * ev[-1]
    assert np.allclose(M * math.exp(shift), np.exp(X @ X.T / math.sqrt(d)), rtol=1e-12)


def test_powerlaw_fit_recovers_exponent():
    s = 3.0 * np.arange(1, 201, dtype=float) ** -1.7
    f = S.powerlaw_fit(s)
    assert abs(f["alpha"] - 1.7) < 1e-10 and f["r2"] > 1 - 1e-12
    assert abs(S.envelope_constant(s, 1.7) - 3.0) < 1e-12


def test_make_inputs_and_errors():
    rng = np.random.default_rng(0)
    for kind in S.KINDS:
        Q, K = S.make_inputs(kind, 10, 8, rng)
        assert Q.shape == K.shape == (10, 8)
    with pytest.raises(ValueError, match="kind"):
        S.make_inputs("nope", 4, 4, rng)
    with pytest.raises(ValueError, match="n"):
        S.make_inputs("gaussian", 0, 4, rng)
    with pytest.raises(ValueError, match="X and Y"):
        S.softmax_kernel(np.ones((2, 3)), np.ones((2, 4)))
