"""Chapter 02 (claims PDA-lip, AR-tanh, PDA-chain): the searches, experiments, slope fits and checks."""
import math

import numpy as np
import pytest

from attnlab.audit import softmax_stability as ss
from attnlab.audit.scale import preset


def test_chain_experiment_smoke_has_sqrtL_real_and_slopes():
    rows = ss.chain_experiment(preset(ss.PRESETS, "smoke"), 0)
    tk = [r for r in rows if r["kind"] == "two-key"]
    assert all(r["r_A_fro"] == pytest.approx(math.sqrt(2) * math.tanh(0.05) / 0.2, rel=1e-9) for r in tk)
    slopes = {(s["kind"], s["perturbation"]): s for s in ss.chain_slopes(rows)}
    assert slopes[("two-key", "swap")]["slope"] == 0.0
    assert slopes[("random", "random")]["slope"] < -0.25  # diffuse attention: the √L is slack
    assert max(r["r_row_l1"] for r in rows) < 0.5


def test_worst_case_vs_osc_attains_tanh():
    sw = ss.worst_case_vs_osc([0.1, 2.0, 20.0], 3, 4, np.random.default_rng(0), maxiter=80)
    assert np.all(sw["worst"] <= sw["tanh"] * (1 + 1e-9))
    assert np.all(sw["worst"] >= sw["tanh"] * (1 - 1e-4))


def test_searches_stay_below_the_bounds_and_find_the_sharp_cases():
    rng = np.random.default_rng(0)
    lip = ss.lipschitz_search([2, 5], 4, rng, maxiter=40, sample_n=200)
    assert all(r["sampled"] <= r["sup"] <= 1 + 1e-9 for r in lip)
    tn = ss.tanh_search([1, 2, 4], 4, rng, maxiter=40)
    assert tn[0]["sup"] == 0.0 and all(r["sup"] <= 1 + 1e-9 for r in tn)
    assert tn[1]["sup"] > 1 - 1e-6  # two keys: the bound is attained


def test_kind_rejects_unknown():
    with pytest.raises(ValueError, match="kind"):
        ss._kind("nope", 4, 2, 2, np.random.default_rng(0))


def _lip_data(sup):
    return dict(search=[dict(L=2, sup=sup, sampled=sup / 2)], instance=[dict(t=1e-3, ratio=1 - 1e-7)])


@pytest.mark.parametrize("sup, verdict", [(2.5, "refuted"), (1.0, "loose"), (1.95, "verified")])
def test_check_pda_lip_applies_its_stated_rules(sup, verdict):
    assert ss.check_pda_lip("smoke", data=_lip_data(sup)).verdict == verdict


def _tanh_data(sup, sharp):
    return dict(search=[dict(L=2, sup=sup)], sweep=dict(worst=[0.5], tanh=[1.0]),
                sharp=[dict(l1=sharp, bound=1.0)])


@pytest.mark.parametrize("sup, sharp, verdict", [(1.01, 1.0, "refuted"), (1.0, 1.0, "verified"),
                                                 (0.9, 1.0, "loose"), (1.0, 1.5, "refuted")])
def test_check_ar_tanh_applies_its_stated_rules(sup, sharp, verdict):
    assert ss.check_ar_tanh("smoke", data=_tanh_data(sup, sharp)).verdict == verdict


def test_check_pda_chain_refutes_an_exceeded_link():
    rows = ss.chain_experiment(preset(ss.PRESETS, "smoke"), 0)
    assert ss.check_pda_chain("smoke", data=rows).verdict in ("loose", "verified")
    bad = [dict(r) for r in rows]
    bad[0]["r_O_fro"] = 1.5
    assert ss.check_pda_chain("smoke", data=bad).verdict == "refuted"


# --------------------------------------------------------------------------- PDA-amplify
def test_worst_l1_over_h_is_exact():
    rng = np.random.default_rng(0)
    x = 3 * rng.standard_normal((6, 5))
    eps = 0.4
    w, A = ss.worst_l1_over_h(x, eps)
    from attnlab import l1_change
    h = eps * (2 * A - 1)
    assert np.allclose(l1_change(x, h), w, rtol=1e-12)             # the maximising h attains it
    H = eps * rng.uniform(-1, 1, (4000, 1, 5))                     # no h in the box does better
    change = l1_change(np.broadcast_to(x, H.shape[:1] + x.shape), np.broadcast_to(H, (4000, 6, 5)))
    assert np.all(change <= w * (1 + 1e-12))
    assert np.all(w <= 2 * math.tanh(eps / 2) * (1 + 1e-12))
    w32, _ = ss.worst_l1_over_h(x.astype(np.float32), eps)
    assert w32.dtype == np.float32 and np.allclose(w32, w, atol=1e-6)
    with pytest.raises(ValueError, match="x"):
        ss.worst_l1_over_h(np.zeros((1, 17)), eps)


