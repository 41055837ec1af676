import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attnlab
from attnlab import rank
from attnlab.softmax import softmax


def _stoch(rng, n, L, scale=3.0):
    return softmax(scale * rng.standard_normal((n, L)))


def test_exported():
    for name in ("row_l1_error", "rank_upper_certificate", "rank_lower_certificate", "visible_interaction_dim"):
        assert getattr(attnlab, name) is getattr(rank, name)


def test_row_l1_error_against_dense_formula():
    rng = np.random.default_rng(0)
    A, B = rng.random((3000, 7)), rng.random((3000, 7))
    assert rank.row_l1_error(A, B, block=100) == pytest.approx(np.abs(A - B).sum(axis=1).max(), rel=1e-15)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_operator_identity_attained_and_not_exceeded(norm):
    rng = np.random.default_rng(1)
    A, B = _stoch(rng, 20, 9), _stoch(rng, 20, 9)
    target = rank.row_l1_error(A, B)
    V = rank.maximising_values(A, B, 4, norm)
    assert rank.operator_error(A, B, V, norm) == pytest.approx(target, rel=1e-13)
    for _ in range(200):  # random values in the unit ball of the norm never exceed it
        W = rng.standard_normal((9, 4))
        W /= rank._vec_norm(W, norm)[:, None]
        assert rank.operator_error(A, B, W, norm) <= target * (1 + 1e-12)


@pytest.mark.parametrize("method", ["greedy", "svd", "cover-svd", "best"])
def test_upper_certificates_are_certified(method):
    rng = np.random.default_rng(2)
    A = rank.family_attention("sphere-2", 400, 64, 30.0, rng)
    for eps in (0.1, 0.5, 1.5):
        c = rank.rank_upper_certificate(A, eps, method)
        B = c.matrix()
        assert rank.row_l1_error(A, B) <= eps + 1e-12 and c.error <= eps + 1e-12
        assert np.linalg.matrix_rank(B, tol=1e-9) <= c.rank


def test_known_ranks_are_bracketed_exactly():
    """Block matrices of known rank M: both certificates equal M for ε < 1."""
    rng = np.random.default_rng(3)
    for M in (1, 4, 9):
        blocks = rng.random((M, 5 * M)) * (np.kron(np.eye(M), np.ones(5)) > 0)
        blocks /= blocks.sum(axis=1, keepdims=True)
        A = blocks[rng.integers(0, M, 300)]
        A[:M] = blocks  # every block present
        assert rank.rank_lower_certificate(A, 0.5).M == M
        assert rank.rank_upper_certificate(A, 0.5, "greedy").rank == M
        assert rank.rank_upper_certificate(A, 0.5, "svd").rank == M


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), L=st.integers(1, 20),
       scale=st.floats(0.0, 30.0), eps=st.floats(0.01, 1.99))
def test_property_lower_below_upper(seed, n, L, scale, eps):
    """Any certified lower bound is at most any certified upper bound; the lower certificate's margin is > 0."""
    A = _stoch(np.random.default_rng(seed), n, L, scale)
    low = rank.rank_lower_certificate(A, eps)
    up = rank.rank_upper_certificate(A, eps, "best")
    assert low.M <= up.rank
    if low.M:
        margin, dom = rank.lower_certificate_margin(A, low, up.matrix())
        assert margin > 0 and dom > 0


@settings(max_examples=40, deadline=None)
@given(A=arrays(np.float64, (6, 5), elements=st.floats(0, 1)), eps=st.floats(0.05, 1.9))
def test_property_one_hot_and_ties(A, eps):
    A = A + 1e-300
    A /= A.sum(axis=1, keepdims=True)
    c = rank.rank_upper_certificate(A, eps, "svd")
    assert rank.row_l1_error(A, c.matrix()) <= eps + 1e-12


