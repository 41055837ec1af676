"""Chapter 07's experiments, fits, checks and figures (attnlab.audit.rank_upper, and for its sections rank_upper_law,
rank_upper_worst, rank_upper_robust and rank_upper_coarse)."""
import math

import pytest

from attnlab.audit import (rank_lower, rank_upper, rank_upper_coarse, rank_upper_law, rank_upper_robust,
                           rank_upper_worst)
from attnlab.audit.scale import SCALES


def test_presets_share_the_common_entries_with_chapter_08():
    for s in SCALES:
        common = set(rank_upper.PRESETS[s]) & set(rank_lower.PRESETS[s])
        assert common == {"eps", "lat_d", "lat_betas", "gap_n", "gap_keys", "gap_betas"}
        assert all(rank_upper.PRESETS[s][k] == rank_lower.PRESETS[s][k] for k in common)
    assert rank_upper.gap_experiment is rank_lower.gap_experiment


def test_gap_experiment_is_one_computation_for_both_chapters(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(gap_n=64, gap_keys=32, gap_betas=[4, 16, 64], eps=[0.5])
    rows = rank_upper.gap_experiment(dict(p, other=1), 0)
    assert rank_lower.gap_experiment(dict(p, unrelated=[2]), 0) == rows
    assert len(list((tmp_path / "experiments").glob("_gap_experiment-*.pkl"))) == 1
    assert all(r["lower"] <= r["upper"] and r["upper_error"] <= r["eps"] + 1e-12 for r in rows)


def test_op_experiment_attains_and_check_verifies(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(op_n=12, op_L=8, op_m=2, op_starts=2, op_steps=3)
    rows = rank_upper.op_experiment(p, 0)
    assert [r["norm"] for r in rows] == ["l2", "l1", "linf"]
    assert all(r["search"] <= r["row_l1"] * (1 + 1e-12) for r in rows)
    assert rank_upper.check_ar_op("smoke", data=rows).verdict == "verified"
    bad = [dict(r, explicit=r["row_l1"] / 2) for r in rows]
    assert rank_upper.check_ar_op("smoke", data=bad).verdict == "refuted"


_NS = dict(dense_rank=1, dense_keep_fraction=0.6, sparse_lower=10, sparse_n=10, n=20, L=8, eps=0.25,
           rows_max_abs_diff=0.0, fast_max_abs_err=1e-16, speedup=100.0, approx_rank=3, approx_numerical_rank=16,
           approx_size=8)


@pytest.mark.parametrize("kw, half, words", [
    (dict(), "verified", ["Sparsity half shown", "; measured)", "is a different object"]),
    (dict(dense_rank=2), "unverifiable-here", ["Sparsity half not shown"]),
    (dict(dense_keep_fraction=0.1), "unverifiable-here", ["Sparsity half not shown"]),
    (dict(sparse_lower=3), "verified", ["(n = 10), not n"]),          # the converse is reported, not judged
    (dict(fast_max_abs_err=1e-3), "verified", ["; not shown)"]),
    (dict(approx_rank=16), "verified", ["was not shown to be a different object"]),
])
def test_check_ar_nospeed_on_planted_evidence(kw, half, words):
    """The sparsity half carries its own verdict (verified or unverifiable-here); the speed half is always
    unverifiable-here; the registered verdict is their conjunction."""
    v = rank_upper.check_ar_nospeed("smoke", data=dict(_NS, **kw))
    assert v.numbers["halves"] == dict(sparsity=half, speed="unverifiable-here")
    assert v.verdict == "unverifiable-here" and all(w in v.summary for w in words), v.summary
    assert v.summary.startswith(f"Sparsity half {half}, speed half unverifiable-here")


@pytest.mark.parametrize("halves, verdict", [
    (("verified", "verified"), "verified"), (("verified", "unverifiable-here"), "unverifiable-here"),
    (("unverifiable-here", "unverifiable-here"), "unverifiable-here"), (("verified", "refuted"), "refuted"),
    (("refuted", "unverifiable-here"), "refuted"),
])
def test_combine_halves_is_a_conjunction(halves, verdict):
    assert rank_upper.combine_halves(*halves) == verdict


def test_r_svd_int_is_the_smallest_qualifying_r():
    rows = [dict(beta=b, r=r, tau_width=w) for b, r, w in [(1, 0, 0.5), (1, 1, 0.1), (1, 2, 0.0), (8, 0, 1.0),
                                                           (8, 1, 0.3), (8, 2, 0.2)]]
    assert rank_upper_robust.r_svd_int(rows, 0.25) == {1: 1, 8: 2}
    assert rank_upper_robust.r_svd_int(rows, 0.01) == {1: 2, 8: None}


def test_sphere_ball_experiment_certifies_and_fits(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(sb_n=96, sb_keys=64, sb_betas=[2.0, 4.0, 8.0, 16.0], eps=[0.5])
    rows = rank_upper_law.sphere_ball_experiment(p, 0)
    assert [r["beta"] for r in rows] == p["sb_betas"] and all(r["family"] == "sphere d=3" for r in rows)
    for r in rows:  # both certificates hold on the same matrix, so lower <= upper
        assert r["upper_error"] <= r["eps"] + 1e-12 and r["lower_margin"] > 0 and r["lower"] <= r["upper"]
    again = rank_upper_law.sphere_ball_experiment(p, 0)
    assert [r["upper"] for r in again] == [r["upper"] for r in rows]
    gap = [dict(beta=b, eps=0.5, upper=u, lower=lo) for b, u, lo in [(1, 2, 1), (4, 4, 2), (16, 8, 4)]]
    up = dict(lattice=[dict(beta=b, eps=0.5, upper=u, lower=lo, n=1000, L=1000)
                       for b, u, lo in [(1, 2, 1), (10, 20, 10), (100, 200, 100)]])
    fits = rank_upper_law.sphere_ball_fits(gap, up, 0.1, [dict(r, upper=u, lower=lo, n=1000, L=1000)
                                                      for r, u, lo in zip(rows, [2, 4, 8, 16], [1, 2, 4, 8])])
    s3 = [f for f in fits if f["family"] == "sphere d=3"][0]
    assert s3["upper_slope"] == pytest.approx(1.0) and s3["lower_slope"] == pytest.approx(1.0) and s3["bracket"]
    assert [f["family"] for f in rank_upper_law.sphere_ball_fits(gap, up, 0.1)] == ["sphere d=2", "ball d=2"]


def test_robust_experiment_certifies_through_the_residual(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(up_r=[1, 2], up_n=96, up_keys=64, planted_d=8, robust_sigma=1e-3, up_betas=[1.0, 10.0, 100.0, 1e4],
             up_eps=0.5)
    rows = rank_upper_robust.robust_experiment(p, 0)
    assert {x["r"] for x in rows} == {1, 2} and all(x["visible_dim"] == 8 for x in rows)
    assert all(x["tau"] < x["eps"] and x["robust_error_on_A"] <= x["eps"] + 1e-12 for x in rows)
    assert 1e4 not in {x["beta"] for x in rows}  # τ_W ≥ ε there: no robust certificate
    synth = [dict(r=2, x=x, robust=int(x), direct=int(x), n=10**6, L=10**6, beta=x) for x in (10.0, 100.0, 1000.0)]
    f = rank_upper_robust.robust_fits(synth)[0]
    assert f["slope"] == pytest.approx(1.0, abs=1e-3) and f["consistent"] and f["robust_over_direct"] == 1.0
    assert not rank_upper_robust.robust_fits([dict(s, robust=int(s["x"] ** 1.5)) for s in synth])[0]["consistent"]


def test_upper_law_fits_drop_saturated_points_and_compare_with_r_half():
    rows = [dict(family="planted r=2", r=2, eps=0.5, n=1000, L=1000, beta=b, Gamma=b, upper=u)
            for b, u in [(1.0, 2), (10.0, 9), (100.0, 80), (1000.0, 600)]]
    f = rank_upper_law.upper_law_fits(dict(planted=rows, lattice=[]), 0.1)[0]
    assert f["points"] == 3 and f["beta_max"] == 100.0 and f["consistent"] and f["lower_slope"] is None


def test_implicit_fits_recover_known_slopes():
    res = dict(sphere=[dict(family="sphere d=3", geometry="sphere", d=3, r=3, beta=b, beta_nominal=b, eps=0.5, Gamma=b,
                            upper=2 * b, lower=b / 4, upper_method="harmonics", upper_error=0.4, lower_mass=0.8,
                            n=math.inf) for b in (1e2, 1e3, 1e4, 1e5)],
               ball=[dict(family="ball d=2", geometry="ball", d=2, r=2, beta=0.97 * b, beta_nominal=b, eps=0.5, Gamma=b,
                          upper=b ** 1.3, lower=b ** 1.2, upper_method="rows", upper_error=0.0, lower_mass=0.8,
                          n=b ** 1.3) for b in (1e2, 1e3, 1e4, 1e5)])
    f = {x["family"]: x for x in rank_upper_worst.implicit_fits(res, 0.1, 2)}
    s3, b2 = f["sphere d=3"], f["ball d=2"]
    assert s3["points"] == b2["points"] == 3 and s3["decades"] == b2["decades"] == 2
    assert s3["upper_slope"] == pytest.approx(1) and s3["lower_slope"] == pytest.approx(1)
    assert s3["bracket"] and s3["consistent"] and not s3["lower_too_fast"] and s3["valid"]
    assert b2["lower_too_fast"] and not b2["bracket"] and b2["faster_lower"] and not b2["consistent"]


def test_figures_return_their_data():
    pytest.importorskip("matplotlib")
    tim = [dict(n=n, L=8, greedy_s=0.1 * n, svd_s=0.2 * n, lower_s=0.05 * n) for n in (10, 20)]
    fig, data = rank_upper.plot_timing(tim)
    assert data["n"] == [10, 20]
    rows = [dict(beta=b, r=r, tau_exact=0.1, tau_width=0.2, tau_spec=0.3, error=0.05) for b in (1, 8) for r in (0, 1)]
    fig, data = rank_upper_robust.plot_bridge(rows, 0.25)
    assert len(data["beta"]) == 4


def _coarse_rows(ratio_l2, ratio_inf=2.5, tau=0.2, eps=0.5, more=()):
    """Planted AR-coarse cases: the Euclidean and ∞-norm thresholds at the given ratios to τ; ``more`` adds cases
    (Euclidean ratio, τ)."""
    cases = [(ratio_l2, tau)] + list(more)
    return [dict(beta=1.0, r=1, eps=eps, L=64, tau_tanh=t, tau_lip_osc=t, tau_pda_lip=ratio_inf * t,
                 tau_lip_l2=r2 * t, osc_max=1.0, sup_over_osc=1.0) for r2, t in cases]


@pytest.mark.parametrize("rows, verdict, inf", [
    (_coarse_rows(18.0), "verified", "corrected"),
    (_coarse_rows(18.0, more=[(8.0, 0.3)]), "corrected", "corrected"),    # one usable case only 8× coarser
    (_coarse_rows(3.0), "corrected", "corrected"),
    (_coarse_rows(1.2, ratio_inf=1.1), "refuted", "refuted"),
    (_coarse_rows(18.0, ratio_inf=12.0), "verified", "verified"),
    (_coarse_rows(50.0, tau=0.9), "unverifiable-here", "unverifiable-here"),  # only τ ≥ ε: τ_W unusable
    (_coarse_rows(18.0, more=[(1.0, 0.9)]), "verified", "corrected"),       # an unusable case does not count
])
def test_check_ar_coarse_planted(rows, verdict, inf):
    """The registered verdict is the Euclidean reading's; the ∞-norm reading is reported with its own."""
    v = rank_upper_coarse.check_ar_coarse("smoke", data=rows)
    assert v.verdict == verdict and v.numbers["reading_l2"]["verdict"] == verdict
    assert v.numbers["reading_inf"]["verdict"] == inf
    assert len(v.headline) < 160


def test_coarse_experiment_euclidean_route_bounds_the_row_error(tmp_path, monkeypatch):
    """(√L/2)‖h − h̄‖₂ bounds the measured row error of dropping h, and exceeds 2·tanh(osc/4)."""
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(noisy_n=64, noisy_keys=48, planted_d=8, noisy_r=2, noisy_sigma=0.005, noisy_eps=0.5,
             noisy_rs=[0, 1, 2], noisy_betas=[1, 8])
    rows = rank_upper_coarse.coarse_experiment(p, 0)
    assert all(r["L"] == 48 and r["tau_lip_l2"] >= r["tau_tanh"] - 1e-12 for r in rows)
    br = {(x["beta"], x["r"]): x for x in rank_upper_robust.svd_experiment(p, 0)["rows"]}
    assert all(br[(r["beta"], r["r"])]["error"] <= r["tau_lip_l2"] + 1e-12 for r in rows)


def test_coarse_closed_form_limits():
    cf = rank_upper_coarse.coarse_closed_form()
    assert cf["limit0_osc"] == 1 and cf["limit0_2x"] == 4 and cf["limit_inf_2x"] == "oo"
    assert 1.9 < cf["tau_at_ratio_2x"] < 2


def _const(r_mild, r_full=10):
    table = [dict(form="2^(r/2)", n=4096, eps=0.25, Gamma=0.0, r_vacuous=r_mild, law_at_50=1.0),
             dict(form="2^r", n=4096, eps=0.25, Gamma=0.0, r_vacuous=r_full, law_at_50=1.0)]
    return dict(table=table, split=rank_upper_coarse.trigger_split())


@pytest.mark.parametrize("data, verdict", [
    (_const(24), "verified"), (_const(60), "unverifiable-here"), (_const(None), "refuted"), (_const(70), "refuted"),
])
def test_check_ar_const_planted(data, verdict):
    assert rank_upper_coarse.check_ar_const("smoke", data=data).verdict == verdict


def test_const_table_and_split():
    t = rank_upper_coarse.const_table(ns=(4096,), eps=(0.25,), gammas=(0.0,))
    assert {x["form"]: x["r_vacuous"] for x in t} == {"2^r": 12, "2^(r/2)": 24}
    s = rank_upper_coarse.trigger_split()
    assert s["argument_inflation"] == "9/4" and s["parts"] == 2


# --------------------------------------------------------------------------- planted evidence: AR-upper, AR-sphere-ball
_B = (1e3, 1e4, 1e5)


def _implicit(sph_up=1.0, sph_lo=1.0, ball_up=1.0, ball_lo=1.0, ball_method="kronecker-svd", valid=True,
              circ=None):
    """Sphere d = 3 (θ = 1, r/2 = 1.5) and ball d = 2 (θ = r/2 = 1), certificates c·β^(slope·θ), Γ = β; ``circ``
    = (upper, lower) slopes of an extra ball d = 4 family whose upper certificate is its row count."""
    sphere = [dict(family="sphere d=3", geometry="sphere", d=3, r=3, beta=b, beta_nominal=b, eps=0.5, Gamma=b,
                   upper=3 * b ** sph_up, lower=b ** sph_lo / 4, upper_method="harmonics",
                   upper_error=0.4 if valid else 0.6, lower_mass=0.8, n=math.inf) for b in _B]
    ball = [dict(family="ball d=2", geometry="ball", d=2, r=2, beta=b, beta_nominal=b, eps=0.5, Gamma=b,
                 upper=3 * b ** ball_up, lower=b ** ball_lo / 4, upper_method=ball_method, upper_error=0.0,
                 lower_mass=0.8, n=10 * b) for b in _B]
    if circ:
        ball += [dict(family="ball d=4", geometry="ball", d=4, r=4, beta=b, beta_nominal=b, eps=0.5, Gamma=b,
                      upper=3 * b ** (2 * circ[0]), lower=b ** (2 * circ[1]) / 4, upper_method="rows",
                      upper_error=0.0, lower_mass=0.8, n=3 * b ** (2 * circ[0])) for b in _B]
    return dict(sphere=sphere, ball=ball)


def _upper(planted_slope=0.4):
    planted = [dict(family="planted r=1", r=1, r_visible=1, d=64, n=2000, L=500, beta=b, eps=0.5, rho_Q=1.0,
                    rho_K=1.0, Gamma=b, upper=max(1, round(2 * (1 + b / 0.25) ** planted_slope)), method="svd",
                    error=0.4) for b in (1.0, 10.0, 100.0)]
    lattice = [dict(family="ball d=2 (lattice)", r=2, eps=0.5, n=4 * g * g, L=(2 * g + 9) ** 2, gamma=g,
                    beta=g * (g + 4), Gamma=g * (g + 4), upper=3 * g * g, lower=g * g, lower_valid=True)
               for g in (2.0, 4.0, 8.0, 11.0)]
    return dict(planted=planted, lattice=lattice)


@pytest.mark.parametrize("imp, planted_slope, verdict", [
    (dict(), 0.4, "verified"),
    (dict(ball_lo=1.3, ball_up=1.35), 0.4, "refuted"),             # a proven rank growing faster than Γ^(r/2)
    (dict(ball_lo=0.5, ball_up=0.6), 0.4, "loose"),                # every certificate on the ball well below r/2
    (dict(ball_method="rows"), 0.4, "unverifiable-here"),          # the only ball's upper side is its row count
    (dict(), 1.0, "unverifiable-here"),                            # a planted head's upper slope above r/2: not shown
    (dict(valid=False), 0.4, "unverifiable-here"),                 # an upper certificate outside ε
])
def test_check_ar_upper_on_planted_evidence(imp, planted_slope, verdict):
    v = rank_upper_worst.check_ar_upper("smoke", data=dict(upper=_upper(planted_slope), implicit=_implicit(**imp)))
    assert v.verdict == verdict, v.summary
    assert "pre-asymptotic" in v.summary           # the materialised lattice is reported with its reason
    assert v.numbers["proof_step"]["step_verdict"] == "corrected" and "judges the statement" in v.summary


def test_pinsker_step_and_the_statement_are_judged_apart():
    pin = rank_upper_law.pinsker_step()
    assert pin["printed_factor"] == pytest.approx(2 ** 0.5) and pin["corrected_l1"] == "epsilon"
    assert pin["C_r_factor"] == "2**(r/2)" and pin["step_verdict"] == "corrected"
    fixed = dict(pin, printed_factor=1.0, step_verdict="verified")          # a planted proof without the slip
    v = rank_upper_worst.check_ar_upper("smoke", data=dict(upper=_upper(), implicit=_implicit(), pinsker=fixed))
    assert v.verdict == "verified" and "proof step is verified" in v.summary
    v = rank_upper_worst.check_ar_upper("smoke", data=dict(upper=_upper(), implicit=_implicit()))
    assert v.verdict == "verified" and "proof step is corrected" in v.summary and "√2·ε" in v.summary


@pytest.mark.parametrize("imp, verdict", [
    (dict(), "verified"),
    (dict(sph_lo=1.3, sph_up=1.4), "refuted"),                     # the lower certificate above (1 + tol)θ
    (dict(ball_lo=0.5, ball_up=0.6), "refuted"),                   # the upper certificate below (1 − tol)θ
    (dict(sph_lo=0.2, sph_up=5.0), "unverifiable-here"),           # 0.2θ and 5θ: no bracket
    (dict(valid=False), "unverifiable-here"),
    (dict(ball_method="rows"), "unverifiable-here"),               # the ball's only upper side is its row count
    (dict(circ=(1.0, 1.0)), "verified"),                           # a circular family counts for its lower side
    (dict(circ=(0.5, 1.0)), "verified"),                           # ... and its row count cannot refute
    (dict(circ=(1.0, 0.5)), "unverifiable-here"),                  # its lower side falls short of θ
    (dict(circ=(1.4, 1.3)), "refuted"),                            # its lower side outgrows θ
])
def test_check_ar_sphere_ball_on_planted_evidence(imp, verdict):
    gap = [dict(beta=b, eps=0.5, greedy=int(b ** 0.5) + 2, svd=int(b ** 0.5) + 1, upper=int(b ** 0.5) + 1,
                lower=int(b ** 0.5 / 2), upper_error=0.4) for b in (8.0, 32.0, 128.0)]
    v = rank_upper_worst.check_ar_sphere_ball("smoke", data=dict(gap=gap, upper=_upper(), sphere3=[],
                                                           implicit=_implicit(**imp)))
    assert v.verdict == verdict, v.summary
    assert len(v.headline) < 160


def _quotient_rows(dec=1e-15, gib=1e-15, r_ok=True, s21=1e-17, rank0=1):
    return [dict(d=64, r_planted=r, r=r if r_ok else r + 1, decomposition=dec, gibbs_error=gib,
                 sigma2_over_sigma1=s21 if r == 0 else 0.3, numerical_rank=rank0 if r == 0 else 5) for r in (0, 1, 2)]


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "verified"), (dict(dec=1e-6), "refuted"), (dict(gib=1e-3), "refuted"), (dict(r_ok=False), "refuted"),
    (dict(s21=1e-3), "refuted"), (dict(rank0=2), "refuted"),
])
def test_check_ar_quotient_on_planted_evidence(kw, verdict):
    assert rank_upper.check_ar_quotient("smoke", data=_quotient_rows(**kw)).verdict == verdict


def test_check_ar_svd_on_planted_evidence(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    p = dict(noisy_n=96, noisy_keys=64, planted_d=8, noisy_r=2, noisy_sigma=0.005, noisy_eps=0.5,
             noisy_rs=[0, 1, 2, 4, 8], noisy_betas=[1, 8, 64], up_r=[1, 2], up_n=96, up_keys=64, robust_sigma=1e-3,
             up_betas=[1.0, 10.0, 100.0], up_eps=0.5)
    data = dict(bridge=rank_upper_robust.svd_experiment(p, 0), planted=rank_upper_robust.robust_experiment(p, 0))
    base = rank_upper_robust.check_ar_svd("smoke", data=data).verdict
    assert base in ("verified", "refuted")
    br = data["bridge"]
    broken = dict(br, rows=[dict(r, error=r["tau_exact"] * 2 + 1e-3) for r in br["rows"]])   # error above τ_exact
    assert rank_upper_robust.check_ar_svd("smoke", data=dict(data, bridge=broken)).verdict == "refuted"
    outside = dict(br, robust=[dict(x, error_on_A=x["eps"] * 1.5) for x in br["robust"]])      # robust cert outside ε
    assert rank_upper_robust.check_ar_svd("smoke", data=dict(data, bridge=outside)).verdict == "refuted"


def test_check_ar_svd_law_branch_cannot_refute(tmp_path, monkeypatch):
    """A robust certificate growing faster than r/2 is loose: unverifiable-here, never refuted."""
    monkeypatch.setenv("ATTNLAB_CACHE_DIR", str(tmp_path))
    rows = [dict(beta=b, r=r, error=w / 4, tau_exact=w / 2, tau_width=w, tau_spec=1.0, explained=0.99)
            for b, ws in ((1, (0.5, 0.1, 0.0)), (8, (1.0, 0.3, 0.2))) for r, w in zip((0, 1, 2), ws)]
    bridge = dict(rows=rows, robust=[dict(beta=1, tau=0.02, budget=0.48, rank=3, error_on_A=0.4, eps=0.5)],
                  exact_dim=8)
    law = lambda slope: [dict(r=2, d=8, visible_dim=8, beta=x, eps=0.5, tau=0.01, Gamma_W=x, x=x,  # noqa: E731
                              robust=int(x ** slope), robust_error_on_A=0.4, direct=int(x ** slope), n=10**6,
                              L=10**6) for x in (10.0, 100.0, 1000.0)]
    v = rank_upper_robust.check_ar_svd("smoke", data=dict(bridge=bridge, planted=law(1.0)))
    assert v.verdict == "verified", v.summary
    v = rank_upper_robust.check_ar_svd("smoke", data=dict(bridge=bridge, planted=law(1.6)))
    assert v.verdict == "unverifiable-here" and "cannot refute an upper bound" in v.summary
    fixed = dict(bridge, rows=[dict(r, tau_width=0.0, tau_exact=0.0, error=0.0) for r in rows])  # r_SVD_int fixed
    assert rank_upper_robust.check_ar_svd("smoke", data=dict(bridge=fixed, planted=law(1.0))).verdict == "refuted"


def test_the_section_modules_share_the_chapter_presets_and_the_old_paths_still_resolve():
    import warnings

    for m in (rank_upper_law, rank_upper_worst, rank_upper_robust, rank_upper_coarse):
        assert m.PRESETS is rank_upper.PRESETS
    assert rank_upper_worst.RULES is rank_upper_law.RULES
    assert set(rank_upper_law.RULES) == {"AR-upper", "AR-sphere-ball"} and set(rank_upper.RULES) == {"AR-nospeed"}
    for old, new, name in ((rank_upper, rank_upper_worst, "check_ar_upper"), (rank_upper_law, rank_upper_worst,
                                                                                "implicit_law_experiment"),
                           (rank_upper, rank_upper_robust, "check_ar_svd"), (rank_upper, rank_upper_coarse,
                                                                              "check_ar_const"),
                           (rank_upper, rank_upper_law, "upper_law_experiment")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(old, name) is getattr(new, name)
        assert caught and caught[0].category is DeprecationWarning
    with pytest.raises(AttributeError):
        rank_upper.no_such_name  # noqa: B018
