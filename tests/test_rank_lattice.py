"""The lattice ball of AR-lower without materialising it (attnlab.rank.lattice), against brute force and the
materialised instance."""
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlab
from attnlab.rank import lattice as rl


def test_exported():
    for name in rl.__all__:
        assert getattr(attnlab, name) is getattr(rl, name)


def _brute_ball_count(rho, d, box):
    g = np.stack(np.meshgrid(*[np.arange(-box, box + 1)] * d, indexing="ij"), -1).reshape(-1, d)
    return g, int(((g**2).sum(axis=1) <= rho * rho + 1e-9).sum())


@pytest.mark.parametrize("d,rho", [(1, 4.5), (2, 7.3), (3, 4.0), (4, 3.2), (6, 2.3)])
def test_ball_lattice_count_against_brute_force(d, rho):
    assert rl._ball_lattice_count(rho, d) == _brute_ball_count(rho, d, 8)[1]
    assert rl.lattice_row_count(d, rho) == rl._ball_lattice_count(rho, d)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
@pytest.mark.parametrize("gamma", [1.0, 2.5, 3.7, 6.2])
def test_query_radius_against_brute_force(d, gamma):
    g, _ = _brute_ball_count(gamma, d, 7)
    n2 = (g**2).sum(axis=1)
    assert rl.lattice_query_radius(d, gamma) == pytest.approx(math.sqrt(n2[n2 <= gamma**2 + 1e-9].max()) / gamma)


@pytest.mark.parametrize("beta,eps", [(120.0, 0.25), (300.0, 0.5)])
def test_kronecker_certificate_materialised(beta, eps):
    c = rl.lattice_kron_upper(2, beta, eps, svd_max=10**6)
    A, _, _, info = attnlab.lattice_instance(2, c.gamma, eps, margin=8)
    assert A.shape[0] == c.n and info.beta == pytest.approx(c.beta, rel=1e-12) and c.beta <= beta
    A1, U, s, Vt = rl._lattice_svd(c.gamma, 8)
    B1 = (U[:, :c.k1] * s[:c.k1]) @ Vt[:c.k1]
    g = math.floor(c.gamma)
    rows = [(x, y) for x in range(-g, g + 1) for y in range(-g, g + 1) if x * x + y * y <= c.gamma ** 2 + 1e-9]
    Akron = np.stack([np.kron(A1[x + g], A1[y + g]) for x, y in rows])
    assert np.abs(Akron - A).max() < 1e-15  # the instance is the Kronecker power, restricted to the ball
    B = np.stack([np.kron(B1[x + g], B1[y + g]) for x, y in rows])
    E, S = np.abs(A1 - B1).sum(axis=1).max(), np.abs(B1).sum(axis=1).max()
    assert attnlab.row_l1_error(A, B) <= E * (1 + S) + 1e-12 and E * (1 + S) <= eps
    assert np.linalg.matrix_rank(B) <= c.k1 ** 2 and c.bound == min(c.k1 ** 2, c.n)


def test_kronecker_skips_the_svd_beyond_svd_max():
    c = rl.lattice_kron_upper(3, 1e4, 0.25, svd_max=11)
    assert c.method == "rows" and c.k1 is None and c.bound == c.n == rl.lattice_row_count(3, c.gamma)


@settings(max_examples=40, deadline=None)
@given(d=st.sampled_from([2, 3, 4, 6]), beta=st.floats(10.0, 1e5), eps=st.floats(0.05, 1.9))
def test_property_lattice_certificates_are_ordered(d, beta, eps):
    up, lo = rl.lattice_kron_upper(d, beta, eps, svd_max=400), rl.lattice_lower_count(d, beta, eps)
    assert lo.margin_ok and 0 <= lo.bound <= up.bound <= up.n and up.error_bound <= eps
    assert (lo.bound == 0) == (eps >= 1) and up.beta == lo.beta <= beta


def test_lattice_beta_and_gamma_are_inverse():
    for d, beta in ((2, 1e3), (3, 12345.0), (6, 1e6)):
        g = rl.lattice_gamma(d, beta)
        assert rl.lattice_beta(d, g) <= beta < rl.lattice_beta(d, g * (1 + 1e-9) + 1e-12) or math.ceil(g) != math.ceil(
            g * (1 + 1e-9) + 1e-12)
    assert rl.cell_half_width(2, 1.0) is None and rl.cell_half_width(1, 0.1) >= 1