def test_visible_dimension_and_exact_decomposition():
    rng = np.random.default_rng(4)
    for r in (0, 1, 3):
        Q, K = rank.planted_head(50, 40, 64, r, rng)
        vi = rank.visible_interaction_dim(Q, K)
        assert vi.r == r
        np.testing.assert_allclose(Q @ K.T, vi.row[:, None] + vi.key[None, :] + vi.a @ vi.b.T, rtol=0, atol=1e-12)
        A = softmax(7.0 * Q @ K.T)
        assert rank.row_l1_error(A, rank.gibbs_matrix(vi.a, vi.b, 7.0 * vi.key, 7.0)) < 1e-12
        if r == 0:
            s = np.linalg.svd(A, compute_uv=False)
            assert s[1] < 1e-12 * s[0]


def test_bregman_gap_identity():
    rng = np.random.default_rng(5)
    Kx = rng.standard_normal((30, 3))
    log_pi = np.log(rng.integers(1, 9, 30).astype(float))  # integer multiplicities
    for _ in range(20):
        x, y = rng.standard_normal(3), rng.standard_normal(3)
        lhs, kl, rest = rank.bregman_gap(Kx, log_pi, 2.5, x, y)
        assert lhs == pytest.approx(kl + rest, abs=1e-10) and kl >= -1e-12 and rest >= -1e-12


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1000), beta=st.floats(0.1, 50.0), r=st.integers(0, 5))
def test_property_svd_bridge_chain(seed, beta, r):
    rng = np.random.default_rng(seed)
    Q, K = rank.noisy_head(40, 30, 8, 2, 0.1, rng)
    b = rank.svd_bridge(Q, K, beta, r)
    assert b["error"] <= b["tau_exact"] + 1e-12 <= b["tau_width"] + 2e-12 <= b["tau_spec"] + 3e-12


def test_lattice_certificate_materialised():
    A, cells = rank.lattice_materialised(2, 10.0, 0.25)
    own = np.array([A[i, c].sum() for i, c in enumerate(cells)])
    assert (own > (1 + 0.25) / 2).all()
    assert rank.rank_lower_certificate(A, 0.25).M >= len(cells)
    x = rank.lattice_lower_count(2, 1e4, 0.25)
    assert x["margin_ok"] and x["M"] > 0


def test_sphere_cap_mass_against_monte_carlo():
    rng = np.random.default_rng(6)
    d, beta, rho = 3, 40.0, 0.3
    X = rank.sphere_points(400_000, d, rng)
    w = np.exp(beta * (X[:, 0] - 1))
    mc = w[X[:, 0] >= math.cos(rho)].sum() / w.sum()
    assert rank.sphere_cap_mass(d, beta, rho) == pytest.approx(mc, abs=0.01)
    P = rank.sphere_packing(3, 0.4, 2000, rng)
    G = np.clip(P @ P.T, -1, 1) - 2 * np.eye(len(P))
    assert np.arccos(G.max()) > 0.4


