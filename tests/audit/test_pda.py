"""Chapter 04's audit (attnlab.audit.pda): the experiments on tiny presets, the checks, the figures."""
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attnlab.audit import pda as A  # noqa: E402
from attnlab.audit.verdict import VERDICTS  # noqa: E402

TINY = dict(d=[16], L=[32, 64, 128], m=16, r=8, full_max=128, n_iter=2, sweep_L=64, sweep_m=[8, 16], sweep_r=[1, 4, 32],
            cost_L=[32, 64, 128], cost_repeats=1, time_L=[32, 64, 128], time_d=[8, 16], time_repeats=2, param_L=[512, 8192, 1_000_000], eta=0.01, delta=0.1, block=32)


def _close(fig_data):
    fig, data = fig_data
    assert data
    plt.close(fig)
    return data


def test_presets_cover_every_scale():
    assert set(A.PRESETS) == {"smoke", "book", "paper"}
    assert all(set(p) == set(A.PRESETS["smoke"]) for p in A.PRESETS.values())


def test_headline_experiment_and_checks():
    rows = A.headline_experiment(TINY, 0)
    assert len(rows) == 6 and {r["scaling"] for r in rows} == {"printed", "unbiased"}
    assert all("bound_V" in r for r in rows)  # every L <= full_max
    for r in rows:
        assert 0 <= r["rel_V"] and r["rel_V"] <= r["bound_V"]
    v = A.check_pda_headline("smoke", data=rows)
    assert v.claim == "PDA-headline" and v.verdict in VERDICTS
    assert v.numbers["instances"] == 3
    t = A.check_pda_total("smoke", data=rows)
    assert t.verdict in VERDICTS and t.numbers["violations"] == 0
    _close(A.plot_headline(rows))


