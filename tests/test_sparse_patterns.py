"""attnlab.theory.sparse_patterns: the construction on known targets, the element-ratio measure by hand, bad input."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab import (construct_sparse_attention, element_ratio_error, log_target, pattern_profile, resample_success,
                     sparse_dimension_bound)
from attnlab import ConstructionFailedWarning, softmax

RNG = np.random.default_rng


def permutation(L, seed=0):
    return np.eye(L)[RNG(seed).permutation(L)]


def band(L, w=1):
    i, j = np.indices((L, L))
    return np.where(abs(i - j) <= w, 1.0 + (i + j) % 2, 0.0)  # values 1 and 2: gamma = 2


def blocks(L, b=4):
    return np.kron(np.eye(L // b), np.ones((b, b)))


KNOWN = {"permutation": (permutation(24), 1, 1.0), "band": (band(24), 3, 2.0), "block": (blocks(24), 4, 1.0)}


@pytest.mark.parametrize("name", KNOWN)
def test_pattern_profile_of_known_targets(name):
    A, k, gamma = KNOWN[name]
    assert pattern_profile(A) == (k, gamma)


def test_log_target_by_hand():
    A = np.array([[1.0, 4.0, 0.0], [0.0, 3.0, 0.0], [2.0, 0.0, 1.0]])
    B = log_target(A, eps1=0.5, eps2=0.25)
    c = math.log(1.5 / 0.25)
    expected = np.array([[c, c + math.log(4), 0], [0, c, 0], [c + math.log(2), 0, c]])
    np.testing.assert_allclose(B, expected, rtol=1e-14)


@pytest.mark.parametrize("name", KNOWN)
@pytest.mark.parametrize("causal", [False, True])
def test_exact_at_full_dimension(name, causal):
    """At d = rank(B) the orthogonal projection is exact: the logits are B, the ratios exact, leakage ε2/(1+ε1)."""
    A, k, gamma = KNOWN[name]
    if causal:
        A = np.tril(A) + np.eye(len(A)) * (np.diag(A) == 0)
    B = log_target(A, 1.0, 0.5, causal=causal)
    r = np.linalg.matrix_rank(B)
    res = construct_sparse_attention(A, r, eps1=1.0, eps2=0.5, rng=RNG(1), causal=causal, nnz=k + 1, gamma=gamma)
    assert res.success and res.resamples == 1
    d = res.W_Q.shape[1]
    S = res.X[:, :d] @ res.X[:, d:].T
    Bm = B if not causal else np.where(np.tril(np.ones_like(B)) > 0, B, S)  # above the diagonal nothing is asked
    np.testing.assert_allclose(S, Bm, atol=1e-9)
    assert res.error.ratio < 1e-9
    assert res.error.leakage == pytest.approx(0.5 / 2.0, rel=1e-9)


def test_block_pattern_is_rank_deficient_and_uses_the_svd():
    A = blocks(24)  # gamma = 1: B is c times a block of ones, rank 6
    with pytest.raises(ValueError, match="rank"):
        construct_sparse_attention(A, 7, eps1=1.0, eps2=0.5, rng=RNG(0))
    assert construct_sparse_attention(A, 6, eps1=1.0, eps2=0.5, rng=RNG(0)).success


def test_svd_and_identity_give_the_same_law_for_full_rank():
    A = permutation(32)
    a = resample_success(A, [8, 16, 32], eps1=1.0, eps2=0.5, rng=RNG(3), draws=6, method="svd")
    b = resample_success(A, [8, 16, 32], eps1=1.0, eps2=0.5, rng=RNG(3), draws=6, method="identity")
    # B = cP: V is a permutation, so VY is a row permutation of Y; the permutation-invariant construction agrees
    assert a[2][:, -1].all() and b[2][:, -1].all()
    assert a[0].shape == b[0].shape == (6, 3)


def test_resampling_finds_a_permutation_at_small_d():
    res = construct_sparse_attention(permutation(128), 112, eps1=1.0, eps2=0.5, rng=RNG(0), method="identity")
    assert res.success
    assert res.error.ratio <= math.log(2.0) and res.error.leakage <= 0.5
    assert np.allclose(res.M.sum(axis=1), 1)


def test_float32_and_float64_logits_agree():
    A = band(48)
    r64 = resample_success(A, [16, 48], eps1=1.0, eps2=0.5, rng=RNG(5), draws=3)
    r32 = resample_success(A, [16, 48], eps1=1.0, eps2=0.5, rng=RNG(5), draws=3, dtype=np.float32)
    np.testing.assert_allclose(r32[0], r64[0], atol=1e-4)


def test_extreme_ratios_stay_finite():
    A = np.array([[1e-300, 1e300], [0.0, 1.0]])
    B = log_target(A, 1.0, 0.5)
    assert np.isfinite(B).all() and B[0, 1] - B[0, 0] == pytest.approx(600 * math.log(10))
    assert pattern_profile(A).gamma == math.inf
    A = np.array([[1e-100, 1e100], [0.0, 1.0]])  # a ratio of 1e200 still fits in a float64 attention row
    e = element_ratio_error(softmax(log_target(A, 1.0, 0.5)), A)
    assert e.ratio < 1e-9 and e.leakage <= 0.5


# ------------------------------------------------------------------------------------------- the measure by hand
def test_measure_hand_cases():
    A = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    M = np.array([[0.3, 0.6, 0.1], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    e = element_ratio_error(M, A)
    assert e.ratio == pytest.approx(0.0, abs=1e-15)
    assert e.leakage == pytest.approx(0.1 / 0.3)
    assert e.mass == pytest.approx(0.1)
    e = element_ratio_error(np.array([[0.6, 0.4], [0.5, 0.5]]), np.array([[1.0, 1.0], [1.0, 1.0]]))
    assert e.ratio == pytest.approx(math.log(1.5)) and e.leakage == 0 and e.mass == 0
    assert element_ratio_error(np.array([[1.0, 0.0], [0.0, 1.0]]), np.ones((2, 2))).ratio == math.inf


def test_measure_causal_ignores_the_upper_triangle():
    A, M = np.eye(2), np.array([[0.5, 0.5], [0.2, 0.8]])
    assert element_ratio_error(M, A).leakage == pytest.approx(1.0)
    assert element_ratio_error(M, A, causal=True).leakage == pytest.approx(0.25)


# ------------------------------------------------------------------------------------------- properties
@st.composite
def targets(draw):
    L = draw(st.integers(2, 10))
    k = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    gamma = draw(st.floats(1.0, 20.0))
    rng = RNG(seed)
    A = np.zeros((L, L))
    for _ in range(k):
        A[np.arange(L), rng.permutation(L)] = np.exp(rng.uniform(0, math.log(gamma), L))
    return A, seed


@settings(max_examples=60, deadline=None)
@given(targets(), st.floats(0.05, 3.0), st.floats(0.01, 0.99), st.floats(0.0, 1.0))
def test_logits_within_eta_of_B_meet_the_precision(tA, eps1, eps2, frac):
    """The lemma the construction rests on: |S − B| <= log(1+ε1)/2 entrywise ⇒ softmax(S) meets (ε1, ε2)."""
    A, seed = tA
    B = log_target(A, eps1, eps2)
    eta = 0.5 * math.log1p(eps1)
    E = RNG(seed).uniform(-1, 1, B.shape) * eta * frac
    e = element_ratio_error(softmax(B + E), A)
    assert e.ratio <= math.log1p(eps1) * (1 + 1e-12) + 1e-12
    assert e.leakage <= eps2 * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 8), st.floats(1.0, 100.0), st.floats(0.05, 3.0), st.floats(0.01, 0.99))
def test_bound_grows_with_L_k_and_gamma(L, k, gamma, eps1, eps2):
    b = sparse_dimension_bound(L, k, gamma, eps1, eps2)
    assert b >= 1
    assert sparse_dimension_bound(2 * L, k, gamma, eps1, eps2) >= b
    assert sparse_dimension_bound(L, k + 1, gamma, eps1, eps2) >= b
    assert sparse_dimension_bound(L, k, 2 * gamma, eps1, eps2) >= b
    assert sparse_dimension_bound(L, k, gamma, eps1, eps2, causal=True) <= b


# ------------------------------------------------------------------------------------------- bad input
GOOD = dict(eps1=1.0, eps2=0.5)
P8 = permutation(8)
BAD = [
    (lambda: log_target(np.ones((2, 3)), **GOOD), ValueError, "A"),
    (lambda: log_target(-P8, **GOOD), ValueError, "A"),
    (lambda: log_target(np.full((2, 2), np.nan), **GOOD), ValueError, "A"),
    (lambda: log_target(np.zeros((3, 3)), **GOOD), ValueError, "A"),
    (lambda: log_target(P8 > 0, **GOOD), TypeError, "A"),
    (lambda: log_target("x", **GOOD), TypeError, "A"),
    (lambda: log_target(band(8), nnz=2, **GOOD), ValueError, "nnz"),
    (lambda: log_target(band(8), gamma=1.5, **GOOD), ValueError, "gamma"),
    (lambda: log_target(band(8), gamma=0.5, **GOOD), ValueError, "gamma"),
    (lambda: log_target(band(8), causal=True, **GOOD), ValueError, "lower-triangular"),
    (lambda: log_target(P8, causal=1, **GOOD), TypeError, "causal"),
    (lambda: log_target(P8, eps1=0.0, eps2=0.5), ValueError, "eps1"),
    (lambda: log_target(P8, eps1=1.0, eps2=1.0), ValueError, "eps2"),
    (lambda: log_target(P8, eps1="a", eps2=0.5), TypeError, "eps1"),
    (lambda: log_target(P8, eps1=True, eps2=0.5), TypeError, "eps1"),
    (lambda: pattern_profile(np.ones(3)), ValueError, "A"),
    (lambda: element_ratio_error(np.ones((2, 2)), np.eye(3)), ValueError, "M"),
    (lambda: element_ratio_error(-np.ones((2, 2)), np.eye(2)), ValueError, "M"),
    (lambda: element_ratio_error(np.full((2, 2), np.inf), np.eye(2)), ValueError, "M"),
    (lambda: element_ratio_error(np.ones((2, 2)), np.zeros((2, 2))), ValueError, "A"),
    (lambda: sparse_dimension_bound(0, 1, 1.0, 1.0, 0.5), ValueError, "L"),
    (lambda: sparse_dimension_bound(10, 0, 1.0, 1.0, 0.5), ValueError, "nnz"),
    (lambda: sparse_dimension_bound(10, 1.5, 1.0, 1.0, 0.5), TypeError, "nnz"),
    (lambda: sparse_dimension_bound(10, 1, 0.5, 1.0, 0.5), ValueError, "gamma"),
    (lambda: sparse_dimension_bound(10, 1, 1.0, 1.0, 0.5, delta=1.0), ValueError, "delta"),
    (lambda: construct_sparse_attention(P8, 0, rng=RNG(0), **GOOD), ValueError, "d"),
    (lambda: construct_sparse_attention(P8, -3, rng=RNG(0), **GOOD), ValueError, "d"),
    (lambda: construct_sparse_attention(P8, True, rng=RNG(0), **GOOD), TypeError, "d"),
    (lambda: construct_sparse_attention(P8, 2.0, rng=RNG(0), **GOOD), TypeError, "d"),
    (lambda: construct_sparse_attention(P8, 9, rng=RNG(0), **GOOD), ValueError, "d"),
    (lambda: construct_sparse_attention(P8, 4, rng=4.2, **GOOD), TypeError, "rng"),
    (lambda: construct_sparse_attention(P8, 4, rng=RNG(0), max_resamples=0, **GOOD), ValueError, "max_resamples"),
    (lambda: construct_sparse_attention(P8, 4, rng=RNG(0), method="qr", **GOOD), ValueError, "method"),
    (lambda: construct_sparse_attention(P8, 4, rng=RNG(0), projection="x", **GOOD), ValueError, "projection"),
    (lambda: construct_sparse_attention(band(8), 4, rng=RNG(0), nnz=1, **GOOD), ValueError, "nnz"),
    (lambda: resample_success(P8, [], rng=RNG(0), **GOOD), ValueError, "dims"),
    (lambda: resample_success(P8, [4, 2], rng=RNG(0), **GOOD), ValueError, "dims"),
    (lambda: resample_success(P8, [0, 2], rng=RNG(0), **GOOD), ValueError, "dims"),
    (lambda: resample_success(P8, ["a"], rng=RNG(0), **GOOD), TypeError, "dims"),
    (lambda: resample_success(P8, [2], rng=RNG(0), draws=0, **GOOD), ValueError, "draws"),
    (lambda: resample_success(P8, [2], rng=RNG(0), dtype=np.float16, **GOOD), ValueError, "dtype"),
    (lambda: resample_success(P8, [2], rng=np.random.RandomState(0), **GOOD), TypeError, "rng"),
]


@pytest.mark.parametrize("call, exc, word", BAD, ids=[f"{i}-{w}" for i, (_, _, w) in enumerate(BAD)])
def test_bad_input_names_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


# ---------------------------------------------------------------------------------------------- sparse targets
def _random_target(L, k, seed, causal=False):
    from attnlab.audit.sparse_patterns import random_sparse_target

    return random_sparse_target(L, k, 2.0, RNG(seed), causal=causal)


@pytest.mark.parametrize("causal", [False, True])
def test_sparse_target_gives_the_dense_results(causal):
    """A SciPy sparse target is the same target: same profile, same B, same draws and verdicts."""
    from scipy import sparse

    A = _random_target(40, 3, 1, causal)
    S = sparse.csr_array(A)
    assert pattern_profile(S) == pattern_profile(A)
    np.testing.assert_array_equal(log_target(S, 1.0, 0.5, causal=causal).toarray(),
                                  log_target(A, 1.0, 0.5, causal=causal))
    kw = dict(eps1=1.0, eps2=0.5, draws=5, causal=causal, projection="gaussian")
    a = resample_success(A, [4, 16, 40], rng=RNG(2), **kw)
    b = resample_success(S, [4, 16, 40], rng=RNG(2), **kw)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_blocked_logits_match_the_dense_measure(monkeypatch):
    """Row blocks smaller than L (forced) give the errors element_ratio_error finds on the dense softmax."""
    import attnlab.theory.sparse_patterns as mod

    for causal in (False, True):
        A = _random_target(30, 2, 3, causal)
        with warnings.catch_warnings():  # one draw: it may miss the precision, which this test does not need
            warnings.simplefilter("ignore", ConstructionFailedWarning)
            res = construct_sparse_attention(A, 12, eps1=1.0, eps2=0.5, rng=RNG(4), causal=causal, max_resamples=1,
                                             projection="gaussian")
        monkeypatch.setattr(mod, "_MAX_BATCH_ENTRIES", 7 * 30)   # 7 rows per block
        mod._LAST.clear()
        ratio, leak, _ = resample_success(A, [12], eps1=1.0, eps2=0.5, rng=RNG(4), draws=1, causal=causal,
                                          projection="gaussian")
        monkeypatch.undo()
        assert ratio[0, 0] == pytest.approx(res.error.ratio, rel=1e-9, abs=1e-12)
        assert leak[0, 0] == pytest.approx(res.error.leakage, rel=1e-9)


def test_sparse_target_bad_input():
    from scipy import sparse

    with pytest.raises(ValueError, match="without a positive entry"):
        pattern_profile(sparse.csr_array(np.diag([1.0, 0.0])))
    with pytest.raises(ValueError, match="non-negative"):
        pattern_profile(sparse.csr_array(np.array([[1.0, -1.0], [0.0, 1.0]])))
    with pytest.raises(ValueError, match="lower-triangular"):
        log_target(sparse.csr_array(np.array([[1.0, 1.0], [0.0, 1.0]])), 1.0, 0.5, causal=True)


# ---------------------------------------------------------------------------------------------- moment curve
@pytest.mark.parametrize("L", [128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_moment_curve_has_fixed_dimension(L, causal):
    """d = 2k + 1 = 5 at every L (the referee's L = 128, 256): ratios kept to rounding, leakage below eps2."""
    from attnlab import moment_curve_attention

    A = _random_target(L, 2, L, causal)
    res = moment_curve_attention(A, eps1=2.0, eps2=0.5, causal=causal)
    assert res.success and res.d == 5 and res.X.shape == (L, 10)
    assert res.error.ratio < 1e-5 and res.error.leakage <= 0.5 / math.sqrt(3) * (1 + 1e-4)
    assert res.max_entry >= (L - 1) ** 4   # the price: entries of order L^(2k)
    # the logits are the polynomials p_i evaluated at the keys (an independent evaluation)
    i = L // 3
    p = np.polynomial.polynomial.Polynomial(res.X[i, :5])
    S_i = res.X[i, :5] @ res.X[:, 5:].T
    np.testing.assert_allclose(S_i, p(np.arange(L)), rtol=1e-9, atol=1e-9 * np.abs(S_i).max())


def test_moment_curve_by_hand():
    """A permutation row: p_i(t) = -C (t - s)^2, C = (eta - log eps2) at the neighbours of s."""
    from attnlab import moment_curve_attention

    A = np.eye(5)[[2, 0, 4, 1, 3]]
    res = moment_curve_attention(A, eps1=1.0, eps2=0.5)
    C = 0.5 * math.log(2.0) - math.log(0.5)
    np.testing.assert_allclose(res.C, C)
    np.testing.assert_allclose(res.X[0, :3], [-C * 4, C * 4, -C])   # -C (t - 2)^2
    assert res.error.leakage == pytest.approx(0.5 / math.sqrt(2.0))


# ---------------------------------------------------------------------------------------------- packing
@given(L=st.integers(2, 10**6), R=st.floats(0.01, 100.0), eps2=st.floats(0.01, 0.99))
@settings(max_examples=300, deadline=None)
def test_packing_bound_is_the_smallest_d_the_volume_allows(L, R, eps2):
    from attnlab import packing_dimension_bound

    d = packing_dimension_bound(L, R, eps2)
    base = 1 + 2 * R / math.log(1 / eps2)
    assert d * math.log(base) >= math.log(L) * (1 - 1e-12)
    assert d == 1 or (d - 1) * math.log(base) < math.log(L) * (1 + 1e-12)


def test_packing_bound_holds_for_the_constructions():
    """Both constructions meet the lower bound their own norms imply (the random projection at the d it found)."""
    from attnlab import moment_curve_attention, packing_dimension_bound

    L = 64
    A = permutation(L, 5)
    mc = moment_curve_attention(A, eps1=1.0, eps2=0.5)
    assert mc.d >= packing_dimension_bound(L, mc.norm_product, 0.5)
    res = construct_sparse_attention(A, 64, eps1=1.0, eps2=0.5, rng=RNG(0))
    d = res.W_Q.shape[1]
    Rq = np.linalg.norm(res.X @ res.W_Q, axis=1).max()
    Rk = np.linalg.norm(res.X @ res.W_K, axis=1).max()
    assert res.success and d >= packing_dimension_bound(L, Rq * Rk, 0.5)


def test_packing_and_moment_bad_input():
    from attnlab import moment_curve_attention, packing_dimension_bound

    with pytest.raises(ValueError, match="R must"):
        packing_dimension_bound(10, 0.0, 0.5)
    with pytest.raises(ValueError, match="eps2"):
        packing_dimension_bound(10, 1.0, 1.0)
    with pytest.raises(ValueError, match="sparsity"):
        moment_curve_attention(band(8), eps1=1.0, eps2=0.5, nnz=2)


# ---------------------------------------------------------------------------------------------- counts
def test_operation_count_by_hand():
    from attnlab import construction_operation_count

    L, d = 6, 3
    c = construction_operation_count(np.eye(L), d, 2)
    assert c.factor == L                                   # a diagonal LU eliminates nothing
    assert c.per_draw == L * d + 2 * L * d + 2 * L * L * d + L * L + 4 * L
    assert c.total == c.prepare + c.factor + 2 * c.per_draw
    cc = construction_operation_count(np.eye(L), d, 2, causal=True)
    assert cc.per_draw == L * d + 2 * L * d + 2 * (L * (L + 1) // 2) * d + L * (L + 1) // 2 + 4 * L


def test_operation_count_of_a_dense_lu_is_cubic():
    """A full lower-triangular-plus-one B: the elimination count of a dense LU is about 2L^3/3."""
    from attnlab import construction_operation_count

    L = 40
    A = np.ones((L, L)) + np.eye(L)          # B = c·1 + log 2·I: full rank, dense factors
    c = construction_operation_count(A, 2, 1)
    assert 0.5 * L**3 < c.factor < 0.8 * L**3
    # rank-deficient B (blocks of equal weights): the dense SVD's count
    assert construction_operation_count(blocks(24), 2, 1).factor == 22 * 24**3


def test_failure_warns():
    """A construction that meets no precision says so with a warning, not only in ``success``."""
    A = np.eye(64)[np.random.default_rng(0).permutation(64)]
    with pytest.warns(ConstructionFailedWarning, match="no draw of 2 met the precision"):
        res = construct_sparse_attention(A, 2, eps1=1.0, eps2=0.5, rng=RNG(0), max_resamples=2)
    assert not res.success
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstructionFailedWarning)
        assert construct_sparse_attention(A, 64, eps1=1.0, eps2=0.5, rng=RNG(0)).success


def test_old_keyword_k_is_nnz_with_a_warning():
    with pytest.warns(DeprecationWarning, match="'k' is deprecated; use 'nnz'"):
        old = log_target(band(8), 1.0, 0.5, k=3)
    np.testing.assert_array_equal(old, log_target(band(8), 1.0, 0.5, nnz=3))


# ---------------------------------------------------------------------------------------------------- result objects
def test_pattern_profile_and_resample_success_return_records_that_unpack():
    import attnlab

    A = np.array([[1.0, 3.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    prof = pattern_profile(A)
    assert isinstance(prof, attnlab.PatternProfile) and prof._fields == ("nnz", "gamma")
    nnz, gamma = prof
    assert (nnz, gamma) == (prof.nnz, prof.gamma) == (2, pytest.approx(3.0))
    res = resample_success(np.eye(16), [4, 16], eps1=1.0, eps2=0.5, rng=RNG(6), draws=3)
    assert isinstance(res, attnlab.ResampleSuccess) and res._fields == ("ratio", "leakage", "success")
    ratio, leakage, success = res
    assert ratio.shape == leakage.shape == success.shape == (3, 2) and success is res.success
    assert np.array_equal(success, (ratio <= math.log1p(1.0)) & (leakage <= 0.5))
    assert success[:, 1].all()
