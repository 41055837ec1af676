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
            cost_L=[32, 64, 128], cost_repeats=1, time_L=[32, 64, 128], time_d=[8, 16], time_repeats=2,
            param_L=[512, 8192, 1_000_000], eta=0.01, delta=0.1, block=32, real_layers=[0], real_n=[64, 128, 256],
            decoder_layers=[0], eps_L=64, eps_m=[8, 16, 32, 64, 128], fixm_m=[16, 32], fixm_L=[64, 128, 256],
            fixm_draws=2)


def _close(fig_data):
    fig, data = fig_data
    assert data
    plt.close(fig)
    return data


def test_presets_cover_every_scale():
    assert set(A.PRESETS) == {"smoke", "book", "paper"}
    assert all(set(p) == set(A.PRESETS["smoke"]) for p in A.PRESETS.values())


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
                              if t.get_text()
                              and lo * (1 - 1e-9) <= t.get_position()[axis is ax.yaxis] <= hi * (1 + 1e-9)]
                    assert len(labels) <= 8, labels  # (none on a y axis shared with the panel on its left)
        plt.close(fig)


def _all_figures():
    rows = A.headline_experiment(TINY, 0)
    sw, base = A.sweep_experiment(TINY, 0)
    return [A.plot_headline(rows)[0], A.plot_sweeps(sw, base)[0], A.plot_cost(A.cost_experiment(TINY, 0))[0],
            A.plot_param(A.param_table(TINY), 128)[0], A.plot_cubic(A.cubic_analysis(TINY))[0]]


# ---- PDA-headline: the claim itself, on both input sets
def test_headline_experiments_and_check():
    rows = A.headline_experiment(TINY, 0)
    assert len(rows) == 6 and {r["scaling"] for r in rows} == {"printed", "unbiased"}
    assert all("bound_V" in r for r in rows)  # every L <= full_max
    for r in rows:
        assert 0 <= r["rel_V"] and r["rel_V"] <= r["bound_V"]
    real = A.headline_real_experiment(TINY, 0)
    assert len(real) == 12 and {r["n"] for r in real} == {256} and all(r["d"] == 32 for r in real)
    assert all(r["floor_V"] <= r["zeros_V"] + 1e-12 for r in real)  # the optimal truncation beats outputting 0
    planned = A.planned_experiment(TINY, 0)
    assert all(r["over_2eps"] <= r["ceiling"] + 1e-12 <= 0.5 + 1e-12 for r in planned)  # ℓ1 ≤ 2·tanh(ε/2)
    dec = A.headline_decoder_experiment(TINY, 0)
    assert len(dec) == 9 and {r["n"] for r in dec} == {256} and all(r["d"] == 64 for r in dec)
    assert all(r["floor_V"] <= r["zeros_V"] + 1e-12 for r in dec)
    v = A.check_pda_headline("smoke", data=dict(synthetic=rows, real=real, decoder=dec, planned=planned))
    assert v.claim == "PDA-headline" and v.verdict in VERDICTS and v.numbers["real"]["n"] == 12
    assert v.numbers["decoder"]["n"] == 9 and "decoder heads" in v.summary
    t = A.check_pda_total("smoke", data=rows)
    assert t.verdict in VERDICTS and t.numbers["violations"] == 0
    _close(A.plot_headline(rows))


def _planned(slope=-0.5, stall=False, ratio=0.1):
    rows = []
    for m in (16, 32, 64, 128, 256, 512, 1024):
        eps = 10 * (m / 16) ** slope if not stall else 10 * (m / 16) ** -0.5 + 3.0 * (m >= 128) * (m / 128) ** 0.1
        for sc in ("unbiased", "printed"):
            rows.append(dict(m=m, scaling=sc, eps=eps, l1_inf=2 * eps * ratio, over_2eps=ratio,
                             ceiling=math.tanh(eps / 2) / eps, max_abs_S=5.0))
    return rows


def _real_rows(err, n=24):
    return [dict(text="t", n=256, layer=0, head=j, d=32, m=128, r=32, rel_V=err, unbiased_V=err, floor_V=err,
                 zeros_V=0.3, mean_V=0.2) for j in range(n)]


def _synth_rows(err):
    return [dict(d=64, L=L, scaling=sc, m=128, r=32, rel_V=err, rel_O=0.8, zeros_V=0.1, mean_V=0.08, proj_V=err,
                 eps=3.0) for L in (512, 1024) for sc in ("printed", "unbiased")]


def _dec_rows(err, n=18):
    return [dict(r, d=64) for r in _real_rows(err, n)]


