"""The library module attnlab.approx.jl: JL bounds, exact tails, rates, dimension formulas and samplers."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from attnlab.approx import jl


def _interval(k, n, confidence=0.999):
    ci = stats.binomtest(k, n).proportion_ci(confidence, method="exact")
    return ci.low, ci.high


def _unit_rows(n, d, rng):
    X = rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_tail_at_c1_is_chi_square():
    for m, eps in ((1, 0.3), (16, 0.1), (256, 0.49)):
        ref = stats.chi2.sf(m * (1 + eps), m) + stats.chi2.cdf(m * (1 - eps), m)
        assert jl.inner_product_tail(m, eps, 1.0) == pytest.approx(ref, rel=1e-12)
        assert jl.inner_product_tail(m, eps, -1.0) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("c", [0.0, 0.3, 0.8])
def test_tail_against_monte_carlo(c):
    m, eps, n = 32, 0.3, 400_000
    err = jl.sample_inner_product_error(c, m, n, rng=np.random.default_rng(int(10 * c)), method="chi2")
    k = int((np.abs(err) >= eps).sum())
    lo, hi = _interval(k, n)
    assert lo <= jl.inner_product_tail(m, eps, c) <= hi


def test_matrix_and_chi2_samplers_agree_in_law():
    rng = np.random.default_rng(3)
    a = jl.sample_inner_product_error(0.4, 24, 20_000, rng=rng, method="matrix")
    b = jl.sample_inner_product_error(0.4, 24, 20_000, rng=rng, method="chi2")
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    # and the matrix sampler against an explicit d = 10 projection of explicit unit vectors
    u = np.zeros(10); u[3] = 1.0
    v = np.zeros(10); v[3], v[7] = 0.4, math.sqrt(1 - 0.16)
    P = rng.standard_normal((3000, 24, 10)) / math.sqrt(24)
    explicit = np.einsum("tk,tk->t", P @ u, P @ v) - 0.4
    assert stats.ks_2samp(a[:3000], explicit).pvalue > 1e-3


def test_matrix_sampler_is_chunked_without_changing_the_law():
    a = jl.sample_inner_product_error(0.2, 16, 5_000, rng=np.random.default_rng(1), chunk=64)
    b = jl.sample_inner_product_error(0.2, 16, 5_000, rng=np.random.default_rng(1))
    assert a.shape == b.shape == (5_000,) and a.dtype == np.float64
    assert stats.ks_2samp(a, b).pvalue > 1e-3


def test_worst_pair_is_c_equal_one():
    for m, eps in ((8, 0.2), (128, 0.3), (1024, 0.49)):
        c, p = jl.worst_pair_tail(m, eps)
        assert c == 1.0 and p == pytest.approx(jl.inner_product_tail(m, eps, 1.0))
    assert jl.worst_pair_tail(64, 0.3, grid=2).c == 1.0


def test_worst_pair_tail_returns_a_worst_pair():
    w = jl.worst_pair_tail(32, 0.25, grid=5)
    assert isinstance(w, jl.WorstPair) and w._fields == ("c", "tail")
    c, tail = w
    assert (c, tail) == (w.c, w.tail) and tail == jl.inner_product_tail(32, 0.25, c)
    assert all(jl.inner_product_tail(32, 0.25, x) <= tail for x in np.linspace(0, 1, 11))


def test_rates():
    assert jl.large_deviation_rate(0.3, 1.0) == pytest.approx((0.3 - math.log(1.3)) / 2)
    assert jl.large_deviation_rate(0.3, -1.0) == jl.large_deviation_rate(0.3, 1.0)
    # continuity in c, and a slower decay near c = 1 than at c = 0
    assert jl.large_deviation_rate(0.3, 0.999999) == pytest.approx(jl.large_deviation_rate(0.3, 1.0), rel=1e-4)
    assert jl.large_deviation_rate(0.3, 0.0) > jl.large_deviation_rate(0.3, 0.5) > jl.large_deviation_rate(0.3, 1.0)
    # eps >= 1: the lower tail of chi^2_m/m is empty, the rate is the upper one (finite)
    assert jl.large_deviation_rate(1.5) == pytest.approx((1.5 - math.log(2.5)) / 2)
    # the exact tail decays at the Cramer rate: the slope of log tail in m tends to -I
    slope = (math.log(jl.inner_product_tail(4096, 0.2, 0.5)) - math.log(jl.inner_product_tail(2048, 0.2, 0.5))) / 2048
    assert slope == pytest.approx(-jl.large_deviation_rate(0.2, 0.5), rel=0.03)


@settings(max_examples=300, deadline=None)
@given(m=st.integers(1, 3000), eps=st.floats(0.01, 0.499), c=st.floats(-1, 1))
def test_property_printed_and_chernoff_bounds_hold(m, eps, c):
    """PDA-jl holds: exact tail <= Chernoff form <= 4 exp(-m eps^2/8) on (0, 1/2)."""
    tail = jl.inner_product_tail(m, eps, c)
    chern = float(jl.jl_bound_chernoff(m, eps))
    assert tail <= chern * (1 + 1e-9)
    assert chern <= float(jl.jl_bound_printed(m, eps)) * (1 + 1e-12)


def test_bounds_are_vectorised():
    m, eps = np.array([[16], [256]]), np.array([0.1, 0.3, 1.5])
    for f in (jl.jl_bound_printed, jl.jl_bound_chernoff):
        grid = f(m, eps)
        assert grid.shape == (2, 3) and grid.dtype == np.float64
        assert all(grid[i, j] == f(int(m[i, 0]), float(eps[j])) for i in range(2) for j in range(3))
    assert jl.jl_bound_chernoff(10, 1.5) == pytest.approx(2 * math.exp(-5 * (1.5 - math.log(2.5))))  # no lower tail


def test_dimension_formulas():
    assert jl.m_theorem(64, 0.5, 1000, 0.1) == math.ceil(2048 * math.log(20_000))
    assert jl.m_theorem(64, 0.5, 1000, 0.1, const=4) == math.ceil(2048 * math.log(40_000))
    assert jl.m_theorem(1, 100.0, 1, 0.9, const=0.5) == 1  # log < 0: every m >= 1 meets the requirement
    m = jl.m_union_exact(0.0625, 1000, 0.1)
    assert 1000 * jl.inner_product_tail(m, 0.0625) <= 0.1 < 1000 * jl.inner_product_tail(m - 1, 0.0625)
    m = jl.m_sup_row(8, 0.3, 0.1)
    assert jl.sup_row_tail(m, 0.3, 8) <= 0.1 < jl.sup_row_tail(m - 1, 0.3, 8)


def test_sup_row_tail_and_row_sampler_against_genuine_projections():
    rng = np.random.default_rng(5)
    d, m, eps0, L = 6, 40, 0.35, 50
    q = rng.standard_normal(d); q /= np.linalg.norm(q)
    K = _unit_rows(L, d, rng)
    P = rng.standard_normal((20_000, m, d)) / math.sqrt(m)
    W = np.einsum("tkd,tk->td", P, P @ q) - q  # (P^T P - I) q per trial
    norms = np.linalg.norm(W, axis=1)
    k = int((norms >= eps0).sum())
    lo, hi = _interval(k, norms.size)
    assert lo <= jl.sup_row_tail(m, eps0, d) <= hi
    genuine = np.abs(W @ K.T).max(axis=1)
    reduced = jl.sample_row_max_error(K, q, m, 20_000, rng=rng)
    assert stats.ks_2samp(genuine, reduced).pvalue > 1e-3


def test_row_sampler_edge_cases():
    rng = np.random.default_rng(2)
    K = _unit_rows(5, 4, rng)
    e1 = np.eye(4)[0]  # no reflection needed
    assert jl.sample_row_max_error(K, e1, 16, 100, rng=rng).shape == (100,)
    assert not jl.sample_row_max_error(K, np.zeros(4), 16, 7, rng=rng).any()  # a zero query has no error
    # errors scale linearly with the query; float32 and integer inputs are computed in float64
    a = jl.sample_row_max_error(K, 3 * e1, 16, 50, rng=np.random.default_rng(0))
    b = jl.sample_row_max_error(K, e1, 16, 50, rng=np.random.default_rng(0))
    assert np.allclose(a, 3 * b)
    c = jl.sample_row_max_error(K.astype(np.float32), np.array([1, 0, 0, 0]), 16, 50, rng=np.random.default_rng(0))
    assert c.dtype == np.float64 and np.allclose(c, b, rtol=1e-6)
    assert jl.sample_row_max_error(np.ones((3, 1)), np.ones(1), 8, 10, rng=rng).shape == (10,)  # d = 1


def test_row_sampler_tiles_cover_every_key_and_trial():
    # the draws depend on m, trials and q only, so the maximum over all keys is the maximum over two halves, and
    # 4100 trials over 1000 keys cross both tile boundaries (4096 trials, 128 keys a tile)
    rng = np.random.default_rng(3)
    K, q = _unit_rows(1000, 6, rng), _unit_rows(1, 6, rng)[0]
    whole = jl.sample_row_max_error(K, q, 32, 4100, rng=7)
    halves = [jl.sample_row_max_error(K[s], q, 32, 4100, rng=7) for s in (slice(0, 437), slice(437, None))]
    assert np.array_equal(whole, np.maximum(*halves))
    assert np.allclose(jl.sample_row_max_error(K[:1], q, 32, 4100, rng=7),  # a repeated key: the same errors
                       jl.sample_row_max_error(np.repeat(K[:1], 300, axis=0), q, 32, 4100, rng=7), rtol=0, atol=1e-15)


@settings(max_examples=500, deadline=None)
@given(L=st.integers(1, 10**7), delta=st.floats(1e-6, 0.99), eps0=st.floats(1e-3, 0.499))
def test_property_stated_row_requirement_suffices(L, delta, eps0):
    """PDA-row/PDA-global as stated: with m = ceil(8/eps0^2 log(2n/delta)) the sharper Chernoff union bound is <= delta
    whenever n/delta >= 4 (n = L keys, or L^2 pairs)."""
    for n in (L, L * L):
        if n / delta < 4:
            continue
        m = math.ceil(8 / eps0**2 * math.log(2 * n / delta))
        assert n * float(jl.jl_bound_chernoff(m, eps0)) <= delta * (1 + 1e-9)


RNG = np.random.default_rng(0)
K4, Q4 = np.ones((3, 4)), np.ones(4)

#: (function, args, kwargs, exception, words the message must contain: the caller's argument name)
BAD = [
    (jl.jl_bound_printed, (0, 0.1), {}, ValueError, "m"),
    (jl.jl_bound_printed, (2.5, 0.1), {}, ValueError, "m must be integers"),
    (jl.jl_bound_printed, (True, 0.1), {}, TypeError, "m"),
    (jl.jl_bound_printed, ("8", 0.1), {}, TypeError, "m"),
    (jl.jl_bound_printed, ([8, np.nan], 0.1), {}, ValueError, "m contains NaN"),
    (jl.jl_bound_printed, (8, 0.0), {}, ValueError, "eps"),
    (jl.jl_bound_printed, (8, -1.0), {}, ValueError, "eps"),
    (jl.jl_bound_printed, (8, np.inf), {}, ValueError, "eps contains NaN or inf"),
    (jl.jl_bound_printed, (8, 1j), {}, TypeError, "eps"),
    (jl.jl_bound_printed, ([8, 16], [0.1, 0.2, 0.3]), {}, ValueError, "broadcast"),
    (jl.jl_bound_chernoff, (-3, 0.1), {}, ValueError, "m"),
    (jl.jl_bound_chernoff, (np.array([True, False]), 0.1), {}, TypeError, "m"),
    (jl.jl_bound_chernoff, (8, [0.1, float("nan")]), {}, ValueError, "eps contains NaN"),
    (jl.jl_bound_chernoff, (8, None), {}, TypeError, "eps"),
    (jl.inner_product_tail, (0, 0.1), {}, ValueError, "m must be >= 1"),
    (jl.inner_product_tail, (8.0, 0.1), {}, TypeError, "m must be an integer"),
    (jl.inner_product_tail, (True, 0.1), {}, TypeError, "m must be an integer"),
    (jl.inner_product_tail, (10, -0.1), {}, ValueError, "eps must be"),
    (jl.inner_product_tail, (10, float("inf")), {}, ValueError, "eps must be"),
    (jl.inner_product_tail, (10, "0.1"), {}, TypeError, "eps must be"),
    (jl.inner_product_tail, (10, 0.1, 1.5), {}, ValueError, "c must lie"),
    (jl.inner_product_tail, (10, 0.1, float("nan")), {}, ValueError, "c must be finite"),
    (jl.inner_product_tail, (10, 0.1, "1"), {}, TypeError, "c must be a real"),
    (jl.worst_pair_tail, (10, 0.1), dict(grid=1), ValueError, "grid must be >= 2"),
    (jl.worst_pair_tail, (10, 0.1), dict(grid=2.0), TypeError, "grid"),
    (jl.worst_pair_tail, (-1, 0.1), {}, ValueError, "m"),
    (jl.worst_pair_tail, (10, 0), {}, ValueError, "eps"),
    (jl.large_deviation_rate, (0.0,), {}, ValueError, "eps"),
    (jl.large_deviation_rate, (float("nan"),), {}, ValueError, "eps"),
    (jl.large_deviation_rate, (0.3, 2.0), {}, ValueError, "c must lie"),
    (jl.large_deviation_rate, (0.3, True), {}, TypeError, "c must be a real"),
    (jl.sample_inner_product_error, (0.5, 8, 10), {"rng": "rng"}, TypeError, "rng"),
    (jl.sample_inner_product_error, (0.5, 8, 10), {"rng": np.random.RandomState(0)}, TypeError, "rng"),
    (jl.sample_inner_product_error, (1.5, 8, 10), {"rng": RNG}, ValueError, "c must lie"),
    (jl.sample_inner_product_error, (None, 8, 10), {"rng": RNG}, TypeError, "c"),
    (jl.sample_inner_product_error, (0.5, 0, 10), {"rng": RNG}, ValueError, "m"),
    (jl.sample_inner_product_error, (0.5, 8, 0), {"rng": RNG}, ValueError, "trials"),
    (jl.sample_inner_product_error, (0.5, 8, 10.0), {"rng": RNG}, TypeError, "trials"),
    (jl.sample_inner_product_error, (0.5, 8, 10), dict(rng=RNG, method="exact"), ValueError, "method"),
    (jl.sample_inner_product_error, (0.5, 8, 10), dict(rng=RNG, chunk=0), ValueError, "chunk"),
    (jl.sample_inner_product_error, (0.5, 8, 10), dict(rng=RNG, chunk=True), TypeError, "chunk"),
    (jl.m_theorem, (64, 0.5, 10, 1.5), {}, ValueError, "delta"),
    (jl.m_theorem, (64, 0.5, 10, 0.0), {}, ValueError, "delta"),
    (jl.m_theorem, (0, 0.5, 10, 0.1), {}, ValueError, "d"),
    (jl.m_theorem, (64, 0.0, 10, 0.1), {}, ValueError, "eps"),
    (jl.m_theorem, (64, 0.5, 0, 0.1), {}, ValueError, "n_events"),
    (jl.m_theorem, (64, 0.5, 10.5, 0.1), {}, TypeError, "n_events"),
    (jl.m_theorem, (64, 0.5, 10, 0.1), dict(const=0), ValueError, "const"),
    (jl.m_theorem, (64, 0.5, 10, 0.1), dict(const="2"), TypeError, "const"),
    (jl.m_theorem, (64, 1e-160, 10, 0.1), {}, ValueError, "eps = 1e-160 is too small"),
    (jl.m_theorem, (64, 1e-300, 10, 0.1), {}, ValueError, "eps = 1e-300 is too small"),
    (jl.m_union_exact, (0.0, 10, 0.1), {}, ValueError, "eps0"),
    (jl.m_union_exact, (0.1, 0, 0.1), {}, ValueError, "n_events"),
    (jl.m_union_exact, (0.1, 10, 1.0), {}, ValueError, "delta"),
    (jl.m_union_exact, (0.1, 10, None), {}, TypeError, "delta"),
    (jl.m_union_exact, (1e-9, 10, 0.1), {}, ValueError, "eps0 = 1e-09 and delta = 0.1 ask too much"),
    (jl.sup_row_tail, (0, 0.1, 4), {}, ValueError, "m"),
    (jl.sup_row_tail, (8, -0.1, 4), {}, ValueError, "eps0"),
    (jl.sup_row_tail, (8, 0.1, 0), {}, ValueError, "d"),
    (jl.sup_row_tail, (8, 0.1, 4.0), {}, TypeError, "d"),
    (jl.m_sup_row, (0, 0.1, 0.1), {}, ValueError, "d"),
    (jl.m_sup_row, (4, float("nan"), 0.1), {}, ValueError, "eps0"),
    (jl.m_sup_row, (4, 0.1, -0.1), {}, ValueError, "delta"),
    (jl.sample_row_max_error, (K4, Q4, 8, 10), {"rng": "0"}, TypeError, "rng"),
    (jl.sample_row_max_error, (np.ones(4), Q4, 8, 10), {"rng": RNG}, ValueError, "K must be 2-dimensional"),
    (jl.sample_row_max_error, (np.ones((0, 4)), Q4, 8, 10), {"rng": RNG}, ValueError, "K must have positive"),
    (jl.sample_row_max_error, (K4.astype(complex), Q4, 8, 10), {"rng": RNG}, TypeError, "K"),
    (jl.sample_row_max_error, (np.full((3, 4), np.nan), Q4, 8, 10), {"rng": RNG}, ValueError, "K contains NaN"),
    (jl.sample_row_max_error, (K4, np.ones(3), 8, 10), {"rng": RNG}, ValueError, "q must have the width"),
    (jl.sample_row_max_error, (K4, np.ones((1, 4)), 8, 10), {"rng": RNG}, ValueError, "q must be 1-dimensional"),
    (jl.sample_row_max_error, (K4, np.array([1, np.inf, 0, 0]), 8, 10), {"rng": RNG}, ValueError, "q contains"),
    (jl.sample_row_max_error, (K4, Q4, 0, 10), {"rng": RNG}, ValueError, "m"),
    (jl.sample_row_max_error, (K4, Q4, 8, False), {"rng": RNG}, TypeError, "trials"),
    (jl.sample_row_max_error, (np.full((3, 4), 1e300), Q4 * 1e10, 8, 10), {"rng": RNG}, ValueError, "overflow"),
    (jl.smallest_m, (3,), {}, TypeError, "ok must be callable"),
    (jl.smallest_m, (bool, 0), {}, ValueError, "lo"),
    (jl.smallest_m, (bool, 5, 4), {}, ValueError, "hi must be"),
    (jl.smallest_m, (lambda m: False, 1, 64), {}, ValueError, "no m up to 64"),
]


@pytest.mark.parametrize("fn, args, kwargs, exc, words", BAD,
                         ids=[f"{b[0].__name__}-{i}" for i, b in enumerate(BAD)])
def test_bad_input_names_the_argument(fn, args, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_input_cases():
    records = {n for n in jl.__all__ if isinstance(getattr(jl, n), type)}  # result classes: no input
    assert {b[0].__name__ for b in BAD} == set(jl.__all__) - records


@pytest.mark.parametrize("target", [1, 2, 7, 1000, 12345])
def test_smallest_m_against_a_linear_scan(target):
    ok = lambda m: m >= target  # noqa: E731
    assert jl.smallest_m(ok) == next(m for m in range(1, 10**6) if ok(m))
    assert jl.smallest_m(ok, lo=target + 3) == target + 3
