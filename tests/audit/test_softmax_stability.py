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
