"""Random heads, worst-case families, the lattice instance and cap packings (attnlab.rank_instances)."""
import math

import numpy as np
import pytest

import attnlab
from attnlab import rank_instances as ins


def test_exported():
    for name in ins.__all__:
        assert getattr(attnlab, name) is getattr(ins, name)


def test_points_are_on_the_sphere_and_in_the_ball_and_seeded():
    X = ins.sphere_points(500, 3, rng=np.random.default_rng(0))
    assert np.allclose(np.linalg.norm(X, axis=1), 1)
    Y = ins.ball_points(500, 3, rng=np.random.default_rng(0))
    assert (np.linalg.norm(Y, axis=1) <= 1).all()
    assert np.array_equal(Y, ins.ball_points(500, 3, rng=np.random.default_rng(0)))
    A = ins.family_attention("ball-2", 30, 20, 50.0, rng=np.random.default_rng(1))
    assert A.shape == (30, 20) and np.allclose(A.sum(axis=1), 1)


def test_noisy_head_keys_near_an_r_plane():
    Q, K = ins.noisy_head(50, 40, 6, 2, 1e-3, rng=np.random.default_rng(2))
    s = np.linalg.svd(K, compute_uv=False)
    assert Q.shape == (50, 6) and s[2] < 0.01 * s[1]


def test_planted_head_at_full_visible_dimension():
    Q, K = ins.planted_head(20, 15, 3, 3, rng=np.random.default_rng(3))
    assert attnlab.visible_interaction_dim(Q, K).r == 3


def test_lattice_certificate_materialised():
    A, cells = ins.lattice_materialised(2, 10.0, 0.25)
    own = np.array([A[i, c].sum() for i, c in enumerate(cells)])
    assert (own > (1 + 0.25) / 2).all()
    assert attnlab.rank_lower_certificate(A, 0.25).M >= len(cells)
    x = attnlab.lattice_lower_count(2, 1e4, 0.25)
    assert x["margin_ok"] and x["M"] > 0


def test_lattice_instance_messages_certify():
    A, msg, cells, info = ins.lattice_instance(2, 6.0, 0.5)
    cert = attnlab.LowerCertificate(len(msg), 0.5, list(msg), cells, [])
    assert info["min_own_mass"] > 0.75 and attnlab.lower_certificate_margin(A, cert) > 0
    assert attnlab.rank_upper_certificate(A, 0.5, "svd").rank >= len(msg)


def test_sphere_cap_mass_against_monte_carlo_and_packing():
    rng = np.random.default_rng(6)
    d, beta, rho = 3, 40.0, 0.3
    X = ins.sphere_points(400_000, d, rng=rng)
    w = np.exp(beta * (X[:, 0] - 1))
    mc = w[X[:, 0] >= math.cos(rho)].sum() / w.sum()
    assert attnlab.sphere_cap_mass(d, beta, rho) == pytest.approx(mc, abs=0.01)
    P = ins.sphere_packing(3, 0.4, 2000, rng=rng)
    G = np.clip(P @ P.T, -1, 1) - 2 * np.eye(len(P))
    assert np.arccos(G.max()) > 0.4


def test_sphere_lower_count_is_below_the_covering_bound_and_valid():
    x = ins.sphere_lower_count(2, 1e3, 0.25, 5000, rng=np.random.default_rng(7))
    g = attnlab.sphere_gv_lower(2, 1e3, 0.25)
    assert x["mass"] > 0.625 and x["rho"] == pytest.approx(g["rho"]) and g["M"] <= x["M"] <= math.pi / x["rho"]