def test_headline_rule_reaches_every_verdict():
    good, bad = dict(planned=_planned()), dict(planned=_planned())

    def check(synth, real, dec, planned):
        return A.check_pda_headline("smoke", data=dict(synthetic=_synth_rows(synth), real=real, decoder=dec, **planned))

    assert check(0.005, _real_rows(0.005), _dec_rows(0.005), good).verdict == "verified"
    v = check(0.05, _real_rows(0.12), _dec_rows(0.2), bad)
    assert v.verdict == "refuted" and v.numbers["real"]["below"] == 0 and v.numbers["decoder"]["below"] == 0
    # below 1% on the Gaussian instances only: a qualified form
    assert check(0.005, _real_rows(0.12), _dec_rows(0.12), good).verdict == "corrected"
    # below 1% on 60% of the encoder's heads (between half and 90%): corrected
    mixed = _real_rows(0.005, 15) + _real_rows(0.05, 10)
    assert check(0.05, mixed, _dec_rows(0.05), good).verdict == "corrected"
    # the two models disagree (holds on the encoder, fails on the decoder): not verified
    assert check(0.005, _real_rows(0.005), _dec_rows(0.05), good).verdict == "corrected"


def test_planned_experiments_rules():
    ok = A._planned_verdicts(_planned(-0.5))
    assert ok["unbiased"]["inverse_sqrt_m"] and not ok["unbiased"]["two_eps"]
    assert A._planned_verdicts(_planned(-0.7))["printed"]["inverse_sqrt_m"]  # faster than 1/√m is O(1/√m)
    assert not A._planned_verdicts(_planned(-0.2))["printed"]["inverse_sqrt_m"]  # too slow
    assert not A._planned_verdicts(_planned(stall=True))["printed"]["inverse_sqrt_m"]  # stalls from a bias
    assert A._planned_verdicts(_planned(ratio=0.9))["unbiased"]["two_eps"]


def test_crossing_band_contains_the_fit():
    c = A.crossing([64, 128, 256, 512], [0.8, 0.79, 0.81, 0.8], level=0.1)
    assert math.isinf(c["L"]) and c["L_early"] > 1e6


# ---- cost: exact counts (PDA-time, PDA-speed, PDA-lrcost)
def test_operation_counts_are_the_seeds():
    import sympy as sp

    ops = A.operation_counts()
    L, d, m, r = sp.symbols("L d m r", positive=True)
    assert sp.simplify(sp.expand(ops["dropped"]) - (L**2 + L * d * m + L * r**2)) == 0
    c = A.cost_counts()
    row = next(x for x in c["rows"] if (x["m"], x["r"], x["d"]) == (128, 32, 64))
    assert (row["exact"], row["pda"], row["impl"]) == (128, 288, 128 + 6 * 42) and math.isclose(row["ratio"], 2.25)
    assert [x["dominant"] for x in c["rows"] if x["d"] == 64] == [False, False, True, False]
    assert {(x["r"], x["d_v"]): x["truncation"] for x in c["lrcost"]} == {(32, 64): 160, (32, 128): 160,
                                                                         (64, 64): 384, (64, 128): 384}
    assert c["lower_order_limit"] == 0


def _count_rows(pda, dominant=False):
    """Planted count rows: exact d + d_v, PDA ``pda(m, r, d)``."""
    rows = []
    for m in (128, 256):
        for r in (32, 64):
            for d in (64, 128, 4 * m):
                x = pda(m, r, d)
                rows.append(dict(m=m, r=r, d=d, exact=2 * d, pda=x, impl=x + 100, streamed=6 * x, ratio=x / (2 * d),
                                 r_log2_r=x - m, dominant=dominant, d_even=x / 2, premise=d == 4 * m))
    return dict(rows=rows, lrcost=[], p=10, q=2, exact="d + d_v", pda="m + r log2 r", impl="", dropped="L*r**2",
                lower_order_limit=0.0)


def test_time_rule_reaches_every_verdict():
    assert A.check_pda_time("smoke").verdict == "corrected"
    assert A.check_pda_time("smoke", data=_count_rows(lambda m, r, d: 50, dominant=True)).verdict == "verified"
    assert A.check_pda_time("smoke", data=_count_rows(lambda m, r, d: 50)).verdict == "corrected"  # L²m not dominant
    assert A.check_pda_time("smoke", data=_count_rows(lambda m, r, d: 300)).verdict == "corrected"
    assert A.check_pda_time("smoke", data=_count_rows(lambda m, r, d: 4 * d)).verdict == "refuted"  # slower at d = 4m


