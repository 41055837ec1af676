"""Section 12.1 (the decoder's structure): the exact operation counts, the window attention, and the four
experiments at the smoke scale against direct computations on the shipped heads."""
import math

import numpy as np
import pytest

from attnlab import attention_matrix
from attnlab.audit import decoder_heads
from attnlab.audit import decoder_structure as ds
from attnlab.audit.scale import preset

P = preset(ds.PRESETS, "smoke")


def test_cost_counts_are_the_sums_of_the_pairs():
    n, d = 50, 8
    assert ds.cost_counts(n, d, d, "exact") == dict(mac=n * (n + 1) // 2 * 2 * d, exp=n * (n + 1) // 2)
    for w in (1, 7, 50, 80):
        pairs = sum(min(i + 1, w) for i in range(n))
        assert ds.cost_counts(n, d, d, "window", w)["exp"] == pairs
        assert pairs == (w * n - w * (w - 1) // 2 if w <= n else n * (n + 1) // 2)
        assert ds.cost_counts(n, d, d, "window+sink", w)["exp"] == pairs + max(n - w, 0)
    assert ds.cost_counts(n, d, d, "favor", 16) == dict(mac=2 * n * 16 * d + 2 * n * 16 * (d + 1), exp=2 * n * 16)
    with pytest.raises(ValueError, match="method must be"):
        ds.cost_counts(n, d, d, "dense")


def test_window_attention_is_masked_causal_attention():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((20, 4)) for _ in range(3))
    assert np.allclose(ds.window_attention(Q, K, V, 20), attention_matrix(Q, K, causal=True) @ V, atol=1e-12)
    out = ds.window_attention(Q, K, V, 1)
    assert np.allclose(out, V, atol=1e-12)                       # a window of one: each token reads itself
    sink = ds.window_attention(Q, K, V, 1, sink=True)
    S = np.array([Q[i] @ K[[0, i]].T for i in range(20)]) / 2.0
    W = np.exp(S - S.max(axis=1, keepdims=True))
    W /= W.sum(axis=1, keepdims=True)
    expect = np.array([V[0]] + [W[i] @ V[[0, i]] for i in range(1, 20)])
    assert np.allclose(sink, expect, atol=1e-12)
    with pytest.raises(ValueError, match="w must be"):
        ds.window_attention(Q, K, V, 0)


def test_causal_pareto_at_smoke_scale():
    res = ds.causal_pareto_experiment(P, 0)
    exact = [r for r in res["rows"] if r["family"] == "exact"]
    assert exact and all(r["rel_err"] == 0 for r in exact)
    win = {r["layer"]: r["rel_err"] for r in res["rows"] if r["family"] == "window"}
    snk = {r["layer"]: r["rel_err"] for r in res["rows"] if r["family"] == "window+sink"}
    assert set(win) == set(P["layers"]) and all(np.isfinite(list(win.values())))
    assert all(r["mac"] < res["exact"]["mac"] for r in res["rows"] if r["family"].startswith("window"))
    assert min(snk.values()) <= max(win.values())


def _shipped(text=0):
    tid = decoder_heads._texts()[text]["id"]
    (h,) = [h for (t, _), h in decoder_heads.load_heads().items() if t == tid]
    return h


def test_position_sinks_and_gqa_match_direct_computations():
    h = _shipped()
    n = P["n"]
    A = attention_matrix(h["Q"][29, 4, :n], h["K"][29, 1, :n], causal=True)
    pos = [r for r in ds.position_experiment(P, 0) if r["layer"] == 29 and r["head"] == 4]
    assert [r["i"] for r in pos] == P["prefixes"]
    assert math.isclose(pos[-1]["sink_share"], (A[:, 0] ** 2).sum() / (A * A).sum(), rel_tol=1e-12)
    assert all(1 <= r["k90"] <= r["i"] for r in pos)
    sinks = ds.sink_experiment(P, 0)
    assert len(sinks) == 30 * 9 * len(P["sink_texts"])
    (row,) = [r for r in sinks if r["layer"] == 29 and r["head"] == 4]
    assert math.isclose(row["first"], A[P["sink_from"]:, 0].mean(), rel_tol=1e-12)    # at the preset's n
    assert all(0 <= r["first"] <= 1 for r in sinks)
    gqa = ds.gqa_experiment(P, 0)
    assert len(gqa) == len(P["layers"]) * 36 and sum(r["shared"] for r in gqa) == len(P["layers"]) * 9
    B = attention_matrix(h["Q"][0, 0, :n], h["K"][0, 0, :n], causal=True)
    C = attention_matrix(h["Q"][0, 1, :n], h["K"][0, 0, :n], causal=True)
    (pair,) = [r for r in gqa if (r["layer"], r["a"], r["b"]) == (0, 0, 1)]
    assert pair["shared"] and math.isclose(pair["tv"], 0.5 * np.abs(B - C)[P["sink_from"]:].sum(axis=1).mean())