@pytest.mark.parametrize("s", [1.0, 30.0, 1e4])
@pytest.mark.parametrize("L", [3, 6])
def test_worst_over_osc_is_attained(s, L):
    eps = 0.5
    sup = ss.worst_l1_over_osc(s, L, eps)
    inst = ss.worst_instance(s, L, eps)
    assert inst["osc"] == pytest.approx(s) and inst["worst"] == pytest.approx(sup, rel=1e-12)
    assert inst["direct"] == pytest.approx(sup, rel=1e-9) and sup <= 2 * math.tanh(eps / 2) * (1 + 1e-12)
    assert ss.worst_l1_over_osc(s, 2, eps) < sup  # two keys: osc fixes x, and the worst case falls with s


def test_relative_change_bound_and_literal():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4))
    eps = 0.3
    r = ss.worst_relative_change(x, eps)
    from attnlab import softmax
    p = softmax(x)
    i = p.argmin(axis=1)
    h = np.full_like(x, -eps)
    h[np.arange(5), i] = eps
    lit = softmax(x + h)[np.arange(5), i] / p[np.arange(5), i] - 1
    assert np.allclose(r, lit, rtol=1e-12) and np.all(r <= math.expm1(2 * eps))
    assert ss.worst_relative_change(np.array([[0.0, -1e4]]), eps)[0] == pytest.approx(math.expm1(2 * eps))


def _amp_data(worst_by_s, eps=0.1):
    rows = [dict(eps=eps, s=s, sup=w, attained=w, direct=w, typical=w / 2, rel_typical=0.1, rel_bound=0.2,
                 f32_diff=0.0) for s, w in worst_by_s.items()]
    proj = dict(s=[1.0, 1e4], h_inf=[1.0, 1e4], row_l1=[0.1, 2.0], ratio=[0.5, 0.1])
    return dict(rows=rows, projection=proj, s_min=min(worst_by_s), s_max=max(worst_by_s), L=[3])


@pytest.mark.parametrize("worst, verdict", [
    ({1.0: 0.0999, 1e4: 0.0999}, "refuted"),     # bounded by ε and flat: the book's finding
    ({1.0: 0.15, 1e4: 0.15}, "corrected"),       # amplifies, but not more at large logits
    ({1.0: 0.02, 1e4: 0.05}, "corrected"),       # grows with the logits, never beyond ε
    ({1.0: 0.08, 1e4: 0.2}, "verified"),         # both
])
def test_check_pda_amplify_applies_its_stated_rule(worst, verdict):
    assert ss.check_pda_amplify("smoke", data=_amp_data(worst)).verdict == verdict


def test_amplify_experiment_smoke():
    p = preset(ss.PRESETS, "smoke")
    amp = ss.amplify_experiment(p, 0)
    v = ss.check_pda_amplify("smoke", data=amp)
    assert v == ss.check_pda_amplify("smoke") and v.verdict == "refuted"
    for r in amp["rows"]:
        assert r["sup"] == pytest.approx(r["tanh"], rel=1e-9) and r["attained"] == pytest.approx(r["sup"], rel=1e-9)
        assert r["f32_diff"] < 1e-4 and r["rel_typical"] <= r["rel_bound"] * (1 + 1e-12)


def test_check_pda_chain_reaches_every_verdict():
    rows = ss.chain_experiment(preset(ss.PRESETS, "smoke"), 0)
    keys = ("r_row_l1", "r_A_fro", "r_O_fro", "r_row_out")
    skeys = ("s_row_l1", "s_A_fro", "s_O_fro", "s_row_out", "s_O_spec")
    loose = [dict(r, **{k: 0.4 for k in keys}, **{k: 0.9 for k in skeys}) for r in rows]
    assert ss.check_pda_chain("smoke", data=loose).verdict == "loose"
    used = [dict(r, **{k: 0.8 for k in keys}, **{k: 0.9 for k in skeys}) for r in rows]
    assert ss.check_pda_chain("smoke", data=used).verdict == "verified"
    sharp_fails = [dict(r, **{k: 0.4 for k in keys}, **{k: 1.2 for k in skeys}) for r in rows]
    assert ss.check_pda_chain("smoke", data=sharp_fails).verdict == "verified"
    bad = [dict(r, **{k: 0.4 for k in keys}) for r in rows]
    bad[-1]["r_row_l1"] = 1.01
    assert ss.check_pda_chain("smoke", data=bad).verdict == "refuted"


