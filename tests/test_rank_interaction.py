"""attnlab.rank.interaction: a head's visible interaction, the Gibbs family, the Bregman identity, the SVD bridge."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlab
from attnlab.rank import interaction as rn
from attnlab import softmax


def test_exported():
    for name in rn.__all__:
        assert getattr(attnlab, name) is getattr(rn, name)


def test_visible_dimension_and_exact_decomposition():
    rng = np.random.default_rng(4)
    for r in (0, 1, 3):
        Q, K = attnlab.planted_head(50, 40, 64, r, rng=rng)
        vi = rn.visible_interaction_dim(Q, K)
        assert vi.r == r
        np.testing.assert_allclose(Q @ K.T, vi.row[:, None] + vi.key[None, :] + vi.a @ vi.b.T, rtol=0, atol=1e-12)
        A = softmax(7.0 * Q @ K.T)
        assert attnlab.row_l1_error(A, rn.gibbs_matrix(vi.a, vi.b, 7.0 * vi.key, 7.0)) < 1e-12
        if r == 0:
            s = np.linalg.svd(A, compute_uv=False)
            assert s[1] < 1e-12 * s[0]


@pytest.mark.parametrize("r", [0, 1, 2, 3])
def test_planted_head_without_offset_has_visible_dim_r(r):
    rng = np.random.default_rng(r)
    Q, K = attnlab.planted_head(40, 30, 16, r, rng=rng, offset=0.0)
    assert rn.visible_interaction_dim(Q, K).r == r


def test_bregman_gap_identity():
    rng = np.random.default_rng(5)
    Kx = rng.standard_normal((30, 3))
    log_pi = np.log(rng.integers(1, 9, 30).astype(float))  # integer multiplicities
    for _ in range(20):
        x, y = rng.standard_normal(3), rng.standard_normal(3)
        lhs, kl, rest = rn.bregman_gap(Kx, log_pi, 2.5, x, y)
        assert lhs == pytest.approx(kl + rest, abs=1e-10) and kl >= -1e-12 and rest >= -1e-12


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1000), beta=st.floats(0.1, 50.0), r=st.integers(0, 5))
def test_property_svd_bridge_chain(seed, beta, r):
    rng = np.random.default_rng(seed)
    Q, K = attnlab.noisy_head(40, 30, 8, 2, 0.1, rng=rng)
    b = rn.svd_bridge(Q, K, beta, r)
    assert b.error <= b.tau_exact + 1e-12 <= b.tau_width + 2e-12 <= b.tau_spec + 3e-12


def test_svd_bridge_at_full_rank_leaves_nothing():
    rng = np.random.default_rng(6)
    Q, K = attnlab.noisy_head(20, 15, 4, 2, 0.1, rng=rng)
    b = rn.svd_bridge(Q, K, 3.0, 4, center=Q.mean(axis=0))
    assert b.tau_spec == 0 and b.error < 1e-12 and b.explained == pytest.approx(1.0)


@given(st.integers(2, 40), st.integers(1, 3), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_chebyshev_radius_bounds(n, d, seed):
    X = np.random.default_rng(seed).standard_normal((n, d))
    rho = rn.chebyshev_radius(X)
    diam = max(np.linalg.norm(X[i] - X[j]) for i in range(n) for j in range(n))
    assert diam / 2 - 1e-6 <= rho <= np.sqrt(((X - X.mean(0)) ** 2).sum(1)).max() + 1e-9


def test_large_temperatures_are_finite_or_an_error_naming_the_factor():
    a, b = np.array([[1.0], [-1.0]]), np.array([[1.0], [0.0]])
    assert np.isfinite(rn.gibbs_matrix(a, b, np.zeros(2), 1e300)).all()  # γ·ab = ±1e300: finite scores, exact limit
    with pytest.raises(ValueError, match="beta"):
        rn.gibbs_matrix(a * 1e10, b * 1e10, np.zeros(2), 1e300)
    Q = np.array([[1e200, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="beta"):
        rn.svd_bridge(Q, Q, 1e200, 1)


Q2, K3 = np.ones((3, 2)), np.ones((4, 2))
BAD = [  # (function, args, kwargs, exception, message naming the argument)
    (rn.visible_interaction_dim, (Q2, np.zeros((3, 4))), {}, ValueError, "K must have the width"),
    (rn.visible_interaction_dim, ("Q", K3), {}, TypeError, "Q must be"),
    (rn.visible_interaction_dim, (Q2, K3, 0.0), {}, ValueError, "tol"),
    (rn.visible_interaction_dim, (Q2, K3, "1e-10"), {}, TypeError, "tol"),
    (rn.visible_interaction_dim, (np.full((3, 2), np.nan), K3), {}, ValueError, "Q contains"),
    (rn.visible_interaction_dim, (Q2 > 0, K3), {}, TypeError, "Q must be a real floating array"),
    (rn.gibbs_matrix, (Q2, np.ones((4, 3)), np.zeros(4)), {}, ValueError, "b must have the width"),
    (rn.gibbs_matrix, (Q2, K3, np.zeros(3)), {}, ValueError, "log_pi must have 4 entries"),
    (rn.gibbs_matrix, (Q2, K3, np.zeros(4), -1.0), {}, ValueError, "beta"),
    (rn.gibbs_matrix, (Q2, K3, np.zeros(4), True), {}, TypeError, "beta"),
    (rn.gibbs_matrix, (Q2, K3, np.full(4, np.inf)), {}, ValueError, "log_pi contains"),
    (rn.gibbs_matrix, (np.ones((0, 2)), K3, np.zeros(4)), {}, ValueError, "at least one row"),
    (rn.bregman_gap, (K3, np.zeros(4), 1.0, np.ones(3), np.ones(2)), {}, ValueError, "x must have 2 entries"),
    (rn.bregman_gap, (K3, np.zeros(4), 1.0, np.ones(2), np.ones(3)), {}, ValueError, "y must have 2 entries"),
    (rn.bregman_gap, (K3, np.zeros(3), 1.0, np.ones(2), np.ones(2)), {}, ValueError, "log_pi must have 4 entries"),
    (rn.bregman_gap, (K3, np.zeros(4), 0.0, np.ones(2), np.ones(2)), {}, ValueError, "beta"),
    (rn.bregman_gap, (K3, np.zeros(4), 1e308, np.full(2, 1e10), np.ones(2)), {}, ValueError, "beta"),
    (rn.svd_bridge, (Q2, K3, 1.0, -1), {}, ValueError, "r must be >= 0"),
    (rn.svd_bridge, (Q2, K3, 1.0, 1.0), {}, TypeError, "r must be an integer"),
    (rn.svd_bridge, (Q2, K3, 0.0, 1), {}, ValueError, "beta"),
    (rn.svd_bridge, (Q2, K3, float("inf"), 1), {}, ValueError, "beta"),
    (rn.svd_bridge, (Q2, np.ones((4, 3)), 1.0, 1), {}, ValueError, "K must have the width"),
    (rn.svd_bridge, (Q2, K3, 1.0, 1), dict(center=np.zeros(3)), ValueError, "center must have 2 entries"),
    (rn.chebyshev_radius, (np.zeros((0, 2)),), {}, ValueError, "X must have at least one row"),
    (rn.chebyshev_radius, (np.zeros(3),), {}, ValueError, "X must be 2-dimensional"),
    (rn.chebyshev_radius, (np.full((2, 2), np.nan),), {}, ValueError, "X contains"),
    (rn.chebyshev_radius, ("X",), {}, TypeError, "X must be"),
    (rn.bridge_subspace, (Q2, np.zeros((3, 4)), 1), {}, ValueError, "K must have the width"),
    (rn.bridge_subspace, (Q2, K3, -1), {}, ValueError, "r must be"),
    (rn.bridge_subspace, (Q2, K3, 1), dict(center=np.ones(5)), ValueError, "center"),
]


@pytest.mark.parametrize("fn,args,kwargs,exc,match", BAD, ids=lambda x: getattr(x, "__name__", None))
def test_bad_inputs(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    covered = {fn.__name__ for fn, *_ in BAD}
    assert {n for n in rn.__all__ if n[0].islower()} <= covered


def test_bridge_subspace_is_the_svd_of_the_centred_visible_keys():
    rng = np.random.default_rng(11)
    Q, K = rng.standard_normal((8, 4)), rng.standard_normal((7, 4))
    u, Z, s, W = rn.bridge_subspace(Q, K, 2)
    assert np.allclose(u, Q - Q.mean(0))
    Uq = np.linalg.svd(u, full_matrices=False)[2]  # u spans R^4 here: Z is the centred keys themselves
    assert np.allclose(Z, (K - K.mean(0)) @ Uq.T @ Uq)
    assert np.allclose(s, np.linalg.svd(K - K.mean(0), compute_uv=False))
    assert np.allclose(np.abs(W.T @ np.linalg.svd(Z)[2][:2].T), np.eye(2), atol=1e-8)


# ------------------------------------------------------------------- result objects (book/conventions.md, Results)
def test_svd_bridge_is_a_result_whose_old_keys_warn():
    rng = np.random.default_rng(12)
    Q, K = attnlab.noisy_head(20, 15, 4, 2, 0.1, rng=rng)
    b = rn.svd_bridge(Q, K, 2.0, 1)
    assert isinstance(b, rn.SvdBridge) and b.r == 1 and b.A.shape == b.A_W.shape == (20, 15)
    assert b.error == attnlab.row_l1_error(b.A, b.A_W)
    with pytest.warns(DeprecationWarning, match=r"SvdBridge is no longer a dict: res\['tau_exact'\].*\.tau_exact"):
        assert b["tau_exact"] == b.tau_exact
    with pytest.warns(DeprecationWarning):
        assert "A_W" in b and b.get("rho") == b.rho


def test_bregman_gap_unpacks_and_names_its_terms():
    Kx = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    g = rn.bregman_gap(Kx, np.zeros(3), 1.5, np.array([0.2, -0.1]), np.array([-0.4, 0.3]))
    lhs, kl, rest = g
    assert isinstance(g, rn.BregmanGap) and (g.lhs, g.kl_term, g.rest) == (lhs, kl, rest)
    assert lhs == pytest.approx(kl + rest, abs=1e-12) and kl > 0