def _head_rows(pda, trivial, Ls=(512, 1024, 2048, 4096), ds=(64,), slope=-0.5, jitter=0.0, pda_jitter=0.0):
    """Planted headline rows: PDA's metric pda·(L/512)^slope, zeros and mean of V at trivial·(L/512)^slope."""
    rows = []
    for d in ds:
        for i, L in enumerate(Ls):
            f = (L / 512) ** slope * (1 + jitter * (-1) ** i)
            for sc in ("printed", "unbiased"):
                a = (pda(d) if callable(pda) else pda) * (1 + pda_jitter * (-1) ** (i // 2))
                rows.append(dict(d=d, L=L, m=128, r=32, scaling=sc, rel_V=a * f, rel_O=a / trivial, zeros_V=trivial * f,
                                 mean_V=1.1 * trivial * f, mean_O=1.1, proj_V=0.0, eps=0.1))
    return rows


def test_headline_rule_reaches_every_verdict():
    # below 1% at every L and ten times below the trivial outputs: verified
    assert A.check_pda_headline("smoke", data=_head_rows(0.005, 0.05, jitter=0.01)).verdict == "verified"
    # above 1% on the grid, but clearly below the trivial outputs at every L: it gets to 1% first, verified
    assert A.check_pda_headline("smoke", data=_head_rows(0.02, 0.2, jitter=0.01)).verdict == "verified"
    # no better than outputting zeros: refuted, whatever L the grid reaches (even below 1% everywhere)
    v = A.check_pda_headline("smoke", data=_head_rows(0.05, 0.05, jitter=0.01))
    assert v.verdict == "refuted" and v.numbers["ratio_to_trivial"][0] > 0.9
    assert A.check_pda_headline("smoke", data=_head_rows(0.006, 0.005)).verdict == "refuted"
    # d = 64 better, d = 128 worse: the head widths disagree
    mixed = _head_rows(lambda d: 0.01 if d == 64 else 0.08, 0.05, ds=(64, 128), jitter=0.01)
    assert A.check_pda_headline("smoke", data=mixed).verdict == "unverifiable-here"
    # better on average, but not significantly
    noisy = _head_rows(0.04, 0.05, pda_jitter=0.4)
    v = A.check_pda_headline("smoke", data=noisy)
    assert v.verdict == "unverifiable-here" and v.numbers["ratio_by_d"]["64"]["hi"] > 1


def test_crossing_extrapolates_with_its_band():
    Ls = [512, 1024, 2048, 4096]
    c = A.crossing(Ls, [0.04 * (L / 512) ** -0.5 for L in Ls])
    assert math.isclose(c["slope"], -0.5) and math.isclose(c["L"], 512 * 16, rel_tol=0.01)
    assert c["L_early"] <= c["L"] <= c["L_late"]
    flat = A.crossing(Ls, [0.04, 0.041, 0.039, 0.04])
    assert math.isinf(flat["L"])
    with pytest.raises(ValueError, match="Ls"):
        A.crossing([512, 1024], [0.1, 0.05])


def test_sweep_experiment_and_figure():
    rows, base = A.sweep_experiment(TINY, 0)
    assert len(rows) == 2 * 2 * 3  # m in {8, 16} (16 = m of the preset), both scalings, three r
    assert all(r["rel_V"] >= 0 for r in rows) and base["mean_V"] > 0
    assert {(r["m"], r["r"], r["scaling"]) for r in rows} == {(m, r, s) for m in (8, 16) for r in (1, 4, 32)
                                                               for s in ("printed", "unbiased")}
    _close(A.plot_sweeps(rows, base))


def test_cost_experiment_and_checks():
    rows = A.cost_experiment(TINY, 0)
    assert {r["method"] for r in rows} == {"dense", "blocked", "pda", "pda-streamed"}
    assert all(r["seconds"] > 0 and r["peak_bytes"] > 0 for r in rows)
    assert A.check_pda_space("smoke", data=rows).verdict in VERDICTS
    _close(A.plot_cost(rows))


def _cost_rows(exponents, seconds=None):
    return [dict(L=L, method=m, seconds=(seconds or {}).get(m, 1e-9 * L**2), peak_bytes=float(L) ** e)
            for m, e in exponents.items() for L in (256, 512, 1024, 2048)]


def test_slopes_and_space_verdicts():
    rows = _cost_rows(dict(dense=2, blocked=1, pda=2, **{"pda-streamed": 1}))
    s = A.slopes(rows, "peak_bytes")
    assert math.isclose(s["pda"]["slope"], 2) and math.isclose(s["pda-streamed"]["slope"], 1)
    assert A.check_pda_space("smoke", data=rows).verdict == "corrected"
    assert A.check_pda_space("smoke", data=_cost_rows(dict(dense=2, blocked=1, pda=1, **{"pda-streamed": 1}))
                             ).verdict == "verified"
    assert A.check_pda_space("smoke", data=_cost_rows(dict(dense=2, blocked=1, pda=2, **{"pda-streamed": 2}))
                             ).verdict == "refuted"


def test_time_experiment_and_check():
    rows = A.time_experiment(TINY, 0)
    assert len(rows) == 3 * 2 and all(r["exact"] > 0 and r["pda"] > 0 and r["ratio"] > 0 for r in rows)
    assert {r["d"] for r in rows} == {8, 16} and math.isclose(rows[0]["model"], (16 + 8 * 3) / 8)
    assert A.check_pda_time("smoke", data=rows).verdict in VERDICTS


def _time_rows(ratio, ds=(64, 256, 1024), Ls=(512, 1024, 2048), jitter=0.01):
    """Planted times: exact 1e-9·L²·d + 1e-3, PDA ``ratio(d)`` times that L² term + 5e-3, with alternating jitter."""
    rows = []
    for d in ds:
        for i, L in enumerate(Ls):
            ex = 1e-9 * L**2 * d + 1e-3
            pd_ = (ratio(d) * 1e-9 * L**2 * d) * (1 + jitter * (0, 1, -1, 0)[i % 4]) + 5e-3
            rows.append(dict(L=L, d=d, exact=ex, pda=pd_, ratio=pd_ / ex, model=288 / d, m=128, r=32))
    return rows


def test_time_rule_reaches_every_verdict():
    v = A.check_pda_time("smoke", data=_time_rows(lambda d: 0.5))
    assert v.verdict == "verified" and math.isclose(v.numbers["per_d"]["64"]["ratio"], 0.5, rel_tol=0.05)
    v = A.check_pda_time("smoke", data=_time_rows(lambda d: 2.0 if d <= 128 else 0.5))
    assert v.verdict == "corrected" and v.numbers["premise_d"] == [1024]
    assert A.check_pda_time("smoke", data=_time_rows(lambda d: 2.0)).verdict == "refuted"
    assert A.check_pda_time("smoke", data=_time_rows(lambda d: 0.5 if d < 1024 else 1.2)).verdict == "refuted"
    assert A.check_pda_time("smoke", data=_time_rows(lambda d: 2.0, ds=(64, 128))).verdict == "refuted"
    noisy = _time_rows(lambda d: 2.0 if d <= 128 else 0.9, jitter=0.6)  # faster, but not significantly
    assert A.check_pda_time("smoke", data=noisy).verdict == "unverifiable-here"
    # PDA 3x slower everywhere, but exact attention's times do not grow like L² (flat, overhead only): no ratio
    flat = _time_rows(lambda d: 3.0)
    for row in flat:
        row["exact"] = 1e-3 * (1 + 0.3 * math.sin(row["L"]))
    v = A.check_pda_time("smoke", data=flat)
    assert v.verdict == "unverifiable-here" and not v.numbers["per_d"]["1024"]["fits"] and "no ratio" in v.summary


def test_param_table_and_check():
    rows = A.param_table(TINY)
    assert len(rows) == 2 * 3 and all(r["m"] > r["L"] for r in rows)
    v = A.check_pda_param("smoke", data=rows)
    assert v.verdict == "verified" and 0.9 < v.numbers["slope"] < 1.5
    _close(A.plot_param(rows, 128))


# ---- PDA-cubic
def test_cubic_analysis_matches_the_rule():
    res = A.cubic_analysis(TINY)
    assert res["exponent_limit"] == 3 and math.isinf(res["cost_over_L3_limit"])
    assert math.isinf(res["cost_over_std_limit"])
    for r in res["rows"]:
        assert math.isclose(r["m"], r["m_sympy"], rel_tol=1e-9) and r["exponent"] > 3
    assert A.check_pda_cubic("smoke", data=res).verdict == "corrected"
    _close(A.plot_cubic(res))


def _cubic(rows_fn, lim_cubic, lim_std):
    rows = [rows_fn(L) for L in (512, 8192, 1_000_000)]
    return dict(rows=rows, exponent="e(L)", exponent_limit=3.0, cost_over_L3_limit=lim_cubic,
                cost_over_std_limit=lim_std, cost_over_L3logL_limit="c")


def _row(L, m, d=64):
    return dict(d=d, L=L, m=m, m_sympy=m, cost=L**2 * m, std=L**2 * d, cubic=L**3, exponent=3.0, m_over_d=m / d)


def test_pda_cubic_rule_reaches_every_verdict():
    inf = float("inf")
    assert A.check_pda_cubic("smoke", data=_cubic(lambda L: _row(L, 1e9 * L), inf, inf)).verdict == "corrected"
    assert A.check_pda_cubic("smoke", data=_cubic(lambda L: _row(L, 32.0), 0.0, 0.5)).verdict == "refuted"
    assert A.check_pda_cubic("smoke", data=_cubic(lambda L: _row(L, 128.0), 0.0, 2.0)).verdict == "verified"
    wrong = _cubic(lambda L: dict(_row(L, 1e9 * L), m_sympy=2e9 * L), inf, inf)  # algebra off: refuted
    assert A.check_pda_cubic("smoke", data=wrong).verdict == "refuted"


# ---- PDA-speed
def test_pda_speed_rule_reaches_every_verdict():
    exps = dict(dense=2, blocked=1, pda=2, **{"pda-streamed": 1})
    slow = _cost_rows(exps, seconds=dict(dense=1.0, blocked=1.0, pda=5.0, **{"pda-streamed": 9.0}))
    fast = _cost_rows(exps, seconds=dict(dense=1.0, blocked=1.0, pda=0.5, **{"pda-streamed": 0.5}))
    v = A.check_pda_speed("smoke", data=slow)
    assert v.verdict == "unverifiable-here" and v.numbers["faster_at"] == [] and v.numbers["reported"] == []
    assert A.check_pda_speed("smoke", data=fast).verdict == "unverifiable-here"  # not verified by another experiment
    claimed = (dict(L=1000, speedup=3.0),)
    assert A.check_pda_speed("smoke", data=slow, reported=claimed).verdict == "refuted"
    assert A.check_pda_speed("smoke", data=fast, reported=claimed).verdict == "verified"


def test_speed_extrapolation_models():
    rows = _cost_rows(dict(dense=2, blocked=1, pda=2, **{"pda-streamed": 1}))
    ext = A.speed_extrapolation(rows, 4096)
    assert math.isclose(ext["dense"]["seconds"], 1e-9 * 4096**2)  # t = 1e-9 L^2 exactly
    assert math.isclose(ext["dense"]["bytes"], 4096.0**2) and math.isclose(ext["blocked"]["bytes"], 4096.0)


# ---- PDA-total: planted evidence
def _total_rows(rel, bound, alpha=0.7):
    return [dict(d=64, L=L, scaling="printed", rel_V=rel, bound_V=bound, chain_term=0.9 * bound, eps=3.0, alpha=alpha,
                 lowrank_term=0.1 * bound) for L in (256, 512)]


def test_pda_total_rule_reaches_every_verdict():
    assert A.check_pda_total("smoke", data=_total_rows(0.01, 10.0)).verdict == "loose"
    assert A.check_pda_total("smoke", data=_total_rows(0.8, 1.0)).verdict == "verified"
    assert A.check_pda_total("smoke", data=_total_rows(2.0, 1.0)).verdict == "refuted"
    v = A.check_pda_total("smoke", data=_total_rows(0.01, float("inf"), alpha=0.4))  # the theorem does not apply
    assert v.verdict == "unverifiable-here" and v.numbers["usable"] == 0


def test_pda_param_rule_reaches_every_verdict():
    rows = [dict(d=d, L=L, m=m, m_over_L=m / L, m_over_d=m / d) for d in (64, 128)
            for L, m in ((512, 1e9), (8192, 2e10), (1_000_000, 3e12))]
    assert A.check_pda_param("smoke", data=rows).verdict == "verified"
    flat = [dict(r, m=1e9) for r in rows]  # m not growing with L: the rule's linear growth is contradicted
    assert A.check_pda_param("smoke", data=flat).verdict == "refuted"
    quad = [dict(r, m=float(r["L"]) ** 2) for r in rows]
    assert A.check_pda_param("smoke", data=quad).verdict == "refuted"


def test_parameters_box_names_every_preset_key():
    """The chapter's parameters box says in words what each preset value is (issue 18)."""
    for name, p in A.PRESETS.items():
        assert set(p) - {"scale"} <= set(A.PARAMETERS), name
    assert all(isinstance(v, str) and v and "_" not in v for v in A.PARAMETERS.values())


def test_log_axes_have_no_minor_tick_labels():
    """No colliding labels such as '3×10²4×10²' (issue 18): every log axis labels its major ticks only."""
    from matplotlib.ticker import NullFormatter

    for fig in _all_figures():
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_scale() == "log":
                    assert isinstance(axis.get_minor_formatter(), NullFormatter)
                    fig.canvas.draw()
                    lo, hi = sorted(axis.get_view_interval())
                    labels = [t.get_text() for t in axis.get_ticklabels()
                              if t.get_text() and lo * (1 - 1e-9) <= t.get_position()[axis is ax.yaxis] <= hi * (1 + 1e-9)]
                    assert len(labels) <= 8, labels  # (none on a y axis shared with the panel on its left)
        plt.close(fig)


def _all_figures():
    rows = A.headline_experiment(TINY, 0)
    sw, base = A.sweep_experiment(TINY, 0)
    return [A.plot_headline(rows)[0], A.plot_sweeps(sw, base)[0], A.plot_cost(A.cost_experiment(TINY, 0))[0],
            A.plot_param(A.param_table(TINY), 128)[0], A.plot_cubic(A.cubic_analysis(TINY))[0]]


def test_time_headlines_are_whole_sentences():
    """The findings box shows a verdict's first sentence whole (issue 18): no headline cut with '…'."""
    for rows in (_time_rows(lambda d: 0.5), _time_rows(lambda d: 2.0 if d <= 128 else 0.5), _time_rows(lambda d: 2.0),
                 _time_rows(lambda d: 2.0, ds=(64, 128)), _time_rows(lambda d: 2.0 if d <= 128 else 0.9, jitter=0.6)):
        v = A.check_pda_time("smoke", data=rows)
        assert not v.headline.endswith("…") and v.headline in v.summary, v.headline
