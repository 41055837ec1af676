"""Claims PDA-lip, AR-tanh, PDA-chain: the bounds, the sharp instances, the search helper and the chain measurement."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnlab
from attnlab import perturbation as pt
from attnlab.adversarial import sup_ratio
from attnlab.softmax import softmax

TOL = 1e-12


def _pair(draw, L):
    big = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)
    special = st.sampled_from([0.0, 1.0, -1.0, 1e4, -1e4, 3.5])
    elem = st.one_of(big, special)
    x = draw(hnp.arrays(np.float64, L, elements=elem))
    h = draw(hnp.arrays(np.float64, L, elements=st.one_of(st.floats(-50, 50), st.sampled_from([0.0, 1e-9, -1e4, 1e4]))))
    return x, h


@st.composite
def logit_pairs(draw):
    """x and h with huge entries (±1e4), ties (repeated values), one-hot rows and L = 1."""
    L = draw(st.integers(1, 40))
    x, h = _pair(draw, L)
    if draw(st.booleans()):  # ties
        x[: L // 2] = x[0]
    return x, h


def _effective(x, h):
    """The perturbation actually applied in floating point: (x + h) - x, so rounding does not count against a bound."""
    return (x + h) - x


@settings(max_examples=1000, deadline=None)
@given(logit_pairs())
def test_property_lipschitz_printed_and_sharp(xh):
    """PDA-lip holds with constant 2, and with the sharp constant 1."""
    x, h = xh
    he = _effective(x, h)
    d = float(pt.l1_change(x, he))
    assert d <= 2 * float(np.abs(he).max()) + TOL
    assert d <= float(np.abs(he).max()) + TOL
    assert d <= 2 + TOL


@settings(max_examples=1000, deadline=None)
@given(logit_pairs())
def test_property_tanh_bound(xh):
    """AR-tanh holds: ‖f(x+h) − f(x)‖₁ ≤ 2 tanh(osc(h)/4), which is ≤ osc/2 ≤ ‖h‖∞."""
    x, h = xh
    he = _effective(x, h)
    d = float(pt.l1_change(x, he))
    tb = float(attnlab.tanh_bound(he))
    assert d <= tb + TOL
    assert tb <= float(attnlab.oscillation(he)) / 2 + TOL


@settings(max_examples=300, deadline=None)
@given(L=st.integers(1, 30), n=st.integers(1, 30), eps=st.floats(1e-6, 5.0), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([0.1, 1.0, 10.0, 1e4]))
def test_property_chain(L, n, eps, seed, scale):
    """PDA-chain holds for every S and every E with max|E| ≤ ε, and so do the sharper forms."""
    rng = np.random.default_rng(seed)
    S = scale * rng.standard_normal((n, L))
    if L > 1 and rng.random() < 0.3:
        S[:, 1] = S[:, 0]  # ties
    E = eps * rng.choice([-1.0, 1.0], (n, L)) * rng.uniform(0, 1, (n, L)) ** rng.integers(0, 2)
    E = _effective(S, E)
    e = float(np.abs(E).max())
    V = rng.standard_normal((L, 3)) * rng.choice([0.0, 1.0], (L, 1))
    D = softmax(S + E) - softmax(S)
    row_l1 = np.abs(D).sum(1)
    fro_A = np.linalg.norm(D)
    DO = D @ V
    assert row_l1.max() <= 2 * e + TOL and row_l1.max() <= 2 * math.tanh(e / 2) + TOL
    assert fro_A <= 2 * e * math.sqrt(n) + TOL and fro_A <= math.sqrt(2 * n) * math.tanh(e / 2) + TOL
    assert np.linalg.norm(DO) <= 2 * e * math.sqrt(n) * np.linalg.norm(V) + TOL
    assert np.linalg.norm(DO) <= fro_A * np.linalg.norm(V, 2) + TOL
    rho = np.sqrt(((V - V.mean(0)) ** 2).sum(1)).max()
    per_row = np.linalg.norm(DO, axis=1)
    assert per_row.max() <= 2 * e * np.linalg.norm(V) + TOL
    assert per_row.max() <= 2 * math.tanh(e / 2) * rho + TOL


def test_sharp_constant_counterexamples():
    """Sharper forms fail: Lipschitz constant 0.999 (t = 0.01), the tanh bound times 0.999, √L dropped."""
    x, h, r = pt.lipschitz_instance(0.01)
    assert float(pt.l1_change(x, h)) > 0.999 * float(np.abs(h).max())
    assert r == pytest.approx(2 * math.tanh(0.005) / 0.01, rel=1e-12)
    for L, w in ((2, 1.0), (3, 10.0), (1000, 0.01)):
        x, h = pt.tanh_sharp_instance(L, w)
        assert float(pt.l1_change(x, h)) == pytest.approx(2 * math.tanh(w / 4), rel=1e-12)
        assert float(pt.l1_change(x, h)) > 0.999 * float(pt.tanh_bound(h))
    # without √L the Frobenius link fails: two-key instance, L = 64, eps = 0.1
    m, V = pt.two_key_instance(64, 0.1)
    assert m["A_fro"] > 2 * 0.1  # 2ε alone is exceeded
    assert m["A_fro"] == pytest.approx(math.sqrt(2 * 64) * math.tanh(0.05), rel=1e-12)
    assert m["O_fro"] == pytest.approx(math.sqrt(64) * math.tanh(0.05), rel=1e-12)


def test_l1_one_is_zero_and_l1_change_against_dense_formula():
    assert float(pt.l1_change(np.array([3.0]), np.array([5.0]))) == 0.0
    assert float(pt.tanh_bound(np.array([5.0]))) == 0.0
    rng = np.random.default_rng(1)
    x, h = rng.standard_normal((2, 7))
    p = np.exp(x) / np.exp(x).sum()
    q = np.exp(x + h) / np.exp(x + h).sum()
    assert float(pt.l1_change(x, h)) == pytest.approx(np.abs(p - q).sum(), rel=1e-13)
    assert float(pt.oscillation(h)) == pytest.approx(np.ptp(h))


def test_ratio_gradients_against_finite_differences():
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((3, 10))
    for f in (pt.lipschitz_ratio, pt.tanh_ratio):
        r, G = f(Z, True)
        for j in (0, 3, 7):
            Zp, Zm = Z.copy(), Z.copy()
            Zp[:, j] += 1e-6
            Zm[:, j] -= 1e-6
            assert np.allclose((f(Zp) - f(Zm)) / 2e-6, G[:, j], rtol=1e-4, atol=1e-6)


def test_sup_ratio_finds_known_maximum_and_beats_starts():
    # r(z) = 1 - |z - 0.3|^2 on a box: sup 1 at 0.3; starts far away
    f = lambda Z: 1 - ((Z - 0.3) ** 2).sum(1)  # noqa: E731
    res = sup_ratio(f, np.full((5, 4), -2.0) + np.arange(5)[:, None] * 0.1, bounds=(-3, 3))
    assert res.value == pytest.approx(1.0, abs=1e-9) and np.allclose(res.argmax, 0.3, atol=1e-4)
    assert res.values.shape == (5,) and np.all(res.values >= res.initial)
    # a box that excludes the maximiser: the optimum sits on the boundary
    res = sup_ratio(f, np.zeros((3, 2)), bounds=(-1, 0.1))
    assert np.allclose(res.argmax, 0.1, atol=1e-6)


def test_sup_ratio_bad_input():
    with pytest.raises(TypeError, match="fun"):
        sup_ratio(3, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="x0"):
        sup_ratio(lambda Z: Z[:, 0], np.zeros(3))
    with pytest.raises(ValueError, match="maxiter"):
        sup_ratio(lambda Z: Z[:, 0], np.zeros((2, 2)), maxiter=0)
    with pytest.raises(ValueError, match="one value per row"):
        sup_ratio(lambda Z: Z, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="bounds"):
        sup_ratio(lambda Z: Z[:, 0], np.zeros((2, 2)), bounds=(1, 0))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="h contains"):
        pt.oscillation(np.array([1.0, np.nan]))
    with pytest.raises(TypeError, match="h must be"):
        pt.tanh_bound(np.array(["a"]))
    with pytest.raises(ValueError, match="same shape"):
        pt.l1_change(np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="t must be"):
        pt.lipschitz_instance(-1.0)
    with pytest.raises(ValueError, match="eps must be"):
        pt.chain_bounds(0.0, 4, np.ones((4, 1)))
    with pytest.raises(ValueError, match="beta"):
        pt.chain_measure(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 1)), 0.1, beta=float("nan"))
    with pytest.raises(ValueError, match="kind"):
        pt._kind("nope", 4, 2, 2, np.random.default_rng(0))


def test_chain_measure_against_dense():
    rng = np.random.default_rng(4)
    L, d = 70, 5
    Q, K, V = rng.standard_normal((L, d)), rng.standard_normal((L, d)), rng.standard_normal((L, 3))
    res = pt.chain_measure(Q, K, V, 0.2, beta=0.7, block=16, seed=9)
    S = 0.7 * Q @ K.T
    A = softmax(S)
    for pert, m in res.items():
        # reconstruct the block's perturbation exactly as the kernel does, then compare with dense formulas
        E = np.empty_like(S)
        for b, i0 in enumerate(range(0, L, 16)):
            rows = slice(i0, min(i0 + 16, L))
            if pert == "random":
                g = np.random.default_rng([9, L, b])
                n = S[rows].size
                bits = np.unpackbits(np.frombuffer(g.bytes((n + 7) // 8), np.uint8), count=n).reshape(S[rows].shape)
                E[rows] = np.where(bits, 0.2, -0.2)
            else:
                E[rows] = np.where(pt._adversarial_rows(A[rows], 0.2), 0.2, -0.2)
        D = softmax(S + E) - A
        assert m["row_l1"] == pytest.approx(np.abs(D).sum(1).max(), rel=1e-10)
        assert m["A_fro"] == pytest.approx(np.linalg.norm(D), rel=1e-10)
        assert m["O_fro"] == pytest.approx(np.linalg.norm(D @ V), rel=1e-10)
        assert m["row_out"] == pytest.approx(np.linalg.norm(D @ V, axis=1).max(), rel=1e-10)
    # the adversarial rows are at least as bad as the random ones in row ℓ1, and near 2 tanh(ε/2) for diffuse rows
    assert res["adversarial"]["row_l1"] >= 0.95 * 2 * math.tanh(0.1)


def test_chain_experiment_smoke_has_sqrtL_real_and_slopes():
    from attnlab.audit.scale import preset

    rows = pt.chain_experiment(preset(pt.PRESETS, "smoke"), 0)
    tk = [r for r in rows if r["kind"] == "two-key"]
    assert all(r["r_A_fro"] == pytest.approx(math.sqrt(2) * math.tanh(0.05) / 0.2, rel=1e-9) for r in tk)
    slopes = {(s["kind"], s["perturbation"]): s for s in pt.chain_slopes(rows)}
    assert slopes[("two-key", "swap")]["slope"] == 0.0
    assert slopes[("random", "random")]["slope"] < -0.25  # diffuse attention: the √L is slack
    assert max(r["r_row_l1"] for r in rows) < 0.5


def test_worst_case_vs_osc_attains_tanh():
    sw = pt.worst_case_vs_osc([0.1, 2.0, 20.0], 3, 4, np.random.default_rng(0), maxiter=80)
    assert np.all(sw["worst"] <= sw["tanh"] * (1 + 1e-9))
    assert np.all(sw["worst"] >= sw["tanh"] * (1 - 1e-4))