# ---- presentation (issue 18): headlines that stand alone, figures without zeros on log axes
def test_headlines_are_whole_findings_with_rounded_numbers():
    import re

    verdicts = [ss.check_pda_amplify("smoke", data=_amp_data(w)) for w in (
        {1.0: 0.0999, 1e4: 0.0999}, {1.0: 0.15, 1e4: 0.15}, {1.0: 0.02, 1e4: 0.05}, {1.0: 0.08, 1e4: 0.2})]
    verdicts += [ss.check_pda_lip("smoke", data=_lip_data(s)) for s in (0.999, 1.95, 2.5)]
    verdicts += [ss.check_ar_tanh("smoke", data=_tanh_data(s, sh)) for s, sh in ((1.0, 1.0), (0.9, 0.9), (1.1, 1.0))]
    rows = ss.chain_experiment(preset(ss.PRESETS, "smoke"), 0)
    verdicts.append(ss.check_pda_chain("smoke", data=rows))
    assert {v.verdict for v in verdicts} >= {"verified", "loose", "corrected", "refuted"}
    for v in verdicts:
        assert not v.headline.endswith("…") and len(v.headline) <= 160, v.headline
        assert not re.search(r"\b(True|False)\b|e\^\(|\d\.\d{7,}", v.summary), v.summary


def test_chain_and_amplify_figures_keep_to_six_curves_and_mask_zeros():
    p = preset(ss.PRESETS, "smoke")
    fig, _ = ss.plot_chain(ss.chain_experiment(p, 0))
    assert all(len(ax.get_lines()) <= 6 for ax in fig.axes)
    amp = ss.amplify_experiment(p, 0)
    fig, data = ss.plot_amplify(amp)
    assert all(len(ax.get_lines()) <= 6 for ax in fig.axes)
    for ln in fig.axes[0].get_lines():
        y = np.asarray(ln.get_ydata(), float)
        assert not np.any(y <= 0)  # zeros are masked (NaN), never drawn on the log axis


# ---- PDA-sqrtL
def test_sqrtl_worst_search_reaches_and_never_exceeds_the_exact_worst_case():
    rows = ss.sqrtl_worst_search([2, 6], 0.1, 8, np.random.default_rng(0))
    for r in rows:
        assert r["bound"] == pytest.approx(math.sqrt(2) * math.tanh(0.05) / 0.2)
        assert (1 - 1e-3) * r["bound"] <= r["sup"] <= r["bound"] * (1 + 1e-9)


def _sqrtl_data(worst=1.0, real_slopes=(-0.2, -0.1, -0.15), diffuse_hi=-0.3):
    b = math.sqrt(2) * math.tanh(0.05) / 0.2
    real = [dict(text="t", layer=0, head=i, n=[64, 128, 256], r=[0.1, 0.09, 0.08], slope=s)
            for i, s in enumerate(real_slopes)]
    chain = [dict(kind=k, perturbation="random", L=L, r_A_fro=v * L ** sl) for k, sl, v in
             (("random", diffuse_hi - 0.05, 0.1), ("sharp", 0.0, 0.3)) for L in (64, 256, 1024)]
    chain[3]["r_A_fro"] *= 1.01  # the sharp series is flat, up to noise
    chain[5]["r_A_fro"] *= 0.99
    return dict(sqrtl=dict(eps=0.1, worst=[dict(L=2, sup=worst * b, bound=b)], two_key=[dict(L=64, r=b)], real=real),
                chain=chain)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "verified"),
    (dict(real_slopes=(0.1, -0.1, 0.05)), "corrected"),
    (dict(real_slopes=(0.1, -0.1, 0.05), diffuse_hi=0.2), "refuted"),
    (dict(worst=0.5), "refuted"),           # the sqrt(L) not attained
    (dict(worst=1.01), "refuted"),          # a value above the proven worst case
])
def test_check_pda_sqrtl_applies_its_stated_rule(kw, verdict):
    v = ss.check_pda_sqrtl("smoke", data=_sqrtl_data(**kw))
    assert v.verdict == verdict, v.summary
    assert not v.headline.endswith("…") and len(v.headline) <= 160, v.headline


def test_real_heads_sqrtl_covers_every_head():
    rows = ss.real_heads_sqrtl(0.1, np.random.default_rng(0))
    assert len(rows) == 144 and all(r["n"] == [64, 128, 256] for r in rows)
    assert all(0 < x <= math.sqrt(2) * math.tanh(0.05) / 0.2 for r in rows for x in r["r"])


def test_property_sqrtl_worst_case_bound_holds(seed=0):
    """PDA-sqrtL's worst case: ‖f(x + h) − f(x)‖₂ ≤ √2·tanh(ε/2) for every x and ‖h‖∞ ≤ ε (ties, huge logits, L = 2)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=200, deadline=None, derandomize=True, database=None)
    @given(L=st.integers(2, 40), eps=st.floats(1e-4, 5.0), scale=st.sampled_from([0.0, 1.0, 30.0]),
           s=st.integers(0, 2**31 - 1))
    def prop(L, eps, scale, s):
        rng = np.random.default_rng([seed, s])
        x = scale * rng.standard_normal(L)
        h = eps * rng.choice([-1.0, 1.0], L) * rng.uniform(0.5, 1.0, L)
        r = ss._l2_change(np.concatenate([x, h])[None, :], eps)[0]
        assert r <= math.sqrt(2) * math.tanh(eps / 2) / (2 * eps) * (1 + 1e-9) + 1e-15

    prop()