def test_speed_rule_reaches_every_verdict():
    mem = A.memory_counts(A.PRESETS["smoke"])
    v = A.check_pda_speed("smoke")
    assert v.verdict == "refuted" and min(v.numbers["ratios"].values()) > 1
    assert A.check_pda_speed("smoke", data=dict(counts=_count_rows(lambda m, r, d: d // 2), memory=mem)
                             ).verdict == "verified"
    assert A.check_pda_speed("smoke", data=dict(counts=_count_rows(lambda m, r, d: 200), memory=mem)
                             ).verdict == "corrected"  # cheaper at d = 128 only
    assert A.check_pda_speed("smoke", data=dict(counts=_count_rows(lambda m, r, d: 4 * d), memory=mem)
                             ).verdict == "refuted"


def test_lrcost_rule_reaches_every_verdict():
    base = A.cost_counts()
    assert A.check_pda_lrcost("smoke", data=base).verdict == "refuted"

    def planted(t):
        return dict(base, lrcost=[dict(x, truncation=t(x)) for x in base["lrcost"]])
    assert A.check_pda_lrcost("smoke", data=planted(lambda x: x["d_v"] // 2)).verdict == "verified"
    assert A.check_pda_lrcost("smoke", data=planted(lambda x: 100)).verdict == "corrected"  # cheaper at d_v = 128


def test_count_verdicts_do_not_depend_on_the_machine():
    """Cost verdicts come from counts: the same on a quiet and on a busy machine (no timing enters)."""
    import threading

    quiet = [A.check_pda_time("smoke"), A.check_pda_speed("smoke"), A.check_pda_space("smoke"),
             A.check_pda_memory("smoke"), A.check_pda_lrcost("smoke")]
    stop = threading.Event()

    def burn():
        x = np.random.default_rng(0).standard_normal((200, 200))
        while not stop.is_set():
            x @ x

    workers = [threading.Thread(target=burn) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        busy = [A.check_pda_time("smoke"), A.check_pda_speed("smoke"), A.check_pda_space("smoke"),
                A.check_pda_memory("smoke"), A.check_pda_lrcost("smoke")]
    finally:
        stop.set()
        for w in workers:
            w.join()
    assert [v.to_dict() for v in quiet] == [v.to_dict() for v in busy]


# ---- memory: exact byte counts (PDA-space, PDA-memory)
def test_memory_counts():
    res = A.memory_counts(A.PRESETS["smoke"])
    deg = {k: v["degree"] for k, v in res["methods"].items()}
    assert deg == {"dense": 2, "blocked": 1, "pda-stored": 2, "pda-streamed": 1}
    assert res["methods"]["pda-streamed"]["params"] == ["d", "m", "r"]
    assert res["at_1e6"]["dense"] > 8e12 and res["at_1e6"]["blocked"] < res["at_1e6"]["pda-streamed"]


def _mem(streamed_degree=1, blocked_degree=1, params=("d", "m", "r")):
    res = A.memory_counts(A.PRESETS["smoke"])
    meth = dict(res["methods"])
    meth["pda-streamed"] = dict(meth["pda-streamed"], degree=streamed_degree, params=list(params))
    meth["blocked"] = dict(meth["blocked"], degree=blocked_degree)
    return dict(res, methods=meth)


def test_space_rule_reaches_every_verdict():
    assert A.check_pda_space("smoke").verdict == "verified"
    assert A.check_pda_space("smoke", data=_mem(streamed_degree=2)).verdict == "refuted"


def test_memory_rule_reaches_every_verdict():
    v = A.check_pda_memory("smoke")
    assert v.verdict == "corrected" and v.numbers["formulas_missing"] == {
        "abstract O(Ld + Lm)": [], "§4.2 O(Ld + Lm + Lr)": [], "conclusion O(Ld)": ["m"]}
    assert A.check_pda_memory("smoke", data=_mem(streamed_degree=2)).verdict == "refuted"
    # only d in the count and exact attention quadratic: every formula covers it
    assert A.check_pda_memory("smoke", data=_mem(blocked_degree=2, params=("d",))).verdict == "verified"
    assert A.check_pda_memory("smoke", data=_mem(params=("d",))).verdict == "corrected"  # exact is linear


# ---- PDA-param: the exact algebra
def test_param_analysis_and_rule():
    res = A.param_analysis(TINY)
    assert res["algebra_exact"] and math.isinf(res["m_over_L_limit"]) and res["m_over_LlogL_limit"] == "256*d/eta**2"
    assert res["local_first"] > res["slope"] > res["local_last"] > 1
    assert A.check_pda_param("smoke", data=res).verdict == "verified"
    assert A.check_pda_param("smoke", data=dict(res, algebra_exact=False, algebra_diff="d*L")).verdict == "refuted"
    assert A.check_pda_param("smoke", data=dict(res, m_over_L_limit=0.0)).verdict == "refuted"
    assert all(r["m"] > r["L"] for r in res["rows"])
    _close(A.plot_param(res["rows"], 128))


# ---- PDA-fixed-m
def test_fixed_m_experiments():
    g = A.fixed_m_gaussian(TINY, 0)
    assert len(g) == 3 * 2 * 2 and all(0 < r["rel_O"] and 0 <= r["row_l1"] <= 2 for r in g)
    real = A.fixed_m_real(TINY, 0)
    assert len(real) == 3 * 12 * 2 and {r["L"] for r in real} == {64, 128, 256}
    # the blocked errors equal a dense computation
    rng = np.random.default_rng(1)
    Q, K, V = (rng.standard_normal((40, 8)) for _ in range(3))
    P = A.gaussian_projection(8, 16, rng=rng)
    (eo, ev, l1), = A._fixed_m_errors(Q, K, V, [P], block=7)
    At = A.softmax(A.projected_logits(Q, K, P))
    O = A.attention(Q, K, V)
    assert math.isclose(eo, np.linalg.norm(O - At @ V) / np.linalg.norm(O))
    assert math.isclose(l1, np.abs(A.softmax(Q @ K.T / math.sqrt(8)) - At).sum() / 40)
    assert A.check_pda_fixed_m("smoke", data=dict(gaussian=g, real=real)).verdict in VERDICTS


def _fixm(level, Ls=(256, 512, 1024, 2048), slope=0.0, name="gaussian"):
    return [dict(set=name, L=L, m=m, draw=k, rel_O=level * (L / Ls[0]) ** slope * (1 + 0.02 * (-1) ** k),
                 rel_V=0.05, row_l1=0.5) for L in Ls for m in (128, 256) for k in range(2)]


def test_fixed_m_rule_reaches_every_verdict():
    real_L = (64, 128, 256)
    assert A.check_pda_fixed_m("smoke", data=dict(gaussian=_fixm(0.05), real=_fixm(0.05, real_L, name="real"))
                               ).verdict == "verified"
    v = A.check_pda_fixed_m("smoke", data=dict(gaussian=_fixm(0.8), real=_fixm(0.3, real_L, name="real")))
    assert v.verdict == "refuted"
    # bad on the grid, but falling fast enough to reach 0.1 well below a million tokens: not refuted
    falling = dict(gaussian=_fixm(0.3, slope=-0.5), real=_fixm(0.3, real_L, slope=-0.5, name="real"))
    assert A.check_pda_fixed_m("smoke", data=falling).verdict == "corrected"
    # good on the real heads only
    assert A.check_pda_fixed_m("smoke", data=dict(gaussian=_fixm(0.8), real=_fixm(0.05, real_L, name="real"))
                               ).verdict == "corrected"


# ---- the illustrations: timings and traced memory (they decide nothing)
def test_cost_and_time_experiments_illustrate():
    rows = A.cost_experiment(TINY, 0)
    assert {r["method"] for r in rows} == {"dense", "blocked", "pda", "pda-streamed"}
    assert all(r["seconds"] > 0 and r["peak_bytes"] > 0 for r in rows)
    s = A.slopes(rows, "peak_bytes")
    assert set(s) == {"dense", "blocked", "pda", "pda-streamed"}
    ext = A.speed_extrapolation(rows, 4096)
    assert ext["dense"]["memory_power"] == 2 and ext["blocked"]["memory_power"] == 1
    assert set(A.speedups(rows)) == {32, 64, 128}
    _close(A.plot_cost(rows))
    t = A.time_experiment(TINY, 0)
    assert len(t) == 3 * 2 and all(r["exact"] > 0 and r["pda"] > 0 for r in t)
    assert math.isclose(t[0]["model"], (16 + 8 * 3) / 8)


def test_headlines_are_whole_sentences():
    """The findings box shows a verdict's first sentence whole (issue 18): no headline cut with '…'."""
    for v in (A.check_pda_time("smoke"), A.check_pda_speed("smoke"), A.check_pda_space("smoke"),
              A.check_pda_memory("smoke"), A.check_pda_lrcost("smoke"), A.check_pda_param("smoke"),
              A.check_pda_time("smoke", data=_count_rows(lambda m, r, d: 4 * d))):
        assert not v.headline.endswith("…") and v.headline in v.summary, v.headline
