import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from attnlab import jl
from attnlab.audit.stats import clopper_pearson


def test_tail_at_c1_is_chi_square():
    for m, eps in ((1, 0.3), (16, 0.1), (256, 0.49)):
        ref = stats.chi2.sf(m * (1 + eps), m) + stats.chi2.cdf(m * (1 - eps), m)
        assert jl.inner_product_tail(m, eps, 1.0) == pytest.approx(ref, rel=1e-12)
        assert jl.inner_product_tail(m, eps, -1.0) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("c", [0.0, 0.3, 0.8])
def test_tail_against_monte_carlo(c):
    m, eps, n = 32, 0.3, 400_000
    err = jl.sample_inner_product_error(c, m, n, np.random.default_rng(int(10 * c)), method="chi2")
    k = int((np.abs(err) >= eps).sum())
    lo, hi = clopper_pearson(k, n, 0.999)
    assert lo <= jl.inner_product_tail(m, eps, c) <= hi


def test_matrix_and_chi2_samplers_agree_in_law():
    rng = np.random.default_rng(3)
    a = jl.sample_inner_product_error(0.4, 24, 20_000, rng, method="matrix")
    b = jl.sample_inner_product_error(0.4, 24, 20_000, rng, method="chi2")
    assert stats.ks_2samp(a, b).pvalue > 1e-3
    # and the matrix sampler against an explicit d = 10 projection of explicit unit vectors
    u = np.zeros(10); u[3] = 1.0
    v = np.zeros(10); v[3], v[7] = 0.4, math.sqrt(1 - 0.16)
    P = rng.standard_normal((3000, 24, 10)) / math.sqrt(24)
    explicit = np.einsum("tk,tk->t", P @ u, P @ v) - 0.4
    assert stats.ks_2samp(a[:3000], explicit).pvalue > 1e-3


def test_worst_pair_is_c_equal_one():
    for m, eps in ((8, 0.2), (128, 0.3), (1024, 0.49)):
        c, p = jl.worst_pair_tail(m, eps)
        assert c == 1.0 and p == pytest.approx(jl.inner_product_tail(m, eps, 1.0))


def test_rates():
    assert jl.large_deviation_rate(0.3, 1.0) == pytest.approx((0.3 - math.log(1.3)) / 2)
    # continuity in c, and a slower decay near c = 1 than at c = 0
    assert jl.large_deviation_rate(0.3, 0.999999) == pytest.approx(jl.large_deviation_rate(0.3, 1.0), rel=1e-4)
    assert jl.large_deviation_rate(0.3, 0.0) > jl.large_deviation_rate(0.3, 0.5) > jl.large_deviation_rate(0.3, 1.0)
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


def test_dimension_formulas():
    assert jl.m_theorem(64, 0.5, 1000, 0.1) == math.ceil(2048 * math.log(20_000))
    assert jl.m_theorem(64, 0.5, 1000, 0.1, const=4) == math.ceil(2048 * math.log(40_000))
    m = jl.m_union_exact(0.0625, 1000, 0.1)
    assert 1000 * jl.inner_product_tail(m, 0.0625) <= 0.1 < 1000 * jl.inner_product_tail(m - 1, 0.0625)
    with pytest.raises(ValueError, match="delta"):
        jl.m_theorem(64, 0.5, 10, 1.5)
    with pytest.raises(ValueError, match="eps must be"):
        jl.inner_product_tail(10, -0.1)
    with pytest.raises(ValueError, match="c must lie"):
        jl.inner_product_tail(10, 0.1, 1.5)


def test_sup_row_tail_and_row_sampler_against_genuine_projections():
    rng = np.random.default_rng(5)
    d, m, eps0, L = 6, 40, 0.35, 50
    q = rng.standard_normal(d); q /= np.linalg.norm(q)
    K = jl.random_unit_rows(L, d, rng)
    P = rng.standard_normal((20_000, m, d)) / math.sqrt(m)
    W = np.einsum("tkd,tk->td", P, P @ q) - q  # (P^T P - I) q per trial
    norms = np.linalg.norm(W, axis=1)
    k = int((norms >= eps0).sum())
    lo, hi = clopper_pearson(k, norms.size, 0.999)
    assert lo <= jl.sup_row_tail(m, eps0, d) <= hi
    genuine = np.abs(W @ K.T).max(axis=1)
    reduced = jl.sample_row_max_error(K, q, m, 20_000, rng)
    assert stats.ks_2samp(genuine, reduced).pvalue > 1e-3


def test_scaling_bias():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((32, 16)), rng.standard_normal((32, 16))
    rows = jl.scaling_sweep(Q, K, [16, 256], 8, rng)
    assert rows[1]["slope_printed"] == pytest.approx(math.sqrt(16 / 256), rel=0.1)
    assert rows[1]["slope_unbiased"] == pytest.approx(1.0, rel=0.1)
    assert rows[1]["err_unbiased"] < rows[0]["err_unbiased"]


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
