"""Implicit certificates (continuum sphere, lattice ball) against independent computations."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special

from attnlab import rank
from attnlab import rank_implicit as ri
from attnlab.softmax import softmax


def _brute_ball_count(rho, d, box):
    g = np.stack(np.meshgrid(*[np.arange(-box, box + 1)] * d, indexing="ij"), -1).reshape(-1, d)
    return g, int(((g**2).sum(axis=1) <= rho * rho + 1e-9).sum())


@pytest.mark.parametrize("d,rho", [(1, 4.5), (2, 7.3), (3, 4.0), (4, 3.2), (6, 2.3)])
def test_ball_lattice_count_against_brute_force(d, rho):
    assert ri._ball_lattice_count(rho, d) == _brute_ball_count(rho, d, 8)[1]
    assert ri.lattice_row_count(d, rho) == ri._ball_lattice_count(rho, d)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
@pytest.mark.parametrize("gamma", [1.0, 2.5, 3.7, 6.2])
def test_query_radius_against_brute_force(d, gamma):
    g, _ = _brute_ball_count(gamma, d, 7)
    n2 = (g**2).sum(axis=1)
    assert ri.lattice_query_radius(d, gamma) == pytest.approx(math.sqrt(n2[n2 <= gamma**2 + 1e-9].max()) / gamma)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_harmonic_coefficients_reproduce_the_density(d):
    beta = 30.0
    t = np.linspace(-1, 1, 41)
    lam = (d - 2) / 2
    b = ri._harmonic_coefficients(d, beta, 120)
    C = np.stack([special.eval_chebyt(n, t) if d == 2 else special.eval_gegenbauer(n, lam, t) for n in range(121)])
    w = lambda s: (1 - s * s) ** ((d - 3) / 2)  # noqa: E731
    Z = integrate.quad(lambda s: math.exp(beta * s) * w(s), -1, 1, limit=200)[0] / integrate.quad(w, -1, 1)[0]
    assert b @ C == pytest.approx(np.exp(beta * t) / Z, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("d,beta", [(2, 50.0), (3, 200.0), (4, 1000.0), (5, 80.0)])
def test_harmonic_certificate_is_minimal_and_converged(d, beta):
    eps = 0.3
    c = ri.sphere_harmonic_upper(d, beta, eps)
    assert c["error"] + c["quadrature_gap"] <= eps and c["mass"] == pytest.approx(1.0, abs=1e-10)
    assert c["rank"] == ri.harmonic_dimension(d, c["N"])
    th, mu = ri._zonal_nodes(d, 64 * (c["N"] + 8), 16)  # a much finer quadrature
    b = ri._harmonic_coefficients(d, beta, c["N"])
    errs, mass = ri._zonal_errors(d, beta, b, th, mu, n_stop=c["N"])
    assert mass == pytest.approx(1.0, abs=1e-12)
    assert errs[-1] == pytest.approx(c["error"], abs=max(c["quadrature_gap"], 1e-12))
    assert c["N"] == 0 or errs[-2] > eps  # the degree below does not reach ε


def test_harmonic_dimension_counts_polynomials():
    # on S^1: 1, cos nθ, sin nθ; on S^2: (N+1)^2; in general the sum of dim H_n
    dim_h = lambda d, n: math.comb(n + d - 1, d - 1) - (math.comb(n + d - 3, d - 1) if n >= 2 else 0)  # noqa: E731
    for d in (2, 3, 4, 6):
        for N in range(8):
            assert ri.harmonic_dimension(d, N) == sum(dim_h(d, n) for n in range(N + 1))
    assert ri.harmonic_dimension(3, 5) == 36


def test_harmonic_certificate_materialised_on_the_circle():
    rng = np.random.default_rng(0)
    beta, eps, L = 80.0, 0.25, 2048
    c = ri.sphere_harmonic_upper(2, beta, eps)
    tk = 2 * np.pi * np.arange(L) / L
    D = rng.uniform(0, 2 * np.pi, 64)[:, None] - tk[None, :]
    B = np.cos(D[..., None] * np.arange(c["N"] + 1)) @ ri._harmonic_coefficients(2, beta, c["N"]) / L
    assert np.linalg.matrix_rank(B) == c["rank"]
    # L equally spaced keys are a quadrature of σ; |A − B| has kinks, so it converges as O(L^-2), not spectrally
    assert rank.row_l1_error(softmax(beta * np.cos(D)), B) == pytest.approx(c["error"], abs=1e-4)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_cap_area_against_quadrature(d):
    for th in (0.1, 0.7, math.pi / 2, 2.0, math.pi):
        num = integrate.quad(lambda s: math.sin(s) ** (d - 2), 0, th)[0] / integrate.quad(lambda s: math.sin(s) ** (d - 2),
                                                                                        0, math.pi)[0]
        assert ri.cap_area(d, th) == pytest.approx(num, abs=1e-12)


def test_gv_lower_is_the_covering_count():
    for d, beta in ((2, 1e3), (3, 1e4), (4, 1e3)):
        x = ri.sphere_gv_lower(d, beta, 0.25)
        cap = ri.cap_area(d, 2 * x["rho"])
        assert x["mass"] > (1 + 0.25) / 2 and x["M"] * cap >= 1 > (x["M"] - 1) * cap
    assert ri.sphere_gv_lower(3, 0.01, 0.5)["M"] == 1  # hot: the cap holding 3/4 of the mass is wider than π/2
    assert ri.sphere_gv_lower(3, 1e3, 1.0)["M"] == ri.lattice_lower_count(2, 1e3, 1.5)["M"] == 0  # ε ≥ 1: B = 0
    assert ri.sphere_gv_lower(2, 1e4, 0.25)["M"] < ri.sphere_gv_lower(2, 1e5, 0.25)["M"]


def test_gv_lower_below_an_explicit_packing_on_s2():
    rng = np.random.default_rng(3)
    x = ri.sphere_gv_lower(3, 300.0, 0.25)
    P = rank.sphere_packing(3, 2 * x["rho"], 40_000, rng)  # a greedy packing from dense candidates, nearly maximal
    assert x["M"] <= P.shape[0]


@pytest.mark.parametrize("beta,eps", [(120.0, 0.25), (300.0, 0.5)])
def test_kronecker_certificate_materialised(beta, eps):
    c = ri.lattice_kron_upper(2, beta, eps, svd_max=10**6)
    A, _, _, info = rank.lattice_instance(2, c["gamma"], eps, margin=8)
    assert A.shape[0] == c["n"] and info["beta"] == pytest.approx(c["beta"], rel=1e-12) and c["beta"] <= beta
    A1, U, s, Vt = ri._lattice_svd(c["gamma"], 8)
    B1 = (U[:, :c["k1"]] * s[:c["k1"]]) @ Vt[:c["k1"]]
    g = math.floor(c["gamma"])
    rows = [(x, y) for x in range(-g, g + 1) for y in range(-g, g + 1) if x * x + y * y <= c["gamma"] ** 2 + 1e-9]
    Akron = np.stack([np.kron(A1[x + g], A1[y + g]) for x, y in rows])
    assert np.abs(Akron - A).max() < 1e-15  # the instance is the Kronecker power, restricted to the ball
    B = np.stack([np.kron(B1[x + g], B1[y + g]) for x, y in rows])
    E, S = np.abs(A1 - B1).sum(axis=1).max(), np.abs(B1).sum(axis=1).max()
    assert rank.row_l1_error(A, B) <= E * (1 + S) + 1e-12 and E * (1 + S) <= eps
    assert np.linalg.matrix_rank(B) <= c["k1"] ** 2 and c["rank"] == min(c["k1"] ** 2, c["n"])


def test_kronecker_skips_the_svd_beyond_svd_max():
    c = ri.lattice_kron_upper(3, 1e4, 0.25, svd_max=11)
    assert c["method"] == "rows" and c["k1"] is None and c["rank"] == c["n"] == ri.lattice_row_count(3, c["gamma"])


@settings(max_examples=40, deadline=None)
@given(d=st.sampled_from([2, 3, 4, 6]), beta=st.floats(10.0, 1e5), eps=st.floats(0.05, 1.9))
def test_property_lattice_certificates_are_ordered(d, beta, eps):
    up, lo = ri.lattice_kron_upper(d, beta, eps, svd_max=400), ri.lattice_lower_count(d, beta, eps)
    assert lo["margin_ok"] and 0 <= lo["M"] <= up["rank"] <= up["n"] and up["error_bound"] <= eps
    assert (lo["M"] == 0) == (eps >= 1) and up["beta"] == lo["beta"] <= beta


@settings(max_examples=30, deadline=None)
@given(d=st.sampled_from([2, 3, 4]), beta=st.floats(1.0, 3e3), eps=st.floats(0.05, 1.9))
def test_property_sphere_certificates_are_ordered(d, beta, eps):
    up, lo = ri.sphere_harmonic_upper(d, beta, eps), ri.sphere_gv_lower(d, beta, eps)
    assert up["error"] + up["quadrature_gap"] <= eps and 0 <= lo["M"] <= up["rank"] and (lo["M"] == 0) == (eps >= 1)


def test_bad_inputs():
    with pytest.raises(ValueError, match="d must be >= 2"):
        ri.sphere_harmonic_upper(1, 10.0, 0.5)
    with pytest.raises(ValueError, match="eps"):
        ri.sphere_gv_lower(3, 10.0, 2.0)
    with pytest.raises(ValueError, match="beta"):
        ri.lattice_kron_upper(2, -1.0, 0.5)
    with pytest.raises(ValueError, match="beta"):
        ri.sphere_harmonic_upper(2, float("nan"), 0.5)
    with pytest.raises(ValueError, match="angle"):
        ri.cap_area(3, 4.0)
    with pytest.raises(ValueError, match="N must be"):
        ri.harmonic_dimension(3, -1)
    with pytest.raises(ValueError, match="gamma"):
        ri.lattice_row_count(2, 0.0)


def test_implicit_fits_recover_known_slopes():
    res = dict(sphere=[dict(family="sphere d=3", geometry="sphere", d=3, r=3, beta=b, beta_nominal=b, eps=0.5, Gamma=b, upper=2 * b,
                            lower=b / 4, upper_method="harmonics", upper_error=0.4, lower_mass=0.8, n=math.inf) for b in (1e2, 1e3, 1e4, 1e5)],
               ball=[dict(family="ball d=2", geometry="ball", d=2, r=2, beta=0.97 * b, beta_nominal=b, eps=0.5, Gamma=b, upper=b ** 1.3,
                          lower=b ** 1.2, upper_method="rows", upper_error=0.0, lower_mass=0.8, n=b ** 1.3) for b in (1e2, 1e3, 1e4, 1e5)])
    f = {x["family"]: x for x in rank.implicit_fits(res, 0.1, 2)}
    s3, b2 = f["sphere d=3"], f["ball d=2"]
    assert s3["points"] == b2["points"] == 3 and s3["decades"] == b2["decades"] == 2 and s3["upper_slope"] == pytest.approx(1) and s3["lower_slope"] == pytest.approx(1)
    assert s3["bracket"] and s3["consistent"] and not s3["lower_too_fast"] and s3["valid"]
    assert b2["lower_too_fast"] and not b2["bracket"] and b2["faster_lower"] and not b2["consistent"]