A1 = np.eye(3)
def test_lattice_certificate_materialised():
    A, cells = rl.lattice_materialised(2, 10.0, 0.25)
    own = np.array([A[i, c].sum() for i, c in enumerate(cells)])
    assert (own > (1 + 0.25) / 2).all()
    assert attnlab.rank_lower_certificate(A, 0.25).bound >= len(cells)
    x = attnlab.lattice_lower_count(2, 1e4, 0.25)
    assert x.margin_ok and x.bound > 0


def test_lattice_instance_messages_certify():
    A, msg, cells, info = rl.lattice_instance(2, 6.0, 0.5)
    cert = attnlab.LowerCertificate(len(msg), 0.5, list(msg), cells, [])
    assert info.min_own_mass > 0.75 and attnlab.lower_certificate_margin(A, cert) > 0
    assert attnlab.rank_upper_certificate(A, 0.5, "svd").bound >= len(msg)


BAD = [  # (function, args, kwargs, exception, message naming the argument)
    (rl.lattice_beta, (0, 2.0), {}, ValueError, "d must be >= 1"),
    (rl.lattice_beta, (2, -2.0), {}, ValueError, "gamma"),
    (rl.lattice_beta, (2, 2.0, -1), {}, ValueError, "margin"),
    (rl.lattice_beta, (2, 2.0, 8.0), {}, TypeError, "margin"),
    (rl.lattice_gamma, (2, 0.0), {}, ValueError, "beta"),
    (rl.lattice_gamma, (2.5, 10.0), {}, TypeError, "d must be an integer"),
    (rl.lattice_gamma, (2, float("nan")), {}, ValueError, "beta"),
    (rl.cell_half_width, (2, 2.0), {}, ValueError, "eps"),
    (rl.cell_half_width, (0, 0.5), {}, ValueError, "d must be >= 1"),
    (rl.lattice_row_count, (2, 0.0), {}, ValueError, "gamma"),
    (rl.lattice_row_count, (True, 1.0), {}, TypeError, "d must be an integer"),
    (rl.lattice_query_radius, (2, float("inf")), {}, ValueError, "gamma"),
    (rl.lattice_query_radius, (-1, 2.0), {}, ValueError, "d must be >= 1"),
    (rl.lattice_lower_count, (2, 1e3, 0.0), {}, ValueError, "eps"),
    (rl.lattice_lower_count, (2, -1e3, 0.5), {}, ValueError, "beta"),
    (rl.lattice_lower_count, (2, 1e3, 0.5), dict(margin=-2), ValueError, "margin"),
    (rl.lattice_1d, (0.0,), {}, ValueError, "gamma"),
    (rl.lattice_1d, (2.0, -1), {}, ValueError, "margin"),
    (rl.kron_factor, (2.0, 0), {}, ValueError, "r must be >= 1"),
    (rl.kron_factor, (2.0, 6), {}, ValueError, r"r must lie in \[1, 5\]"),
    (rl.kron_factor, (2.0, 2.0), {}, TypeError, "r must be an integer"),
    (rl.kron_error_bound, (A1, np.eye(2), 2), {}, ValueError, "B1 must have the shape"),
    (rl.kron_error_bound, (A1, A1, 0), {}, ValueError, "d must be >= 1"),
    (rl.kron_error_bound, (A1, np.full((3, 3), np.nan), 2), {}, ValueError, "B1 contains"),
    (rl.kron_error_bound, ("A1", A1, 2), {}, TypeError, "A1 must be"),
    (rl.lattice_kron_upper, (2, -1.0, 0.5), {}, ValueError, "beta"),
    (rl.lattice_kron_upper, (2, 1e3, 2.0), {}, ValueError, "eps"),
    (rl.lattice_kron_upper, (2, 1e3, 0.5), dict(svd_max=0), ValueError, "svd_max"),
    (rl.lattice_kron_upper, (2, 1e3, 0.5), dict(margin=None), TypeError, "margin"),
    (rl.lattice_instance, (2, 3.0, 1.2), {}, ValueError, "eps must be < 1"),
    (rl.lattice_instance, (2, 3.0, 2.5), {}, ValueError, "eps"),
    (rl.lattice_instance, (0, 3.0, 0.5), {}, ValueError, "d must be >= 1"),
    (rl.lattice_instance, (2, 0.0, 0.5), {}, ValueError, "gamma"),
    (rl.lattice_instance, (2, 3.0, 0.5), dict(margin=-1), ValueError, "margin"),
    (rl.lattice_materialised, (2, 3.0, 0.5), dict(margin=1.5), TypeError, "margin"),
    (rl.lattice_materialised, (2.0, 3.0, 0.5), {}, TypeError, "d must be an integer"),
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    assert {n for n in rl.__all__ if n[0].islower()} <= {fn.__name__ for fn, *_ in BAD}


# ------------------------------------------------------------------- result objects (book/conventions.md, Results)
def test_lattice_lower_count_is_a_result_whose_old_keys_warn():
    x = rl.lattice_lower_count(2, 1e3, 0.5)
    assert isinstance(x, rl.LatticeLower) and x._fields[8] == "bound"
    assert x.bound == rl.lattice_row_count(2, x.gamma / x.ell) and x.R == math.ceil(x.gamma) + 8
    with pytest.warns(DeprecationWarning, match=r"LatticeLower is no longer a dict: res\['M'\].*use \.bound"):
        assert x["M"] == x.bound
    with pytest.warns(DeprecationWarning, match=r"use \.gamma"):
        assert x["gamma"] == x.gamma
    with pytest.warns(DeprecationWarning):
        assert x.get("M") == x.bound and x.get("missing", 7) == 7
    with pytest.warns(DeprecationWarning):
        assert "M" in x and "ell" in x
    with pytest.warns(DeprecationWarning):
        assert list(x.keys()) == ["d", "beta", "beta_nominal", "eps", "gamma", "R", "log10_tokens", "ell", "M", "mass",
                                  "margin_ok"]
    with pytest.warns(DeprecationWarning):
        assert dict(x.items())["M"] == x.bound
    assert pickle.loads(pickle.dumps(x)) == x  # the audit's cache pickles results
    empty = rl.lattice_lower_count(2, 1e3, 1.5)
    assert (empty.bound, empty.ell, empty.margin_ok) == (0, None, True)


def test_lattice_kron_upper_is_a_result_whose_old_keys_warn():
    c = rl.lattice_kron_upper(2, 1e3, 0.5)
    assert isinstance(c, rl.KronUpper) and c.bound == min(c.kron_rank, c.n) and c.error_bound <= c.eps
    with pytest.warns(DeprecationWarning, match=r"KronUpper is no longer a dict: res\['rank'\].*use \.bound"):
        assert c["rank"] == c.bound
    with pytest.warns(DeprecationWarning):
        assert c["method"] == c.method == "kronecker-svd"
    with pytest.warns(DeprecationWarning):
        assert "rank" in list(c.keys()) and "bound" not in list(c.keys())


def test_instances_unpack_as_before_and_name_their_parts():
    inst = rl.lattice_instance(2, 3.0, 0.5)
    A, messages, cells, info = inst
    assert isinstance(inst, rl.LatticeInstance) and inst.A is A and inst.messages is messages and inst.cells is cells
    assert isinstance(info, rl.LatticeInfo) and info.ell == 3 and info.d == 2 and info.gamma == 3.0
    with pytest.warns(DeprecationWarning, match=r"LatticeInfo is no longer a dict.*use \.min_own_mass"):
        assert info["min_own_mass"] == info.min_own_mass
    m = rl.lattice_materialised(2, 3.0, 0.5)
    A_m, cells_m = m
    assert isinstance(m, rl.LatticeMessages) and np.array_equal(A_m, A[messages]) and m.cells is cells_m
    f = rl.kron_factor(2.0, 2, 2)
    A1, B1 = f
    assert isinstance(f, rl.KronFactor) and f.A1 is A1 and f.B1 is B1
    assert np.array_equal(A1, rl.lattice_1d(2.0, 2)) and np.linalg.matrix_rank(B1) == 2
