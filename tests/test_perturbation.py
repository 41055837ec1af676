"""Claims PDA-lip, AR-tanh, PDA-chain: the bounds, the sharp instances, the search helper and the chain measurement."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnlab
from attnlab.theory import perturbation as pt
from attnlab import softmax

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
    m = pt.two_key_instance(64, 0.1).errors
    assert m.A_fro > 2 * 0.1  # 2ε alone is exceeded
    assert m.A_fro == pytest.approx(math.sqrt(2 * 64) * math.tanh(0.05), rel=1e-12)
    assert m.O_fro == pytest.approx(math.sqrt(64) * math.tanh(0.05), rel=1e-12)


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
    for f, f_grad in ((pt.lipschitz_ratio, pt.lipschitz_ratio_grad), (pt.tanh_ratio, pt.tanh_ratio_grad)):
        r, G = f_grad(Z)
        assert np.array_equal(r, f(Z))
        for j in (0, 3, 7):
            Zp, Zm = Z.copy(), Z.copy()
            Zp[:, j] += 1e-6
            Zm[:, j] -= 1e-6
            assert np.allclose((f(Zp) - f(Zm)) / 2e-6, G[:, j], rtol=1e-4, atol=1e-6)


_ONE = np.ones((4, 2))
_QKV = (np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 1)))


def _cm(**kw):
    """chain_measure on small valid inputs, with some arguments replaced."""
    args = dict(Q=_QKV[0], K=_QKV[1], V=_QKV[2], eps=0.1, beta=1.0)
    args.update(kw)
    Q, K, V, eps = args.pop("Q"), args.pop("K"), args.pop("V"), args.pop("eps")
    return pt.chain_measure(Q, K, V, eps, **args)


#: (name, call, exception, fragment of the message naming the caller's argument), for every public function
BAD = [
    # oscillation, tanh_bound, lipschitz_bound share the h / axis validation
    *[(f"{f.__name__}-{case}", (lambda f=f, a=a, k=k: f(*a, **k)), e, m) for f in
      (pt.oscillation, pt.tanh_bound, pt.lipschitz_bound) for case, a, k, e, m in [
          ("nan", (np.array([1.0, np.nan]),), {}, ValueError, "h contains"),
          ("inf", (np.array([1.0, np.inf]),), {}, ValueError, "h contains"),
          ("str", (np.array(["a"]),), {}, TypeError, "h must be"),
          ("complex", (np.array([1j]),), {}, TypeError, "h must be"),
          ("ragged", ([[1.0], [1.0, 2.0]],), {}, TypeError, "h must be"),
          ("scalar", (np.float64(1.0),), {}, ValueError, "h must be at least 1-dimensional"),
          ("empty", (np.zeros(0),), {}, ValueError, "h must have at least one entry"),
          ("empty-axis", (np.zeros((3, 0)),), {}, ValueError, "h must have at least one entry"),
          ("axis-range", (np.zeros((2, 3)),), dict(axis=2), ValueError, "axis=2 is out of range"),
          ("axis-neg", (np.zeros((2, 3)),), dict(axis=-3), ValueError, "axis=-3 is out of range"),
          ("axis-float", (np.zeros(3),), dict(axis=0.0), TypeError, "axis must be an integer"),
          ("axis-bool", (np.zeros(3),), dict(axis=True), TypeError, "axis must be an integer"),
      ]],
    ("oscillation-overflow", lambda: pt.oscillation(np.array([1e308, -1e308])), ValueError, "h: max"),
    ("oscillation-overflow32", lambda: pt.oscillation(np.array([3e38, -3e38], np.float32)), ValueError, "h: max"),
    ("lipschitz_bound-const0", lambda: pt.lipschitz_bound(np.ones(2), const=0.0), ValueError, "const"),
    ("lipschitz_bound-constneg", lambda: pt.lipschitz_bound(np.ones(2), const=-2), ValueError, "const"),
    ("lipschitz_bound-constnan", lambda: pt.lipschitz_bound(np.ones(2), const=float("nan")), ValueError, "const"),
    ("lipschitz_bound-conststr", lambda: pt.lipschitz_bound(np.ones(2), const="2"), TypeError, "const"),
    ("lipschitz_bound-overflow", lambda: pt.lipschitz_bound(np.array([1e308]), const=10.0), ValueError, "const"),
    # l1_change
    ("l1_change-shape", lambda: pt.l1_change(np.zeros(2), np.zeros(3)), ValueError, "same shape"),
    ("l1_change-xnan", lambda: pt.l1_change(np.array([np.nan, 0.0]), np.zeros(2)), ValueError, "x contains"),
    ("l1_change-hinf", lambda: pt.l1_change(np.zeros(2), np.array([np.inf, 0.0])), ValueError, "h contains"),
    ("l1_change-xstr", lambda: pt.l1_change(np.array(["a"]), np.zeros(1)), TypeError, "x must be"),
    ("l1_change-hstr", lambda: pt.l1_change(np.zeros(1), "h"), TypeError, "h must be"),
    ("l1_change-overflow", lambda: pt.l1_change(np.array([1e308, 0.0]), np.array([1e308, 0.0])), ValueError,
     "x \\+ h overflows"),
    ("l1_change-overflow32", lambda: pt.l1_change(np.array([3e38, 0], np.float32), np.array([3e38, 0], np.float32)),
     ValueError, "x \\+ h overflows"),
    ("l1_change-axis", lambda: pt.l1_change(np.zeros(2), np.zeros(2), axis=1), ValueError, "axis=1"),
    ("l1_change-axisstr", lambda: pt.l1_change(np.zeros(2), np.zeros(2), axis="0"), TypeError, "axis"),
    ("l1_change-scalar", lambda: pt.l1_change(np.float64(0), np.float64(1)), ValueError, "x must be at least"),
    ("l1_change-empty", lambda: pt.l1_change(np.zeros(0), np.zeros(0)), ValueError, "x must have at least one"),
    # the ratios
    *[(f"{f.__name__}-{case}", (lambda f=f, a=a, k=k: f(*a, **k)), e, m) for f in
      (pt.lipschitz_ratio, pt.tanh_ratio, pt.lipschitz_ratio_grad, pt.tanh_ratio_grad) for case, a, k, e, m in [
          ("1d", (np.zeros(4),), {}, ValueError, "Z must be 2-dimensional"),
          ("odd", (np.zeros((2, 3)),), {}, ValueError, "Z must have an even number"),
          ("nocols", (np.zeros((2, 0)),), {}, ValueError, "Z must have an even number"),
          ("nan", (np.array([[0.0, np.nan]]),), {}, ValueError, "Z contains"),
          ("str", (np.array([["a", "b"]]),), {}, TypeError, "Z must be"),
          ("overflow", (np.array([[1e308, 0.0, 1e308, 0.0]]),), {}, ValueError, "Z: x \\+ h overflows"),
      ]],
    *[(f"{f.__name__}-{case}", (lambda f=f, k=k: f(np.zeros((1, 2)), **k)), TypeError, "grad must be True or False")
      for f in (pt.lipschitz_ratio, pt.tanh_ratio) for case, k in [("grad", dict(grad="yes")),
                                                                    ("grad-int", dict(grad=1))]],
    # the instances
    ("lipschitz_instance-neg", lambda: pt.lipschitz_instance(-1.0), ValueError, "t must be"),
    ("lipschitz_instance-zero", lambda: pt.lipschitz_instance(0), ValueError, "t must be"),
    ("lipschitz_instance-inf", lambda: pt.lipschitz_instance(float("inf")), ValueError, "t must be"),
    ("lipschitz_instance-str", lambda: pt.lipschitz_instance("1"), TypeError, "t must be"),
    ("tanh_sharp_instance-L0", lambda: pt.tanh_sharp_instance(0, 1.0), ValueError, "L must be"),
    ("tanh_sharp_instance-Lfloat", lambda: pt.tanh_sharp_instance(2.0, 1.0), TypeError, "L must be"),
    ("tanh_sharp_instance-Lbool", lambda: pt.tanh_sharp_instance(True, 1.0), TypeError, "L must be"),
    ("tanh_sharp_instance-w0", lambda: pt.tanh_sharp_instance(2, 0.0), ValueError, "w must be"),
    ("tanh_sharp_instance-wnan", lambda: pt.tanh_sharp_instance(2, float("nan")), ValueError, "w must be"),
    ("tanh_sharp_instance-wstr", lambda: pt.tanh_sharp_instance(2, "1"), TypeError, "w must be"),
    ("two_key_instance-L1", lambda: pt.two_key_instance(1, 0.1), ValueError, "L must be >= 2"),
    ("two_key_instance-L0", lambda: pt.two_key_instance(0, 0.1), ValueError, "L must be"),
    ("two_key_instance-Lfloat", lambda: pt.two_key_instance(4.0, 0.1), TypeError, "L must be"),
    ("two_key_instance-eps0", lambda: pt.two_key_instance(4, 0.0), ValueError, "eps must be"),
    ("two_key_instance-epsinf", lambda: pt.two_key_instance(4, float("inf")), ValueError, "eps must be"),
    # chain_bounds
    ("chain_bounds-eps0", lambda: pt.chain_bounds(0.0, 4, _ONE), ValueError, "eps must be"),
    ("chain_bounds-epsstr", lambda: pt.chain_bounds("0.1", 4, _ONE), TypeError, "eps must be"),
    ("chain_bounds-L0", lambda: pt.chain_bounds(0.1, 0, _ONE), ValueError, "L must be"),
    ("chain_bounds-Lfloat", lambda: pt.chain_bounds(0.1, 4.5, _ONE), TypeError, "L must be"),
    ("chain_bounds-V1d", lambda: pt.chain_bounds(0.1, 4, np.ones(4)), ValueError, "V must be 2-dimensional"),
    ("chain_bounds-Vempty", lambda: pt.chain_bounds(0.1, 4, np.ones((0, 2))), ValueError, "V must have at least"),
    ("chain_bounds-Vnan", lambda: pt.chain_bounds(0.1, 4, np.full((2, 2), np.nan)), ValueError, "V contains"),
    ("chain_bounds-overflow", lambda: pt.chain_bounds(1e308, 4, _ONE), ValueError, "reduce eps"),
    ("chain_bounds-Voverflow", lambda: pt.chain_bounds(0.1, 4, np.full((2, 2), 1e200)), ValueError, "scale of V"),
    # chain_measure
    ("chain_measure-Q1d", lambda: _cm(Q=np.ones(2)), ValueError, "Q must be 2-dimensional"),
    ("chain_measure-Kwidth", lambda: _cm(K=np.ones((4, 3))), ValueError, "Q and K"),
    ("chain_measure-Vrows", lambda: _cm(V=np.ones((3, 1))), ValueError, "K and V"),
    ("chain_measure-Qempty", lambda: _cm(Q=np.ones((0, 2))), ValueError, "Q must have positive"),
    ("chain_measure-Vnan", lambda: _cm(V=np.full((4, 1), np.nan)), ValueError, "V contains"),
    ("chain_measure-Kstr", lambda: _cm(K=np.full((4, 2), "a")), TypeError, "K must be"),
    ("chain_measure-eps0", lambda: _cm(eps=0.0), ValueError, "eps must be"),
    ("chain_measure-epsnan", lambda: _cm(eps=float("nan")), ValueError, "eps must be"),
    ("chain_measure-betanan", lambda: _cm(beta=float("nan")), ValueError, "beta"),
    ("chain_measure-betastr", lambda: _cm(beta="1"), TypeError, "beta"),
    ("chain_measure-betabool", lambda: _cm(beta=True), TypeError, "beta"),
    ("chain_measure-bias", lambda: _cm(bias=3), TypeError, "bias must be callable"),
    ("chain_measure-biasshape", lambda: _cm(bias=lambda i0, n, Lk, xp: xp.zeros((n, Lk + 1))), ValueError,
     "bias must return"),
    ("chain_measure-biasnan", lambda: _cm(bias=lambda i0, n, Lk, xp: xp.full((n, Lk), xp.nan)), ValueError,
     "scores"),
    ("chain_measure-block0", lambda: _cm(block=0), ValueError, "block must be"),
    ("chain_measure-blockfloat", lambda: _cm(block=2.0), TypeError, "block must be"),
    ("chain_measure-rngneg", lambda: _cm(rng=-1), ValueError, "rng must be"),
    ("chain_measure-rngfloat", lambda: _cm(rng=0.5), TypeError, "rng must be"),
    ("chain_measure-threads0", lambda: _cm(threads=0), ValueError, "threads must be"),
    ("chain_measure-threadsbool", lambda: _cm(threads=True), TypeError, "threads must be"),
    ("chain_measure-overflow", lambda: _cm(Q=np.full((4, 2), 1e200), K=np.full((4, 2), 1e200)), ValueError,
     "reduce beta"),
    ("chain_measure-overflow-beta", lambda: _cm(beta=1e308, Q=np.full((4, 2), 10.0)), ValueError, "reduce beta"),
    ("chain_measure-overflow32", lambda: _cm(Q=np.full((4, 2), 1e20, np.float32), K=np.full((4, 2), 1e20, np.float32),
                                             V=np.ones((4, 1), np.float32)), ValueError, "reduce beta"),
    ("l1_change_grad-shape", lambda: pt.l1_change_grad(np.zeros((2, 3)), np.zeros((2, 4))), ValueError, "h must have"),
    ("l1_change_grad-ndim", lambda: pt.l1_change_grad(np.zeros(3), np.zeros(3)), ValueError, "x must be"),
]


@pytest.mark.parametrize("call, exc, msg", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_names_the_argument(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_every_public_function_has_bad_input_cases():
    covered = {b[0].split("-")[0] for b in BAD}
    public = {n for n in pt.__all__ if n[0].islower()}  # L1ChangeGrad, ChainBounds, … are records
    assert public <= covered, public - covered


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_any_temperature(dtype):
    """Logits ±1e4 in float32 and float64: finite, exact limits; float16 is computed in float32."""
    x = np.array([1e4, -1e4, 0.0], dtype)
    h = np.array([-2e4, 2e4, 0.0], dtype)
    assert float(pt.l1_change(x, h)) == 2.0
    assert pt.l1_change(x, h).dtype == dtype
    assert float(pt.tanh_bound(h)) == 2.0 and float(pt.oscillation(h)) == 4e4
    assert float(pt.lipschitz_bound(h, const=1.0)) == 2e4
    r = pt.tanh_ratio(np.concatenate([x, h])[None].astype(dtype))
    assert np.isfinite(r).all() and r[0] <= 1 + 1e-6
    assert pt.oscillation(np.array([1.0, 2.0], np.float16)).dtype == np.float32


def test_overflowing_oscillation_gives_the_limit_of_the_tanh_bound():
    assert float(pt.tanh_bound(np.array([1e308, -1e308]))) == 2.0
    assert float(pt.tanh_bound(np.array([3e38, -3e38], np.float32))) == 2.0


def test_tanh_sharp_instance_any_oscillation():
    for w in (1e-8, 1.0, 1399.0, 1401.0, 5e3, 1e300):
        x, h = pt.tanh_sharp_instance(4, w)
        assert np.isfinite(x).all()
        assert float(pt.l1_change(x, h)) == pytest.approx(2 * math.tanh(w / 4), rel=1e-9)


def test_batched_axes_agree_with_rows():
    rng = np.random.default_rng(3)
    x, h = rng.standard_normal((2, 5, 4))
    rows = np.array([float(pt.l1_change(x[i], h[i])) for i in range(5)])
    assert np.allclose(pt.l1_change(x, h), rows) and np.allclose(pt.l1_change(x.T, h.T, axis=0), rows)
    assert np.allclose(pt.tanh_bound(h.T, axis=0), pt.tanh_bound(h))


def test_chain_measure_large_eps_and_float32_against_dense():
    rng = np.random.default_rng(5)
    L = 20
    Q, K, V = rng.standard_normal((L, 3)), rng.standard_normal((L, 3)), rng.standard_normal((L, 2))
    for eps in (25.0, 1e3):
        res = pt.chain_measure(Q, K, V, eps, beta=1.0, block=8, rng=1)
        S = Q @ K.T
        A = softmax(S)
        # the adversarial row change approaches 2 tanh(ε/2) -> 2 and never exceeds it; every value is finite
        for m in res:
            assert all(np.isfinite(v) for v in m)
            assert m.row_l1 <= 2 * math.tanh(eps / 2) + 1e-12
        E = np.where(pt._adversarial_rows(A[:8], eps), eps, -eps)
        D = softmax(S[:8] + E) - A[:8]
        assert res.adversarial.row_l1 >= np.abs(D).sum(1).max() - 1e-12
    m64 = pt.chain_measure(Q, K, V, 0.1, beta=1.0, block=8, rng=0)
    m32 = pt.chain_measure(*(a.astype(np.float32) for a in (Q, K, V)), 0.1, beta=1.0, block=8, rng=0)
    m16 = pt.chain_measure(*(a.astype(np.float16) for a in (Q, K, V)), 0.1, beta=1.0, block=8, rng=0)
    for e64, e32, e16 in zip(m64, m32, m16):
        assert e32.A_fro == pytest.approx(e64.A_fro, rel=1e-4)
        assert np.isfinite(e16.A_fro)
    hot = pt.chain_measure(Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32), 0.1, beta=1e4, rng=0)
    assert all(np.isfinite(v) for m in hot for v in m)


@pytest.mark.parametrize("shape, scale", [((500, 7), 1.0), ((3, 40), 1.0), ((60, 1), 1.0), ((40, 3), 1e150)])
def test_chain_bounds_spectral_norm_against_svd(shape, scale):
    # from the smaller Gram matrix (tall or wide V), near the top of float64 too
    V = np.random.default_rng(8).standard_normal(shape) * scale
    V[:, 0] = V[:, -1]  # rank-deficient: the largest singular value is still found
    b = pt.chain_bounds(1e-300, 1, V)
    assert math.isclose(b.V_spec, np.linalg.svd(V, compute_uv=False)[0], rel_tol=1e-13)


def test_chain_measure_against_dense():
    rng = np.random.default_rng(4)
    L, d = 70, 5
    Q, K, V = rng.standard_normal((L, d)), rng.standard_normal((L, d)), rng.standard_normal((L, 3))
    res = pt.chain_measure(Q, K, V, 0.2, beta=0.7, block=16, rng=9)
    S = 0.7 * Q @ K.T
    A = softmax(S)
    for pert, m in zip(res._fields, res):
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
        assert m.row_l1 == pytest.approx(np.abs(D).sum(1).max(), rel=1e-10)
        assert m.A_fro == pytest.approx(np.linalg.norm(D), rel=1e-10)
        assert m.O_fro == pytest.approx(np.linalg.norm(D @ V), rel=1e-10)
        assert m.row_out == pytest.approx(np.linalg.norm(D @ V, axis=1).max(), rel=1e-10)
    # the adversarial rows are at least as bad as the random ones in row ℓ1, and near 2 tanh(ε/2) for diffuse rows
    assert res.adversarial.row_l1 >= 0.95 * 2 * math.tanh(0.1)


def test_l1_change_grad_against_l1_change_and_finite_differences():
    rng = np.random.default_rng(5)
    x, h = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    r = pt.l1_change_grad(x, h)
    assert np.allclose(r.change, [pt.l1_change(a, b) for a, b in zip(x, h)])
    e, t = np.eye(5)[1], 1e-6
    fd_x = (pt.l1_change(x[0] + t * e, h[0]) - pt.l1_change(x[0] - t * e, h[0])) / (2 * t)
    fd_h = (pt.l1_change(x[0], h[0] + t * e) - pt.l1_change(x[0], h[0] - t * e)) / (2 * t)
    assert r.grad_x[0, 1] == pytest.approx(fd_x, abs=1e-6) and r.grad_h[0, 1] == pytest.approx(fd_h, abs=1e-6)


# --------------------------------------------------------------------------- result objects
def test_instances_are_named_tuples_that_unpack():
    inst = pt.lipschitz_instance(0.1)
    assert isinstance(inst, pt.LipschitzInstance) and inst._fields == ("x", "h", "ratio")
    x, h, ratio = inst
    assert x is inst.x and h is inst.h and ratio == inst.ratio == pytest.approx(2 * math.tanh(0.05) / 0.1)
    sharp = pt.tanh_sharp_instance(3, 2.0)
    assert isinstance(sharp, pt.TanhSharpInstance) and sharp._fields == ("x", "h")
    x, h = sharp
    assert np.array_equal(h, [2.0, 0.0, 0.0]) and x is sharp.x
    two = pt.two_key_instance(16, 0.1)
    assert isinstance(two, pt.TwoKeyInstance) and isinstance(two.errors, pt.ChainErrors)
    errors, V = two
    assert V.shape == (16, 2) and errors.E_max == 0.1


def test_chain_results_keep_the_former_dict_spellings_with_a_warning():
    rng = np.random.default_rng(11)
    Q, K, V = (rng.standard_normal((12, 3)) for _ in range(3))
    b = pt.chain_bounds(0.1, 12, V)
    assert isinstance(b, pt.ChainBounds)
    assert b._fields == ("row_l1", "A_fro", "O_fro", "row_out", "sharp_row_l1", "sharp_A_fro", "sharp_row_out",
                         "sharp_O_fro", "V_fro", "V_spec", "V_rho")
    assert b.A_fro == pytest.approx(2 * 0.1 * math.sqrt(12)) and b.V_fro == pytest.approx(np.linalg.norm(V))
    m = pt.chain_measure(Q, K, V, 0.1, beta=1.0, rng=0)
    assert isinstance(m, pt.ChainMeasure) and m._fields == ("random", "adversarial")
    assert all(isinstance(e, pt.ChainErrors) for e in m)
    with pytest.warns(DeprecationWarning, match=r"\.A_fro"):
        assert b["A_fro"] == b.A_fro
    with pytest.warns(DeprecationWarning, match=r"\.adversarial"):
        adversarial = m["adversarial"]
    with pytest.warns(DeprecationWarning, match=r"\.row_l1"):
        assert adversarial["row_l1"] == m.adversarial.row_l1
    with pytest.warns(DeprecationWarning):
        assert set(m.keys()) == {"random", "adversarial"}
    with pytest.warns(DeprecationWarning):
        assert dict(b.items()) == b._asdict()


def test_deprecated_grad_flag_warns_and_gives_the_same_numbers():
    Z = np.random.default_rng(12).standard_normal((4, 6))
    for f, f_grad in ((pt.lipschitz_ratio, pt.lipschitz_ratio_grad), (pt.tanh_ratio, pt.tanh_ratio_grad)):
        new = f_grad(Z)
        assert isinstance(new, pt.RatioGrad) and new._fields == ("ratio", "grad") and new.grad.shape == (4, 6)
        with pytest.warns(DeprecationWarning, match=f"{f_grad.__name__}"):
            r, G = f(Z, grad=True)
        assert np.array_equal(r, new.ratio) and np.array_equal(G, new.grad)
        assert np.array_equal(f(Z, grad=False), new.ratio)