RNG = np.random.default_rng(0)
BAD = [  # (function, args, kwargs, exception, message naming the argument)
    (ins.sphere_points, (0, 3), {"rng": RNG}, ValueError, "n must be >= 1"),
    (ins.sphere_points, (4, 2.0), {"rng": RNG}, TypeError, "d must be an integer"),
    (ins.sphere_points, (4, 3), {"rng": 1.5}, TypeError, "rng must be"),
    (ins.sphere_points, (4, 3), {"rng": np.random.RandomState(0)}, TypeError, "rng must be"),
    (ins.ball_points, (4, 0), {"rng": RNG}, ValueError, "d must be >= 1"),
    (ins.ball_points, (True, 3), {"rng": RNG}, TypeError, "n must be an integer"),
    (ins.ball_points, (4, 3), {"rng": "0"}, TypeError, "rng must be"),
    (ins.family_attention, ("cube-3", 4, 4, 1.0), {"rng": RNG}, ValueError, "family must be"),
    (ins.family_attention, ("sphere-x", 4, 4, 1.0), {"rng": RNG}, ValueError, "family must be"),
    (ins.family_attention, ("sphere-0", 4, 4, 1.0), {"rng": RNG}, ValueError, "family must be"),
    (ins.family_attention, (3, 4, 4, 1.0), {"rng": RNG}, TypeError, "family must be a string"),
    (ins.family_attention, ("sphere-3", 4, 0, 1.0), {"rng": RNG}, ValueError, "n_keys"),
    (ins.family_attention, ("sphere-3", 4, 4, -1.0), {"rng": RNG}, ValueError, "beta"),
    (ins.family_attention, ("sphere-3", 4, 4, 1e309), {"rng": RNG}, ValueError, "beta"),
    (ins.family_attention, ("sphere-3", 4, 4, 1.0), {"rng": "rng"}, TypeError, "rng"),
    (ins.planted_head, (4, 4, 3, 4), {"rng": RNG}, ValueError, r"r must lie in \[0, d\]"),
    (ins.planted_head, (4, 4, 3, -1), {"rng": RNG}, ValueError, "r must be >= 0"),
    (ins.planted_head, (4, 4, 3, 1), dict(rng=RNG, hidden=float("nan")), ValueError, "hidden"),
    (ins.planted_head, (4, 4, 3, 1), dict(rng=RNG, radius="1"), TypeError, "radius"),
    (ins.planted_head, (4, 4, 3, 1), {"rng": 7.5}, TypeError, "rng"),
    (ins.noisy_head, (4, 4, 3, 0, 0.1), {"rng": RNG}, ValueError, "r must be >= 1"),
    (ins.noisy_head, (4, 4, 3, 5, 0.1), {"rng": RNG}, ValueError, r"r must lie in \[1, d\]"),
    (ins.noisy_head, (4, 4, 3, 1, -0.1), {"rng": RNG}, ValueError, "sigma"),
    (ins.noisy_head, (4, 4, 3, 1, 0.1), {"rng": "0"}, TypeError, "rng"),
    (ins.lattice_instance, (2, 3.0, 1.2), {}, ValueError, "eps must be < 1"),
    (ins.lattice_instance, (2, 3.0, 2.5), {}, ValueError, "eps"),
    (ins.lattice_instance, (0, 3.0, 0.5), {}, ValueError, "d must be >= 1"),
    (ins.lattice_instance, (2, 0.0, 0.5), {}, ValueError, "gamma"),
    (ins.lattice_instance, (2, 3.0, 0.5), dict(margin=-1), ValueError, "margin"),
    (ins.lattice_materialised, (2, 3.0, 0.5), dict(margin=1.5), TypeError, "margin"),
    (ins.lattice_materialised, (2.0, 3.0, 0.5), {}, TypeError, "d must be an integer"),
    (ins.sphere_packing, (3, 0.0, 10), {"rng": RNG}, ValueError, "angle"),
    (ins.sphere_packing, (3, 4.0, 10), {"rng": RNG}, ValueError, "angle"),
    (ins.sphere_packing, (3, 0.5, 0), {"rng": RNG}, ValueError, "n_candidates"),
    (ins.sphere_packing, (3, 0.5, 10), {"rng": 1.5}, TypeError, "rng"),
    (ins.sphere_lower_count, (1, 10.0, 0.5, 10), {"rng": RNG}, ValueError, "d must be >= 2"),
    (ins.sphere_lower_count, (3, -1.0, 0.5, 10), {"rng": RNG}, ValueError, "beta"),
    (ins.sphere_lower_count, (3, 10.0, 1.5, 10), {"rng": RNG}, ValueError, "eps must be < 1"),
    (ins.sphere_lower_count, (3, 10.0, 0.5, 10.0), {"rng": RNG}, TypeError, "n_candidates"),
    (ins.sphere_lower_count, (3, 10.0, 0.5, 10), {"rng": "0"}, TypeError, "rng"),
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    covered = {fn.__name__ for fn, *_ in BAD}
    assert set(ins.__all__) <= covered
