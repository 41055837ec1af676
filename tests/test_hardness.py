"""The hardness gadgets of seed 003 §5: instances, decoders tested with planted answers, and bad inputs."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab import hardness as hd


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
    _, info = hd.rowsum_search(Q, K, eta, B=B, oracle=hd.approximate_oracle(eta / 8))
    assert np.all(np.abs(info["log_S_hat"] - logS) <= 2 * math.log1p(eta) + 1e-12)
    assert info["max_abs_log_c"] <= math.log(m) + d * B * B + 3 * math.log1p(eta)


def test_sentinel_search_fails_with_a_too_large_oracle_error():
    rng = np.random.default_rng(0)
    Q, K = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
    logS = np.log(np.exp(Q @ K.T).sum(1))
    _, info = hd.rowsum_search(Q, K, 0.01, oracle=hd.approximate_oracle(0.3))
    assert np.abs(info["log_S_hat"] - logS).max() > 0.1


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


@pytest.mark.parametrize("n,d", [(8, 6), (64, 12)])
def test_ov_gap_with_and_without_planted_pairs(n, d):
    rng = np.random.default_rng(d)
    for planted in (0, 3):
        A, Bv = hd.random_ov_sets(n, d, rng, planted=planted)
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


def test_parity_scalings():
    assert math.exp(math.log(2) ** 2) == pytest.approx(1.61680667, abs=1e-8)
    ce = hd.parity_counterexample(math.log(2))
    assert ce is not None and ce["n"] * ce["d"] == 2
    assert hd.parity_counterexample(math.sqrt(math.log(2))) is None
    rng = np.random.default_rng(1)
    A, Bv = hd.random_ov_sets(12, 6, rng, planted=2)
    truth = ((A @ Bv.T) == 0).any(1)
    assert (hd.parity_decode(A, Bv, math.sqrt(math.log(2)), 24, np.random.default_rng(2)) == truth).all()


def test_lowrank_factorisation_and_printed_shapes():
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 20))
    K = rng.standard_normal((40, 20))
    Qp, Kp = hd.one_sided_factorisation(Q, K)
    assert Qp.shape == (50, 3) and Kp.shape == (40, 3)
    assert np.allclose(Qp @ Kp.T, Q @ K.T, atol=1e-10)
    with pytest.raises(ValueError):
        hd.printed_kprime_t(rng.standard_normal((20, 2)), rng.standard_normal((40, 2)), rng.standard_normal((20, 2)))


@pytest.mark.parametrize("T", [1e-4, 1.0, 1e3])
def test_temperature_absorbed(T):
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((20, 4)) for _ in range(3))
    a, b = hd.temperature_absorbed(Q, K, V, T)
    assert np.allclose(a, b, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="log_c must have one entry per query"):
        hd.sentinel_instance(np.zeros((2, 2)), np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="A and B must be 0/1"):
        hd.ov_instance(np.full((2, 2), 2.0), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="integer entries"):
        hd.maxip_instance(np.full((2, 2), 0.5), np.zeros((2, 2)), 3.0)
    with pytest.raises(ValueError, match="eta must lie"):
        hd.rowsum_search(np.zeros((2, 2)), np.zeros((2, 2)), 1.5)
    with pytest.raises(ValueError, match="T must be"):
        hd.temperature_absorbed(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), -1.0)
    with pytest.raises(ValueError, match="mode must be"):
        hd.approximate_oracle(0.1, mode="nope")
