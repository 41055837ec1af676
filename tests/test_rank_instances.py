"""Random heads and worst-case families (attnlab.rank.instances)."""
import math

import numpy as np
import pytest

import attnlab
from attnlab.rank import instances as ins
from attnlab.rank import sphere as sph


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


def test_sphere_cap_mass_against_monte_carlo_and_packing():
    rng = np.random.default_rng(6)
    d, beta, rho = 3, 40.0, 0.3
    X = ins.sphere_points(400_000, d, rng=rng)
    w = np.exp(beta * (X[:, 0] - 1))
    mc = w[X[:, 0] >= math.cos(rho)].sum() / w.sum()
    assert attnlab.sphere_cap_mass(d, beta, rho) == pytest.approx(mc, abs=0.01)
    P = sph.sphere_packing(3, 0.4, 2000, rng=rng)
    G = np.clip(P @ P.T, -1, 1) - 2 * np.eye(len(P))
    assert np.arccos(G.max()) > 0.4


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
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    covered = {fn.__name__ for fn, *_ in BAD}
    assert {n for n in ins.__all__ if n[0].islower()} <= covered


def test_heads_unpack_as_before_and_name_their_parts():
    for head in (ins.planted_head(6, 5, 4, 2, rng=np.random.default_rng(8)),
                 ins.noisy_head(6, 5, 4, 2, 0.1, rng=np.random.default_rng(8))):
        Q, K = head
        assert isinstance(head, ins.Head) and head.Q is Q and head.K is K
        assert Q.shape == (6, 4) and K.shape == (5, 4)