def test_bad_inputs():
    A = np.full((3, 4), 0.25)
    with pytest.raises(ValueError, match="eps"):
        rank.rank_upper_certificate(A, 2.0)
    with pytest.raises(ValueError, match="eps"):
        rank.rank_lower_certificate(A, 0.0)
    with pytest.raises(ValueError, match="A must be row-stochastic"):
        rank.rank_lower_certificate(A * 2, 0.5)
    with pytest.raises(ValueError, match="B must have the shape"):
        rank.row_l1_error(A, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="K must have the width"):
        rank.visible_interaction_dim(np.zeros((3, 2)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="method"):
        rank.rank_upper_certificate(A, 0.5, "magic")
    with pytest.raises(TypeError, match="A must be"):
        rank.row_l1_error("x", A)
    with pytest.raises(ValueError, match="eps must be < 1"):
        rank.lattice_instance(2, 3.0, 1.2)


@pytest.mark.parametrize("r", [0, 1, 2, 3])
def test_planted_head_without_offset_has_visible_dim_r(r):
    rng = np.random.default_rng(r)
    Q, K = rank.planted_head(40, 30, 16, r, rng, offset=0.0)
    assert rank.visible_interaction_dim(Q, K).r == r


@given(st.integers(2, 40), st.integers(1, 3), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_chebyshev_radius_bounds(n, d, seed):
    X = np.random.default_rng(seed).standard_normal((n, d))
    rho = rank.chebyshev_radius(X)
    diam = max(np.linalg.norm(X[i] - X[j]) for i in range(n) for j in range(n))
    assert diam / 2 - 1e-6 <= rho <= np.sqrt(((X - X.mean(0)) ** 2).sum(1)).max() + 1e-9


def test_lattice_instance_messages_certify():
    A, msg, cells, info = rank.lattice_instance(2, 6.0, 0.5)
    cert = rank.LowerCertificate(len(msg), 0.5, list(msg), cells, [])
    assert info["min_own_mass"] > 0.75 and rank.lower_certificate_margin(A, cert) > 0
    assert rank.rank_upper_certificate(A, 0.5, "svd").rank >= len(msg)


def test_sphere_ball_experiment_certifies_and_fits(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(sb_n=96, sb_keys=64, sb_betas=[2.0, 4.0, 8.0, 16.0], eps=[0.5])
    rows = rank.sphere_ball_experiment(p, 0)
    assert [r["beta"] for r in rows] == p["sb_betas"] and all(r["family"] == "sphere d=3" for r in rows)
    for r in rows:  # both certificates hold on the same matrix, so lower <= upper
        assert r["upper_error"] <= r["eps"] + 1e-12 and r["lower_margin"] > 0 and r["lower"] <= r["upper"]
    again = rank.sphere_ball_experiment(p, 0)
    assert [r["upper"] for r in again] == [r["upper"] for r in rows]
    gap = [dict(beta=b, eps=0.5, upper=u, lower=lo) for b, u, lo in [(1, 2, 1), (4, 4, 2), (16, 8, 4)]]
    up = dict(lattice=[dict(beta=b, eps=0.5, upper=u, lower=lo, n=1000, L=1000) for b, u, lo in [(1, 2, 1), (10, 20, 10), (100, 200, 100)]])
    fits = rank.sphere_ball_fits(gap, up, 0.1, [dict(r, upper=u, lower=lo, n=1000, L=1000)
                                                 for r, u, lo in zip(rows, [2, 4, 8, 16], [1, 2, 4, 8])])
    s3 = [f for f in fits if f["family"] == "sphere d=3"][0]
    assert s3["upper_slope"] == pytest.approx(1.0) and s3["lower_slope"] == pytest.approx(1.0) and s3["bracket"]
    assert [f["family"] for f in rank.sphere_ball_fits(gap, up, 0.1)] == ["sphere d=2", "ball d=2"]


def test_robust_experiment_certifies_through_the_residual(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(up_r=[1, 2], up_n=96, up_keys=64, planted_d=8, robust_sigma=1e-3, up_betas=[1.0, 10.0, 100.0, 1e4], up_eps=0.5)
    rows = rank.robust_experiment(p, 0)
    assert {x["r"] for x in rows} == {1, 2} and all(x["visible_dim"] == 8 for x in rows)
    assert all(x["tau"] < x["eps"] and x["robust_error_on_A"] <= x["eps"] + 1e-12 for x in rows)
    assert 1e4 not in {x["beta"] for x in rows}  # τ_W ≥ ε there: no robust certificate
    synth = [dict(r=2, x=x, robust=int(x), direct=int(x), n=10**6, L=10**6, beta=x) for x in (10.0, 100.0, 1000.0)]
    f = rank.robust_fits(synth)[0]
    assert f["slope"] == pytest.approx(1.0, abs=1e-3) and f["consistent"] and f["robust_over_direct"] == 1.0
    assert not rank.robust_fits([dict(s, robust=int(s["x"] ** 1.5)) for s in synth])[0]["consistent"]
