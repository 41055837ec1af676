"""Spectrum of attention (the library): Eckart–Young, the power-law tail bound, rank, energy, the softmax kernel,
and bad input for every public function."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab import attention_matrix
from attnlab.theory import spectrum as S


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
    assert abs(f.alpha - 1.7) < 1e-10 and f.r2 > 1 - 1e-12
    assert abs(S.envelope_constant(s, 1.7) - 3.0) < 1e-12


def test_singular_values_dtypes():
    A = np.random.default_rng(0).standard_normal((5, 3))
    assert S.singular_values(A).dtype == np.float64 and S.singular_values(A).shape == (3,)
    assert S.singular_values(A.astype(np.float32)).dtype == np.float32
    assert S.singular_values(A.astype(np.float16)).dtype == np.float32
    np.testing.assert_allclose(S.singular_values(np.eye(3, dtype=int)), np.ones(3))
    assert np.all(np.diff(S.singular_values(A)) <= 0)


def test_tail_norm_edges():
    s = np.array([3.0, 2.0, 1.0])
    assert S.tail_norm(s, 0) == pytest.approx(math.sqrt(14))
    assert S.tail_norm(s, 3) == 0.0 and S.tail_norm(s, 10) == 0.0


def test_energy_count_edges():
    assert S.energy_count(np.zeros(4)) == 1
    assert S.energy_count([2.0, 1.0], 1.0) == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_kernel_huge_logits(dtype):
    """Logits of 1e4 are fine: the shift keeps M in (0, 1]."""
    X = np.array([[100.0, 0.0], [0.0, 100.0]], dtype=dtype)
    M, shift = S.softmax_kernel(X, beta=1.0)
    assert M.dtype == dtype and np.isfinite(M).all() and shift == pytest.approx(1e4)
    assert M[0, 0] == 1.0 and M[0, 1] == 0.0


def test_softmax_kernel_float16_computed_in_float32():
    M, _ = S.softmax_kernel(np.ones((2, 2), dtype=np.float16))
    assert M.dtype == np.float32


SPECTRUM_BAD = [
    (np.array([]), ValueError, "s must be a non-empty 1-D"),
    (np.ones((2, 2)), ValueError, "s must be a non-empty 1-D"),
    (np.array([1.0, np.nan]), ValueError, "s contains NaN or inf"),
    (np.array([np.inf, 1.0]), ValueError, "s contains NaN or inf"),
    (np.array([1.0, -0.5]), ValueError, "s must be non-negative"),
    (np.array([1.0, 2.0]), ValueError, "s must be in non-increasing order"),
    (np.array([1.0 + 1j]), TypeError, "s must be"),
    (np.array([True, False]), TypeError, "s must be"),
    ("123", TypeError, "s must be"),
    ([[1.0], [1.0, 2.0]], TypeError, "s must be"),
]

_S = np.array([4.0, 2.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03])
#: every public function that takes a spectrum, with good values of its other arguments
_ON_SPECTRUM = {
    "energy_count": lambda s: S.energy_count(s, 0.9),
    "tail_norm": lambda s: S.tail_norm(s, 1),
    "powerlaw_fit": lambda s: S.powerlaw_fit(s),
    "envelope_constant": lambda s: S.envelope_constant(s, 1.0),
}


@pytest.mark.parametrize("fn", sorted(_ON_SPECTRUM))
@pytest.mark.parametrize("s, exc, match", SPECTRUM_BAD)
def test_bad_spectrum(fn, s, exc, match):
    with pytest.raises(exc, match=match):
        _ON_SPECTRUM[fn](s)


BAD = [
    # singular_values
    (lambda: S.singular_values(np.ones(3)), ValueError, "A must be 2-dimensional"),
    (lambda: S.singular_values(np.ones((0, 3))), ValueError, "A must have positive dimensions"),
    (lambda: S.singular_values(np.array([[np.nan]])), ValueError, "A contains NaN or inf"),
    (lambda: S.singular_values(np.ones((2, 2), complex)), TypeError, "A must be a real floating array"),
    (lambda: S.singular_values("matrix"), TypeError, "A must be a real floating array"),
    # energy_count
    (lambda: S.energy_count(_S, 0.0), ValueError, r"frac must lie in \(0, 1\]"),
    (lambda: S.energy_count(_S, 1.5), ValueError, r"frac must lie in \(0, 1\]"),
    (lambda: S.energy_count(_S, math.nan), ValueError, "frac must be finite"),
    (lambda: S.energy_count(_S, "0.9"), TypeError, "frac must be a real number"),
    (lambda: S.energy_count(_S, True), TypeError, "frac must be a real number"),
    # tail_norm
    (lambda: S.tail_norm(_S, -1), ValueError, "r must be >= 0"),
    (lambda: S.tail_norm(_S, 1.0), TypeError, "r must be an integer"),
    (lambda: S.tail_norm(_S, True), TypeError, "r must be an integer"),
    # powerlaw_tail_bound
    (lambda: S.powerlaw_tail_bound(-1.0, 1.0, 4), ValueError, "C must be >= 0"),
    (lambda: S.powerlaw_tail_bound(math.inf, 1.0, 4), ValueError, "C contains NaN or inf"),
    (lambda: S.powerlaw_tail_bound(1.0, math.nan, 4), ValueError, "alpha contains NaN or inf"),
    (lambda: S.powerlaw_tail_bound(1.0, 1.0, 0), ValueError, "r must be > 0"),
    (lambda: S.powerlaw_tail_bound(1.0, 1.0, [1, -2]), ValueError, "r must be > 0"),
    (lambda: S.powerlaw_tail_bound(1.0, [1.0, 2.0], [1, 2, 3]), ValueError, "C, alpha and r must broadcast"),
    (lambda: S.powerlaw_tail_bound("1", 1.0, 4), TypeError, "C must be real numbers"),
    (lambda: S.powerlaw_tail_bound(1.0, None, 4), TypeError, "alpha must be"),
    (lambda: S.powerlaw_tail_bound(1.0, 1.0, True), TypeError, "r must be"),
    # powerlaw_fit
    (lambda: S.powerlaw_fit(np.zeros(8)), ValueError, "positive largest singular value"),
    (lambda: S.powerlaw_fit(_S, k_lo=0), ValueError, "k_lo must be >= 1"),
    (lambda: S.powerlaw_fit(_S, k_lo=2.0), TypeError, "k_lo must be an integer"),
    (lambda: S.powerlaw_fit(_S, k_hi=1), ValueError, "k_hi must be >= k_lo"),
    (lambda: S.powerlaw_fit(_S, k_hi=True), TypeError, "k_hi must be an integer"),
    (lambda: S.powerlaw_fit(_S, k_lo=2, k_hi=3), ValueError, "needs >= 3 singular values"),
    (lambda: S.powerlaw_fit(np.array([1.0, 1e-20, 1e-20, 1e-20]), k_hi=4), ValueError, "needs >= 3 singular values"),
    (lambda: S.powerlaw_fit(_S, confidence=1.0), ValueError, "confidence must lie in"),
    (lambda: S.powerlaw_fit(_S, confidence="high"), TypeError, "confidence must be a real number"),
    # envelope_constant
    (lambda: S.envelope_constant(_S, math.inf), ValueError, "alpha must be finite"),
    (lambda: S.envelope_constant(_S, "1"), TypeError, "alpha must be a real number"),
    # softmax_kernel
    (lambda: S.softmax_kernel(np.ones((2, 3)), np.ones((2, 4))), ValueError, "X and Y must have the same width"),
    (lambda: S.softmax_kernel(np.ones(3)), ValueError, "X must be 2-dimensional"),
    (lambda: S.softmax_kernel(np.ones((2, 3)), np.ones((0, 3))), ValueError, "Y must have positive dimensions"),
    (lambda: S.softmax_kernel(np.full((2, 2), np.nan)), ValueError, "X contains NaN or inf"),
    (lambda: S.softmax_kernel(np.ones((2, 2)), np.full((2, 2), np.inf)), ValueError, "Y contains NaN or inf"),
    (lambda: S.softmax_kernel(np.ones((2, 2), complex)), TypeError, "X must be a real floating array"),
    (lambda: S.softmax_kernel(np.ones((2, 2)), beta=0.0), ValueError, "beta must be a finite number > 0"),
    (lambda: S.softmax_kernel(np.ones((2, 2)), beta=-1.0), ValueError, "beta must be a finite number > 0"),
    (lambda: S.softmax_kernel(np.ones((2, 2)), beta="1"), TypeError, "beta must be a real number"),
    (lambda: S.softmax_kernel(np.full((2, 2), 1e200)), ValueError, "overflows float64"),
    (lambda: S.softmax_kernel(np.full((2, 2), 1e20, np.float32), beta=1.0), ValueError, "overflows float32"),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("call, exc, match", BAD, ids=range(len(BAD)))
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_every_public_function_has_bad_input_cases():
    import inspect

    src = inspect.getsource(inspect.getmodule(test_bad_input))
    for name in S.__all__:
        if isinstance(getattr(S, name), type):   # a result record (PowerlawFit, SoftmaxKernel)
            continue
        assert f"S.{name}(" in src.split("BAD = [", 1)[1] or name in _ON_SPECTRUM, name


# --------------------------------------------------------------------------- result objects
def test_powerlaw_fit_is_a_record_with_the_former_dict_spellings():
    s = 2.0 * np.arange(1, 61) ** -1.2
    fit = S.powerlaw_fit(s, k_lo=3, k_hi=40)
    assert isinstance(fit, S.PowerlawFit)
    assert fit._fields == ("alpha", "alpha_lo", "alpha_hi", "r2", "c", "k_lo", "k_hi")
    assert fit.alpha == pytest.approx(1.2, abs=1e-10) and fit.c == pytest.approx(2.0)
    assert (fit.k_lo, fit.k_hi) == (3, 40)
    assert fit.alpha_lo <= fit.alpha <= fit.alpha_hi
    with pytest.warns(DeprecationWarning, match=r"\.alpha"):
        assert fit["alpha"] == fit.alpha
    with pytest.warns(DeprecationWarning, match=r"\.r2"):
        assert fit.get("r2") == fit.r2
    with pytest.warns(DeprecationWarning):
        assert "k_hi" in fit


def test_softmax_kernel_is_a_record_that_unpacks():
    X = np.array([[0.0, 1.0], [1.0, 1.0]])
    res = S.softmax_kernel(X, beta=0.5)
    assert isinstance(res, S.SoftmaxKernel) and res._fields == ("M", "shift")
    M, shift = res
    assert M is res.M and shift == res.shift == pytest.approx(1.0)
    assert np.allclose(res.M * np.exp(res.shift), np.exp(0.5 * X @ X.T), rtol=1e-14)
