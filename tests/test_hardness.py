"""The hardness gadgets of seed 003 §5 (library): instances, decoders tested with planted answers, huge inputs, and a
table of bad inputs for every public function."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlab
from attnlab.theory import hardness as hd

PUBLIC = ["sentinel_instance", "sentinel_attention", "approximate_oracle", "rowsum_search", "maxip_instance",
          "maxip_decode", "ov_instance", "ov_decode", "parity_instance", "parity_decode", "one_sided_factorisation",
          "temperature_absorbed"]
RECORDS = ["SentinelInstance", "RowsumSearch", "RowsumSearchInfo", "MaxIPInstance", "OVDecision", "ParityInstance",
           "OneSidedFactorisation", "TemperatureAbsorbed"]


def test_public_names():
    assert sorted(hd.__all__) == sorted(PUBLIC + RECORDS)
    for name in PUBLIC + RECORDS:
        assert getattr(attnlab, name) is getattr(hd, name)


def _ov_sets(n, d, rng, planted):
    """Random 0/1 sets with ``planted`` rows given an orthogonal partner."""
    A = (rng.random((n, d)) < 0.5).astype(float)
    Bv = (rng.random((n, d)) < 0.5).astype(float)
    for i, j in zip(rng.choice(n, planted, replace=False), rng.choice(n, planted, replace=False)):
        Bv[j] = (rng.random(d) < 0.5) * (1 - A[i])
    return A, Bv


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 20), m=st.integers(1, 20), d=st.integers(1, 4), B=st.floats(0.1, 6),
       seed=st.integers(0, 10**6))
def test_property_sentinel_identity_and_search(n, m, d, B, seed):
    rng = np.random.default_rng(seed)
    Q, K = rng.uniform(-B, B, (n, d)), rng.uniform(-B, B, (m, d))
    logS = np.log(np.exp(Q @ K.T).sum(1))
    log_c = rng.uniform(-5, 5, n)
    o = hd.sentinel_attention(Q, K, log_c)
    assert np.allclose(o, 1 / (1 + np.exp(log_c - logS)), atol=1e-12)
    eta = 0.05
    info = hd.rowsum_search(Q, K, eta, B=B, oracle=hd.approximate_oracle(eta / 8)).info
    assert np.all(np.abs(info.log_S_hat - logS) <= 2 * math.log1p(eta) + 1e-12)
    assert info.max_abs_log_c <= math.log(m) + d * B * B + 3 * math.log1p(eta)


def test_sentinel_search_fails_with_a_too_large_oracle_error():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    logS = np.log(np.exp(Q @ K.T).sum(1))
    info = hd.rowsum_search(Q, K, 0.01, oracle=hd.approximate_oracle(0.3)).info
    assert np.abs(info.log_S_hat - logS).max() > 0.1


def test_oracles():
    rng = np.random.default_rng(0)
    Q, K, V = rng.standard_normal((5, 2)), rng.standard_normal((6, 2)), rng.random((6, 1))
    exact = attnlab.attention(Q, K, V, beta=1.0)
    assert np.array_equal(hd.approximate_oracle(0.2, "exact")(Q, K, V), exact)
    noisy = hd.approximate_oracle(0.2, "random", rng=np.random.default_rng(1))(Q, K, V)
    assert 0 < np.abs(noisy - exact).max() <= 0.2
    adv = hd.approximate_oracle(0.2)(Q, K, V)
    assert np.allclose(np.abs(adv - 0.5), np.abs(np.abs(exact - 0.5) - 0.2))


def test_huge_sums_are_returned_as_logs_with_a_warning():
    Q, K = np.full((2, 1), 30.0), np.full((3, 1), 30.0)                 # S = 3·e^900: beyond float64
    with pytest.warns(RuntimeWarning, match="log_S_hat"):
        S_hat, info = hd.rowsum_search(Q, K, 0.01)
    assert np.isinf(S_hat).all() and np.all(np.abs(info.log_S_hat - (900 + math.log(3))) <= 2 * math.log1p(0.01))


def test_huge_but_finite_scores_in_the_sentinel():
    Q, K = np.array([[1e150], [-1e150]]), np.array([[1e150], [2e150]])   # scores ±1e300 and ±2e300: finite
    o = hd.sentinel_attention(Q, K, np.zeros(2))
    assert o.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("n", [5, 40])
def test_maxip_decoder_recovers_planted_maximum(n):
    rng = np.random.default_rng(n)
    A = rng.integers(-2, 3, (n, 3))
    Bv = rng.integers(-2, 3, (n, 3))
    Bv[0] = [3, 3, 3]                 # planted: row i's maximum is 3·sum(a_i) when positive
    A[:, :] = np.abs(A)
    truth = (A @ Bv.T).max(1)
    assert (hd.maxip_decode(A, Bv, C0=4 * math.log(n) + 2) == truth).all()


def test_maxip_ties_need_c0_above_2_log_n():
    n = 64
    A = np.array([[1, 0]]); Bv = np.tile([[2, 5]], (n, 1))   # every key ties at M = 2
    assert hd.maxip_decode(A, Bv, C0=2 * math.log(n) + 1)[0] == 2
    assert hd.maxip_decode(A, Bv, C0=2 * math.log(n) - 1)[0] == 3


def test_maxip_decode_with_huge_sums_is_silent_and_exact():
    A = np.array([[10, 10]]); Bv = np.array([[10, 10], [0, 1]])      # e^{C0·200} overflows: decoded from the log
    assert hd.maxip_decode(A, Bv, C0=8.0).tolist() == [200]


@pytest.mark.parametrize("n,d", [(8, 6), (64, 12)])
def test_ov_gap_with_and_without_planted_pairs(n, d):
    rng = np.random.default_rng(d)
    for planted in (0, 3):
        A, Bv = _ov_sets(n, d, rng, planted)
        truth = ((A @ Bv.T) == 0).any(1)
        if planted:
            assert truth.sum() >= 3
        o, dec = hd.ov_decode(A, Bv)
        assert (dec == truth).all()
        assert (o[~truth] <= 1 / 6 + 1e-12).all() and (o[truth] >= 2 / 3 - 1e-12).all()


def test_ov_tight_instance_reaches_one_sixth():
    A = np.array([[1.0, 0, 0]]); Bv = np.tile([[1.0, 0, 0]], (10, 1))
    o, dec = hd.ov_decode(A, Bv)
    assert o[0] == pytest.approx(1 / 6, abs=1e-14) and not dec[0]


def test_parity_decoding_with_the_corrected_scale():
    rng = np.random.default_rng(1)
    A, Bv = _ov_sets(12, 6, rng, planted=2)
    truth = ((A @ Bv.T) == 0).any(1)
    assert (hd.parity_decode(A, Bv, math.sqrt(math.log(2)), 24, rng=np.random.default_rng(2)) == truth).all()
    Q, K = hd.parity_instance(A, Bv, math.sqrt(math.log(2)))
    assert np.allclose(np.exp(Q @ K.T), 2.0 ** (A @ Bv.T))


def test_parity_repair_within_log2_by_duplicating_coordinates():
    rng = np.random.default_rng(3)
    A, Bv = _ov_sets(12, 6, rng, planted=2)
    truth = ((A @ Bv.T) == 0).any(1)
    s = math.sqrt(math.log(2) / 2)
    Q, K = hd.parity_instance(A, Bv, s, copies=2)
    assert Q.shape == (12, 12) and max(Q.max(), K.max()) < math.log(2)
    assert np.allclose(np.exp(Q @ K.T), 2.0 ** (A @ Bv.T), rtol=1e-14)
    assert (hd.parity_decode(A, Bv, s, 24, rng=np.random.default_rng(2), copies=2) == truth).all()
    # the printed scaling, duplicated or not, does not give powers of two
    Q1, K1 = hd.parity_instance(A, Bv, math.log(2), copies=2)
    assert not np.allclose(np.exp(Q1 @ K1.T), 2.0 ** (A @ Bv.T))


@pytest.mark.parametrize("B", [0.25, 1.0, 3.0])
def test_spread_sentinel_keeps_entries_within_B(B):
    rng = np.random.default_rng(4)
    Q, K = rng.uniform(-B, B, (9, 3)), rng.uniform(-B, B, (11, 3))
    log_c = rng.uniform(-20, 20, 9)
    Qs, Ks, Vs = hd.sentinel_instance(Q, K, log_c, B=B)
    w = Qs.shape[1] - 3
    assert w == max(1, math.ceil(np.abs(log_c).max() / B ** 2))
    assert max(np.abs(Qs).max(), np.abs(Ks).max()) <= B * (1 + 1e-12)
    assert np.allclose((Qs @ Ks.T)[:, -1], log_c, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(hd.sentinel_attention(Q, K, log_c, B=B), hd.sentinel_attention(Q, K, log_c),
                               rtol=1e-12, atol=1e-15)
    S = np.exp(Q @ K.T).sum(1)
    info = hd.rowsum_search(Q, K, 0.02, B=B, spread=True).info
    info0 = hd.rowsum_search(Q, K, 0.02, B=B).info
    assert np.array_equal(info.log_S_hat, info0.log_S_hat)
    assert np.abs(info.log_S_hat - np.log(S)).max() <= math.log(1.02)
    assert info.max_abs_entry <= B * (1 + 1e-12) and info.max_width > 4
    assert info0.max_abs_entry > B and info0.max_width == 4


def test_lowrank_factorisation():
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 20))
    K = rng.standard_normal((40, 20))
    Qp, Kp = hd.one_sided_factorisation(Q, K)
    assert Qp.shape == (50, 3) and Kp.shape == (40, 3)
    assert np.allclose(Qp @ Kp.T, Q @ K.T, atol=1e-10)
    Qp, Kp = hd.one_sided_factorisation(Q, K, r=5)
    assert Qp.shape == (50, 5) and np.allclose(Qp @ Kp.T, Q @ K.T, atol=1e-10)
    Qz, Kz = hd.one_sided_factorisation(np.zeros((4, 3)), K[:, :3])
    assert Qz.shape == (4, 1) and np.allclose(Qz @ Kz.T, 0)


@pytest.mark.parametrize("T", [1e-4, 1.0, 1e3])
def test_temperature_absorbed(T):
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((20, 4)) for _ in range(3))
    a, b = hd.temperature_absorbed(Q, K, V, T)
    assert np.allclose(a, b, atol=1e-12)


def test_temperature_at_the_edge_of_float64():
    Q = K = np.eye(2); V = np.array([[1.0], [0.0]])
    a, b = hd.temperature_absorbed(Q, K, V, 1e-300)              # scores 1e300: the argmax, exactly
    assert a.ravel().tolist() == [1.0, 0.0] and np.array_equal(a, b)
    with pytest.raises(ValueError, match="T = 1e-310 is too small"):
        hd.temperature_absorbed(Q, K, V, 1e-310)


# --------------------------------------------------------------------------- bad input, every public function
Z22, Z32 = np.zeros((2, 2)), np.zeros((3, 2))
B01 = np.array([[1.0, 0.0], [0.0, 1.0]])
RNG = np.random.default_rng(0)


def _nan(shape):
    return np.full(shape, np.nan)


def _wrong_shape_oracle(Q, K, V):
    return np.zeros((Q.shape[0], 2))


def _nan_oracle(Q, K, V):
    return np.full((Q.shape[0], V.shape[1]), np.nan)


BAD = [
    # sentinel_instance
    (hd.sentinel_instance, (Z22, Z32, np.zeros(3)), {}, ValueError, "log_c must have one entry per query"),
    (hd.sentinel_instance, (np.zeros(2), Z32, np.zeros(2)), {}, ValueError, "Q must be 2-dimensional"),
    (hd.sentinel_instance, (Z22, np.zeros((3, 3)), np.zeros(2)), {}, ValueError, "Q and K must have the same width"),
    (hd.sentinel_instance, (np.zeros((0, 2)), Z32, np.zeros(0)), {}, ValueError, "non-empty"),
    (hd.sentinel_instance, (_nan((2, 2)), Z32, np.zeros(2)), {}, ValueError, "Q contains NaN"),
    (hd.sentinel_instance, (Z22, Z32, np.array([0.0, np.inf])), {}, ValueError, "log_c contains NaN or inf"),
    (hd.sentinel_instance, ("ab", Z32, np.zeros(2)), {}, TypeError, "Q must be a real"),
    (hd.sentinel_instance, (Z22, np.zeros((3, 2), complex), np.zeros(2)), {}, TypeError, "K must be a real"),
    # sentinel_attention
    (hd.sentinel_attention, (Z22, Z32, np.zeros(2)), dict(oracle="attention"), TypeError, "oracle must be callable"),
    (hd.sentinel_attention, (Z22, Z32, np.zeros(2)), dict(oracle=_wrong_shape_oracle), ValueError,
     r"oracle must return an array of shape \(2, 1\)"),
    (hd.sentinel_attention, (Z22, Z32, np.zeros(2)), dict(oracle=_nan_oracle), ValueError, "oracle returned NaN"),
    (hd.sentinel_attention, (Z22, Z32, np.zeros(2)), dict(oracle=lambda Q, K, V: [[0.5]] * 2), ValueError,
     "oracle must return an array"),
    (hd.sentinel_attention, (Z22, Z32), {}, TypeError, "log_c"),
    # approximate_oracle
    (hd.approximate_oracle, (-0.1,), {}, ValueError, "eps must be (finite|>= 0)"),
    (hd.approximate_oracle, (float("nan"),), {}, ValueError, "eps must be (finite|>= 0)"),
    (hd.approximate_oracle, (float("inf"),), {}, ValueError, "eps must be (finite|>= 0)"),
    (hd.approximate_oracle, (True,), {}, TypeError, "eps must be a real number"),
    (hd.approximate_oracle, ("0.1",), {}, TypeError, "eps must be a real number"),
    (hd.approximate_oracle, (0.1,), dict(mode="nope"), ValueError, "mode must be"),
    (hd.approximate_oracle, (0.1,), dict(mode=3), TypeError, "mode must be a string"),
    (hd.approximate_oracle, (0.1,), dict(mode="random"), ValueError, "needs rng"),
    (hd.approximate_oracle, (0.1,), dict(mode="random", rng=np.random.RandomState(0)), TypeError,
     "rng must be"),
    (hd.approximate_oracle, (0.1,), dict(threshold=float("inf")), ValueError, "threshold must be finite"),
    (hd.approximate_oracle, (0.1,), dict(threshold=None), TypeError, "threshold must be a real number"),
    # rowsum_search
    (hd.rowsum_search, (Z22, Z22, 1.5), {}, ValueError, "eta must lie"),
    (hd.rowsum_search, (Z22, Z22, 0.0), {}, ValueError, "eta must lie"),
    (hd.rowsum_search, (Z22, Z22, "0.1"), {}, TypeError, "eta must be a real number"),
    (hd.rowsum_search, (Z22, Z22, 0.1), dict(B=-1.0), ValueError, "B must be a finite number > 0"),
    (hd.rowsum_search, (Z22, Z22, 0.1), dict(B=True), TypeError, "B must be a real number"),
    (hd.rowsum_search, (np.ones((2, 2)), Z22, 0.1), dict(B=0.5), ValueError, "B must bound every entry"),
    (hd.rowsum_search, (np.full((2, 2), 1e100), Z22, 0.1), {}, ValueError, "B is too large"),
    (hd.rowsum_search, (Z22, Z22, 0.1), dict(oracle=3), TypeError, "oracle must be callable"),
    (hd.rowsum_search, (Z22, Z22, 0.1), dict(oracle=_wrong_shape_oracle), ValueError, "oracle must return"),
    (hd.rowsum_search, (Z22, np.zeros((2, 3)), 0.1), {}, ValueError, "same width"),
    (hd.rowsum_search, (_nan((2, 2)), Z22, 0.1), {}, ValueError, "Q contains NaN"),
    # maxip_instance
    (hd.maxip_instance, (np.full((2, 2), 0.5), Z22, 3.0), {}, ValueError, "integer entries"),
    (hd.maxip_instance, (Z22, Z22, 0.0), {}, ValueError, "C0 must be a finite number > 0"),
    (hd.maxip_instance, (Z22, Z22, float("inf")), {}, ValueError, "C0 must be a finite number > 0"),
    (hd.maxip_instance, (Z22, Z22, True), {}, TypeError, "C0 must be a real number"),
    (hd.maxip_instance, (Z22, np.zeros((2, 3)), 1.0), {}, ValueError, "A and Bv must have the same width"),
    (hd.maxip_instance, (np.zeros(2), Z22, 1.0), {}, ValueError, "A must be 2-dimensional"),
    (hd.maxip_instance, (Z22, _nan((2, 2)), 1.0), {}, ValueError, "Bv contains NaN"),
    (hd.maxip_instance, (np.full((1, 1), 1e300), np.ones((1, 1)), 1e10), {}, ValueError, "C0 \\* A overflows"),
    # maxip_decode
    (hd.maxip_decode, (Z22, Z22, 1.0), dict(eta=1.0), ValueError, "eta must lie"),
    (hd.maxip_decode, (Z22, Z22, 1.0), dict(oracle="x"), TypeError, "oracle must be callable"),
    (hd.maxip_decode, (np.full((1, 1), 1e100), np.ones((1, 1)), 1.0), {}, ValueError, "C0 .* is too large"),
    (hd.maxip_decode, (np.full((2, 2), 0.5), Z22, 3.0), {}, ValueError, "integer entries"),
    # ov_instance
    (hd.ov_instance, (np.full((2, 2), 2.0), Z22), {}, ValueError, "A and Bv must be 0/1"),
    (hd.ov_instance, (B01, B01), dict(c=0.0), ValueError, "c must be a finite number > 0"),
    (hd.ov_instance, (B01, np.ones((2, 3))), {}, ValueError, "same width"),
    (hd.ov_instance, (B01, [[0, 1], [1]]), {}, TypeError, "Bv must be an array"),
    (hd.ov_instance, (B01, _nan((2, 2))), {}, ValueError, "Bv contains NaN"),
    # ov_decode
    (hd.ov_decode, (B01, B01), dict(oracle=1.0), TypeError, "oracle must be callable"),
    (hd.ov_decode, (B01, B01), dict(oracle=_nan_oracle), ValueError, "oracle returned NaN"),
    (hd.ov_decode, (np.full((2, 2), 0.5), B01), {}, ValueError, "0/1"),
    (hd.sentinel_instance, (Z22, Z32, np.zeros(2)), dict(B=0.0), ValueError, "B must be a finite number > 0"),
    (hd.sentinel_instance, (Z22, Z32, np.zeros(2)), dict(B="1"), TypeError, "B must be a real number"),
    (hd.sentinel_instance, (Z22, Z32, np.array([1e300, 0.0])), dict(B=1e-3), ValueError, "B = 0.001 is too small"),
    (hd.rowsum_search, (Z22, Z32, 0.1), dict(spread="yes"), TypeError, "spread must be a bool"),
    # parity_instance
    (hd.parity_instance, (B01, B01, 1.0), dict(copies=0), ValueError, "copies must be >= 1"),
    (hd.parity_instance, (B01, B01, 1.0), dict(copies=1.5), TypeError, "copies must be an integer"),
    (hd.parity_decode, (B01, B01, 0.5, 3), dict(rng=RNG, copies=True), TypeError, "copies must be an integer"),
    (hd.parity_instance, (B01, B01, 0.0), {}, ValueError, "scale must be a finite number > 0"),
    (hd.parity_instance, (B01, B01, "1"), {}, TypeError, "scale must be a real number"),
    (hd.parity_instance, (B01 * 3, B01, 1.0), {}, ValueError, "0/1"),
    # parity_decode
    (hd.parity_decode, (B01, B01, 0.8, 0), {"rng": RNG}, ValueError, "rounds must be >= 1"),
    (hd.parity_decode, (B01, B01, 0.8, 2.0), {"rng": RNG}, TypeError, "rounds must be an integer"),
    (hd.parity_decode, (B01, B01, 0.8, True), {"rng": RNG}, TypeError, "rounds must be an integer"),
    (hd.parity_decode, (B01, B01, 0.8, 3), {"rng": 0.5}, TypeError, "rng must be"),
    (hd.parity_decode, (B01, B01, 0.8, 3), {"rng": np.random.RandomState(0)}, TypeError, "rng must be"),
    (hd.parity_decode, (np.ones((1, 2)), np.ones((40, 2)), 10.0, 3), {"rng": RNG}, ValueError,
     "scale = 10 is too large"),
    (hd.parity_decode, (B01, B01, -1.0, 3), {"rng": RNG}, ValueError, "scale must be"),
    # one_sided_factorisation
    (hd.one_sided_factorisation, (Z22, Z32), dict(r=0), ValueError, "r must be >= 1"),
    (hd.one_sided_factorisation, (Z22, Z32), dict(r=3), ValueError, r"r must be at most min\(n, d\) = 2"),
    (hd.one_sided_factorisation, (Z22, Z32), dict(r=1.0), TypeError, "r must be an integer"),
    (hd.one_sided_factorisation, (Z22, Z32), dict(r=True), TypeError, "r must be an integer"),
    (hd.one_sided_factorisation, (Z22, np.zeros((3, 3))), {}, ValueError, "same width"),
    (hd.one_sided_factorisation, (_nan((2, 2)), Z32), {}, ValueError, "Q contains NaN"),
    # temperature_absorbed
    (hd.temperature_absorbed, (Z22, Z22, Z22, -1.0), {}, ValueError, "T must be a finite number > 0"),
    (hd.temperature_absorbed, (Z22, Z22, Z22, float("inf")), {}, ValueError, "T must be a finite number > 0"),
    (hd.temperature_absorbed, (Z22, Z22, Z22, None), {}, TypeError, "T must be a real number"),
    (hd.temperature_absorbed, (Z22, Z22, Z22, 1e-320), {}, ValueError, "T = .* is too small"),
    (hd.temperature_absorbed, (Z22, Z32, Z22, 1.0), {}, ValueError, "K and V must have the same number of rows"),
    (hd.temperature_absorbed, (Z22, Z22, _nan((2, 2)), 1.0), {}, ValueError, "V contains NaN"),
]


@pytest.mark.parametrize("f, args, kwargs, exc, words", BAD,
                         ids=[f"{b[0].__name__}-{i}" for i, b in enumerate(BAD)])
def test_bad_input(f, args, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        f(*args, **kwargs)


def test_every_public_function_has_bad_cases():
    assert {b[0].__name__ for b in BAD} == set(PUBLIC)


def test_sentinel_attention_at_scores_beyond_float64():
    """Scores 1e400 overflow float64, but attention is defined at any temperature: S_i/(S_i + c_i) -> 1."""
    o = hd.sentinel_attention(np.full((1, 1), 1e200), np.full((2, 1), 1e200), np.zeros(1))
    assert np.isfinite(o).all() and o[0] == 1.0


def test_temperature_absorbed_beyond_float64_is_the_argmax_limit():
    """Scores 4e400 overflow float64; attention is defined at any temperature, so both routes give the limit."""
    V = np.array([[1.0], [0.0]])
    a, b = hd.temperature_absorbed(np.ones((2, 2)) * 1e200, np.ones((2, 2)) * 1e200, V, 1.0)
    assert np.isfinite(a).all() and np.array_equal(a, b) and np.allclose(a, 0.5)


# --------------------------------------------------------------------------- result objects
def test_instances_and_decoders_return_records_that_unpack():
    rng = np.random.default_rng(21)
    Q, K, V = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    A, Bv = np.array([[1, 0], [1, 1]]), np.array([[0, 1], [1, 1]])
    cases = [
        (hd.sentinel_instance(Q, K, np.zeros(3)), hd.SentinelInstance, ("Q", "K", "V")),
        (hd.ov_instance(A, Bv), hd.SentinelInstance, ("Q", "K", "V")),
        (hd.maxip_instance(A, Bv, 2.0), hd.MaxIPInstance, ("Q", "K")),
        (hd.ov_decode(A, Bv), hd.OVDecision, ("o", "decision")),
        (hd.parity_instance(A, Bv, 0.5), hd.ParityInstance, ("Q", "K")),
        (hd.one_sided_factorisation(Q, K), hd.OneSidedFactorisation, ("Qp", "Kp")),
        (hd.temperature_absorbed(Q, K, V, 0.5), hd.TemperatureAbsorbed, ("direct", "absorbed")),
    ]
    for res, cls, fields in cases:
        assert isinstance(res, cls) and res._fields == fields
        assert all(a is b for a, b in zip(res, (getattr(res, f) for f in fields)))
    Qs, Ks, Vs = cases[0][0]
    assert Qs.shape == (3, 3) and Ks.shape == (5, 3) and Vs.ravel().tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    o, decision = cases[3][0]
    assert decision.tolist() == [True, False] and np.array_equal(decision, o > 5 / 12)
    Qp, Kp = cases[5][0]
    assert np.allclose(Qp @ Kp.T, Q @ K.T, rtol=1e-12, atol=1e-12)
    direct, absorbed = cases[6][0]
    assert np.allclose(direct, absorbed, rtol=1e-12)


def test_rowsum_search_info_keeps_the_former_dict_spellings_with_a_warning():
    rng = np.random.default_rng(22)
    Q, K = rng.standard_normal((4, 2)), rng.standard_normal((6, 2))
    res = hd.rowsum_search(Q, K, 0.05)
    assert isinstance(res, hd.RowsumSearch) and res._fields == ("S_hat", "info")
    S_hat, info = res
    assert isinstance(info, hd.RowsumSearchInfo) and S_hat is res.S_hat
    assert info._fields == ("rounds", "max_abs_log_c", "B", "d", "n_keys", "log_S_hat", "max_width", "max_abs_entry")
    assert (info.d, info.n_keys, info.max_width) == (2, 6, 3) and np.array_equal(np.exp(info.log_S_hat), S_hat)
    with pytest.warns(DeprecationWarning, match=r"\.rounds"):
        assert info["rounds"] == info.rounds > 0
    with pytest.warns(DeprecationWarning):
        assert set(info.keys()) == set(info._fields)
