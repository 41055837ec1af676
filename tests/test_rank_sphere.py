"""The continuum sphere without materialising it (attnlab.rank.sphere), against independent computations."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special

import attnlab
from attnlab.rank import sphere as rs
from attnlab import softmax


def test_exported():
    for name in rs.__all__:
        assert getattr(attnlab, name) is getattr(rs, name)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_harmonic_coefficients_reproduce_the_density(d):
    beta = 30.0
    t = np.linspace(-1, 1, 41)
    lam = (d - 2) / 2
    b = rs._harmonic_coefficients(d, beta, 120)
    C = np.stack([special.eval_chebyt(n, t) if d == 2 else special.eval_gegenbauer(n, lam, t) for n in range(121)])
    w = lambda s: (1 - s * s) ** ((d - 3) / 2)  # noqa: E731
    Z = integrate.quad(lambda s: math.exp(beta * s) * w(s), -1, 1, limit=200)[0] / integrate.quad(w, -1, 1)[0]
    assert b @ C == pytest.approx(np.exp(beta * t) / Z, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("d,beta", [(2, 50.0), (3, 200.0), (4, 1000.0), (5, 80.0)])
def test_harmonic_certificate_is_minimal_and_converged(d, beta):
    eps = 0.3
    c = rs.sphere_harmonic_upper(d, beta, eps)
    assert c.error + c.quadrature_gap <= eps and c.mass == pytest.approx(1.0, abs=1e-10)
    assert c.bound == rs.harmonic_dimension(d, c.N)
    th, mu = rs._zonal_nodes(d, 64 * (c.N + 8), 16)  # a much finer quadrature
    b = rs._harmonic_coefficients(d, beta, c.N)
    errs, mass = rs._zonal_errors(d, beta, b, th, mu, n_stop=c.N)
    assert mass == pytest.approx(1.0, abs=1e-12)
    assert errs[-1] == pytest.approx(c.error, abs=max(c.quadrature_gap, 1e-12))
    assert c.N == 0 or errs[-2] > eps  # the degree below does not reach ε


def test_harmonic_dimension_counts_polynomials():
    # on S^1: 1, cos nθ, sin nθ; on S^2: (N+1)^2; in general the sum of dim H_n
    dim_h = lambda d, n: math.comb(n + d - 1, d - 1) - (math.comb(n + d - 3, d - 1) if n >= 2 else 0)  # noqa: E731
    for d in (2, 3, 4, 6):
        for N in range(8):
            assert rs.harmonic_dimension(d, N) == sum(dim_h(d, n) for n in range(N + 1))
    assert rs.harmonic_dimension(3, 5) == 36


def test_harmonic_certificate_materialised_on_the_circle():
    rng = np.random.default_rng(0)
    beta, eps, L = 80.0, 0.25, 2048
    c = rs.sphere_harmonic_upper(2, beta, eps)
    tk = 2 * np.pi * np.arange(L) / L
    D = rng.uniform(0, 2 * np.pi, 64)[:, None] - tk[None, :]
    B = np.cos(D[..., None] * np.arange(c.N + 1)) @ rs._harmonic_coefficients(2, beta, c.N) / L
    assert np.linalg.matrix_rank(B) == c.bound
    # L equally spaced keys are a quadrature of σ; |A − B| has kinks, so it converges as O(L^-2), not spectrally
    assert attnlab.row_l1_error(softmax(beta * np.cos(D)), B) == pytest.approx(c.error, abs=1e-4)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_cap_area_against_quadrature(d):
    for th in (0.1, 0.7, math.pi / 2, 2.0, math.pi):
        def w(s):
            return math.sin(s) ** (d - 2)

        num = integrate.quad(w, 0, th)[0] / integrate.quad(w, 0, math.pi)[0]
        assert rs.cap_area(d, th) == pytest.approx(num, abs=1e-12)


def test_gv_lower_is_the_covering_count():
    for d, beta in ((2, 1e3), (3, 1e4), (4, 1e3)):
        x = rs.sphere_gv_lower(d, beta, 0.25)
        cap = rs.cap_area(d, 2 * x.rho)
        assert x.mass > (1 + 0.25) / 2 and x.bound * cap >= 1 > (x.bound - 1) * cap
    assert rs.sphere_gv_lower(3, 0.01, 0.5).bound == 1  # hot: the cap holding 3/4 of the mass is wider than π/2
    assert rs.sphere_gv_lower(3, 1e3, 1.0).bound == attnlab.lattice_lower_count(2, 1e3, 1.5).bound == 0  # ε ≥ 1: B = 0
    assert rs.sphere_gv_lower(2, 1e4, 0.25).bound < rs.sphere_gv_lower(2, 1e5, 0.25).bound


def test_gv_lower_below_an_explicit_packing_on_s2():
    rng = np.random.default_rng(3)
    x = rs.sphere_gv_lower(3, 300.0, 0.25)
    P = attnlab.sphere_packing(3, 2 * x.rho, 40_000, rng=rng)  # a greedy packing from dense candidates
    assert x.bound <= P.shape[0]


@settings(max_examples=30, deadline=None)
@given(d=st.sampled_from([2, 3, 4]), beta=st.floats(1.0, 3e3), eps=st.floats(0.05, 1.9))
def test_property_sphere_certificates_are_ordered(d, beta, eps):
    up, lo = rs.sphere_harmonic_upper(d, beta, eps), rs.sphere_gv_lower(d, beta, eps)
    assert up.error + up.quadrature_gap <= eps and 0 <= lo.bound <= up.bound and (lo.bound == 0) == (eps >= 1)


def test_cap_radius_is_the_smallest_cap_with_enough_mass():
    for d, beta, eps in ((2, 1e3, 0.25), (3, 50.0, 0.5), (4, 2.0, 0.9)):
        rho = rs.cap_radius(d, beta, eps)
        assert rs.sphere_cap_mass(d, beta, rho) > (1 + eps) / 2 > rs.sphere_cap_mass(d, beta, rho * (1 - 1e-6))
    m = rs.sphere_cap_mass(3, 10.0, np.array([0.0, 0.5, 4.0]))
    assert m.shape == (3,) and m[0] == 0 and m[2] == 1.0


def test_sphere_lower_count_is_below_the_covering_bound_and_valid():
    x = rs.sphere_lower_count(2, 1e3, 0.25, 5000, rng=np.random.default_rng(7))
    g = attnlab.sphere_gv_lower(2, 1e3, 0.25)
    assert x.mass > 0.625 and x.rho == pytest.approx(g.rho) and g.bound <= x.bound <= math.pi / x.rho


RNG = np.random.default_rng(0)
BAD = [  # (function, args, kwargs, exception, message naming the argument)
    (rs.sphere_cap_mass, (1, 10.0, 0.5), {}, ValueError, "d must be >= 2"),
    (rs.sphere_cap_mass, (3, 0.0, 0.5), {}, ValueError, "beta"),
    (rs.sphere_cap_mass, (3, 10.0, -0.5), {}, ValueError, "rho must be >= 0"),
    (rs.sphere_cap_mass, (3, 10.0, float("nan")), {}, ValueError, "rho contains"),
    (rs.sphere_cap_mass, (3, 10.0, "0.5"), {}, TypeError, "rho must be"),
    (rs.cap_area, (3, 4.0), {}, ValueError, "angle"),
    (rs.cap_area, (3, -0.1), {}, ValueError, "angle"),
    (rs.cap_area, (3, "1"), {}, TypeError, "angle"),
    (rs.cap_area, (2.0, 1.0), {}, TypeError, "d must be an integer"),
    (rs.cap_radius, (3, 10.0, 1.0), {}, ValueError, "eps must be < 1"),
    (rs.cap_radius, (3, 10.0, 0.0), {}, ValueError, "eps"),
    (rs.cap_radius, (3, -1.0, 0.5), {}, ValueError, "beta"),
    (rs.cap_radius, (1, 10.0, 0.5), {}, ValueError, "d must be >= 2"),
    (rs.harmonic_dimension, (3, -1), {}, ValueError, "N must be >= 0"),
    (rs.harmonic_dimension, (3, 1.0), {}, TypeError, "N must be an integer"),
    (rs.harmonic_dimension, (1, 2), {}, ValueError, "d must be >= 2"),
    (rs.sphere_harmonic_upper, (1, 10.0, 0.5), {}, ValueError, "d must be >= 2"),
    (rs.sphere_harmonic_upper, (2, float("nan"), 0.5), {}, ValueError, "beta"),
    (rs.sphere_harmonic_upper, (2, 10.0, 0.5), dict(nodes_per_degree=0), ValueError, "nodes_per_degree"),
    (rs.sphere_harmonic_upper, (2, 10.0, 0.5), dict(n_max=2.5), TypeError, "n_max"),
    (rs.sphere_harmonic_upper, (2, 10.0, 2.0), {}, ValueError, "eps"),
    (rs.sphere_gv_lower, (3, 10.0, 2.0), {}, ValueError, "eps"),
    (rs.sphere_gv_lower, (3, True, 0.5), {}, TypeError, "beta"),
    (rs.sphere_gv_lower, (0, 10.0, 0.5), {}, ValueError, "d must be >= 1"),
    (rs.sphere_packing, (3, 0.0, 10), {"rng": RNG}, ValueError, "angle"),
    (rs.sphere_packing, (3, 4.0, 10), {"rng": RNG}, ValueError, "angle"),
    (rs.sphere_packing, (3, 0.5, 0), {"rng": RNG}, ValueError, "n_candidates"),
    (rs.sphere_packing, (3, 0.5, 10), {"rng": 1.5}, TypeError, "rng"),
    (rs.sphere_lower_count, (1, 10.0, 0.5, 10), {"rng": RNG}, ValueError, "d must be >= 2"),
    (rs.sphere_lower_count, (3, -1.0, 0.5, 10), {"rng": RNG}, ValueError, "beta"),
    (rs.sphere_lower_count, (3, 10.0, 1.5, 10), {"rng": RNG}, ValueError, "eps must be < 1"),
    (rs.sphere_lower_count, (3, 10.0, 0.5, 10.0), {"rng": RNG}, TypeError, "n_candidates"),
    (rs.sphere_lower_count, (3, 10.0, 0.5, 10), {"rng": "0"}, TypeError, "rng"),
    (rs.harmonic_coefficients, (1, 1.0, 3), {}, ValueError, "d must be >= 2"),
    (rs.harmonic_coefficients, (3, 0.0, 3), {}, ValueError, "beta"),
    (rs.harmonic_coefficients, (3, 1.0, -1), {}, ValueError, "n must be"),
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    assert {n for n in rs.__all__ if n[0].islower()} <= {fn.__name__ for fn, *_ in BAD}


@pytest.mark.parametrize("d", [2, 3, 5])
def test_harmonic_coefficients_expand_the_row(d):
    """Σ b_n C_n^λ(t) against e^{βt}/Z, Z the mean of e^{βt} over the sphere (quadrature)."""
    beta, t = 3.0, np.linspace(-1, 1, 7)
    b = rs.harmonic_coefficients(d, beta, 60)
    lam = (d - 2) / 2
    C = [special.eval_chebyt(n, t) if d == 2 else special.eval_gegenbauer(n, lam, t) for n in range(61)]
    series = sum(bn * c for bn, c in zip(b, C))
    # Z: the mean of e^{βt} over the sphere, with the density of t ∝ (1 - t²)^{(d-3)/2}
    w = lambda x: (1 - x * x) ** ((d - 3) / 2)  # noqa: E731
    Z = integrate.quad(lambda x: np.exp(beta * x) * w(x), -1, 1)[0] / integrate.quad(w, -1, 1)[0]
    assert np.allclose(series, np.exp(beta * t) / Z, rtol=1e-10)


# ------------------------------------------------------------------- result objects (book/conventions.md, Results)
def test_sphere_certificates_are_results_whose_old_keys_warn():
    c = rs.sphere_harmonic_upper(2, 100.0, 0.25)
    assert isinstance(c, rs.HarmonicUpper) and c.bound == rs.harmonic_dimension(2, c.N)
    with pytest.warns(DeprecationWarning, match=r"HarmonicUpper is no longer a dict: res\['rank'\].*use \.bound"):
        assert c["rank"] == c.bound
    with pytest.warns(DeprecationWarning, match=r"use \.N"):
        assert c["N"] == c.N
    g = rs.sphere_gv_lower(2, 1e4, 0.25)
    x = rs.sphere_lower_count(2, 1e4, 0.25, 3000, rng=np.random.default_rng(1))
    assert isinstance(g, rs.SphereLower) and isinstance(x, rs.SphereLower)
    assert g.candidates is None and x.candidates == 3000 and g.rho == x.rho and g.bound <= x.bound
    with pytest.warns(DeprecationWarning, match=r"SphereLower is no longer a dict: res\['M'\].*use \.bound"):
        assert x["M"] == x.bound
    with pytest.warns(DeprecationWarning):
        assert x.get("M") == x.bound and "M" in x
    with pytest.warns(DeprecationWarning):
        assert list(x.keys()) == ["d", "beta", "eps", "rho", "M", "mass", "candidates"]
