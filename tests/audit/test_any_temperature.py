"""attnlab.audit.any_temperature: each check returns every verdict its rule can reach, on planted evidence."""
import math

import numpy as np
import pytest

from attnlab.audit import any_temperature as at


def _timing(slope_ours, slope_exact=2.0, n=tuple(2**k for k in range(8, 18)), noise=0.0, seed=0, err=1e-6):
    """Planted timings t = c·n^slope (with multiplicative noise) for attention_1d at B = 1, 100 and exact."""
    rng = np.random.default_rng(seed)
    rows = []
    for B in (1.0, 100.0):
        for x in n:
            jitter = math.exp(noise * rng.standard_normal())
            rows.append(dict(method="attention_1d", n=x, B=B, eps=1e-3, seconds=1e-6 * x**slope_ours * jitter,
                             err=err))
            rows.append(dict(method="exact", n=x, B=B, eps=0.0, seconds=1e-9 * x**slope_exact, err=0.0))
    return dict(rows=rows, loadavg=None)


def _counts(power_n=0.0, power_B=0.0, power_eps=0.0, ns=(2**8, 2**11, 2**14, 2**17), Bs=(1.0, 1e2, 1e4),
            epss=(1e-2, 1e-6, 1e-12)):
    """Planted count rows: kappa = 2 · n^power_n · B^power_B · (1/eps)^power_eps, on two key families (the
    uniform one cheaper: the envelope is the adversarial one)."""
    rows = []
    for fam, f in (("adversarial", 1.0), ("uniform", 0.1)):
        for n in ns:
            for B in Bs:
                for eps in epss:
                    kap = 2 * f * n**power_n * B**power_B * (1 / eps) ** power_eps
                    rows.append(dict(family=fam, n=n, B=B, eps=eps, g=20, L=10.0, bands=3, nodes=63, exps=1,
                                     ops=1, kappa=kap, per_key=kap))
    return rows


def _precision(top=1e-3, f64=1e4):
    return [dict(n=60, B=20.0, eps=1e-3, bits=b, g=23, err=r * 1e-3, ratio=r, ratio_1d=1e-4)
            for b, r in ((53, f64), (149, 2.0), (199, top), (299, top))]


def _data_1d(ratio=0.01, counts=None, precision=None):
    g = [dict(method="attention_1d", family="uniform", n=10, B=1.0, eps=1e-3, dtype="float64", err=ratio * 1e-3,
              ratio=ratio)]
    return dict(guarantee=g, counts=_counts() if counts is None else counts,
                precision=_precision() if precision is None else precision)


def test_check_at_1d_verified_on_a_polylog_count():
    v = at.check_at_1d("smoke", data=_data_1d())
    assert v.verdict == "verified", v.summary
    assert v.numbers["alg1_bits_needed"] == 199 and abs(v.numbers["slopes"]["n"]["slope"]) < 1e-9


def test_check_at_1d_refuted_by_an_error_above_eps():
    v = at.check_at_1d("smoke", data=_data_1d(ratio=1.5))
    assert v.verdict == "refuted" and v.numbers["worst_ratio"] == 1.5


def test_check_at_1d_refuted_when_algorithm_1_misses_eps_at_every_precision():
    v = at.check_at_1d("smoke", data=_data_1d(precision=_precision(top=3.0)))
    assert v.verdict == "refuted" and "at 299 bits" in v.summary


@pytest.mark.parametrize("kw", [dict(power_n=0.3), dict(power_B=0.2), dict(power_eps=0.15)])
def test_check_at_1d_refuted_by_a_count_beyond_the_polylog_law(kw):
    """A count that grows like a power of n, B or 1/eps beyond the law (slope above 0.1) refutes the time half,
    whatever a clock would say (there is none)."""
    v = at.check_at_1d("smoke", data=_data_1d(counts=_counts(**kw)))
    assert v.verdict == "refuted", v.numbers["slopes"]


def test_check_at_1d_judges_the_costlier_family():
    """The uniform family's count may grow towards the law from below (a pre-asymptotic effect); the rule reads the
    envelope, the costlier family at each point."""
    rows = _counts()
    for r in rows:
        if r["family"] == "uniform":
            r["kappa"] *= (r["n"] / 256) ** 0.3 * 0.01
    assert at.check_at_1d("smoke", data=_data_1d(counts=rows)).verdict == "verified"


def test_check_at_1d_unverifiable_when_the_count_grid_is_too_short():
    rows = _counts(ns=(256, 512), Bs=(1.0, 10.0), epss=(1e-2, 1e-3))
    v = at.check_at_1d("smoke", data=_data_1d(counts=rows))
    assert v.verdict == "unverifiable-here" and all(x is None for x in v.numbers["slopes"].values())


def test_count_slopes_and_envelope_on_planted_rows():
    rows = _counts(power_n=0.5)
    env = at.envelope(rows)
    assert len(env) == 4 * 3 * 3 and all(r["family"] == "adversarial" for r in env)
    assert at.count_slopes(env)["n"]["slope"] == pytest.approx(0.5)


def _reduction(err=1e-6, window=1e-3, search=(14, 14), weighted=(462, 462), degree_power=1.0, answered=True,
               weighted_n=None):
    runs = [dict(d=2, n=100, B=1.0, eps=1e-3, answered=answered, err=err * 1e-3, ratio=err, g=20,
                 search_max=search[0], search_bound=search[1], weighted=weighted[0], weighted_plan=weighted[1])]
    if not answered:
        runs = [dict(d=2, n=100, B=4.0, eps=1e-3, answered=False, reason="cancels")]
    win = [dict(d=2, n=100, B=1.0, eta=1e-4, rel=window * 1e-4, rel_over_eta=window)] if answered else []
    counts = []
    for n in (256, 1024):
        for eps in (1e-2, 1e-4, 1e-8, 1e-12):
            width = 10 + 5 * -math.log10(eps) + math.log2(n) / 4
            g = int(round(1.4 * width**degree_power))
            counts.append(dict(d=2, n=n, B=1.0, eps=eps, g=g, width=width, search_max=13, search_bound=13,
                               weighted=math.comb(g + 2, 2) * 2, calls=13 + math.comb(g + 2, 2) * 2))
    if weighted_n:  # the same degree at two n, different weighted sums: an n-dependence beyond g
        counts[4] = dict(counts[0], n=1024, weighted=counts[0]["weighted"] + 2, calls=counts[0]["calls"] + 2)
    return dict(runs=runs, counts=counts, window=win)


def test_check_at_fixed_d_verified_on_counted_calls():
    v = at.check_at_fixed_d("smoke", data=_reduction())
    assert v.verdict == "verified", v.summary
    assert "Matoušek" in v.summary and v.numbers["calls_max"] > v.numbers["calls_min"]


@pytest.mark.parametrize("kw", [dict(err=1.5), dict(window=2.0), dict(search=(15, 14)), dict(weighted=(400, 462)),
                                dict(degree_power=1.6), dict(weighted_n=True)])
def test_check_at_fixed_d_refuted(kw):
    v = at.check_at_fixed_d("smoke", data=_reduction(**kw))
    assert v.verdict == "refuted", v.summary


def test_check_at_fixed_d_unverifiable_when_no_case_is_answered():
    v = at.check_at_fixed_d("smoke", data=_reduction(answered=False))
    assert v.verdict == "unverifiable-here" and v.numbers["answered"] == 0


def _cancel(moment=(1e-15, 1e-12, 0.03, 0.2), direct=(1e-17, 1e-16, 1e-9, 1e-8)):
    return [dict(B=B, n=2000, eta=1e-4, g=60, L=16.8, p_rel=0.0, target=7e-4 * B, err_moment=m, err_direct=dd,
                 err_mp=1e-9, err_1d=1e-9, moment_vs_direct=m)
            for B, m, dd in zip((1.0, 2.0, 5.0, 10.0), moment, direct)]


def test_check_at_cancel_each_verdict():
    v = at.check_at_cancel("smoke", data=_cancel())
    assert v.verdict == "verified" and v.numbers["first_miss_B"] == 5.0
    assert at.check_at_cancel("smoke", data=_cancel(moment=(1e-15, 1e-12, 1e-6, 1e-5))).verdict == "refuted"
    both = at.check_at_cancel("smoke", data=_cancel(direct=(1e-17, 1e-16, 0.05, 0.3)))
    assert both.verdict == "unverifiable-here"
    inf = at.check_at_cancel("smoke", data=_cancel(moment=(1e-15, 1e-12, float("inf"), float("nan"))))
    assert inf.verdict == "verified"  # overflow is a miss, not a pass


def test_check_at_bigd_each_verdict_and_the_exact_counts():
    v = at.check_at_bigd("smoke")
    assert v.verdict == "verified" and "arithmetic fact" in v.summary
    rows = {r["d"]: r for r in at.bigd_table()}
    g = rows[64]["g"]
    assert rows[64]["monomials"] == math.comb(g + 64, 64) and rows[128]["monomials"] == math.comb(g + 128, 128)
    assert rows[64]["gain"] == pytest.approx((10**6) ** (1 / 64)) and rows[64]["gain"] < 1.25
    assert rows[64]["log10_crossover"] > 1000 and rows[2]["log10_crossover"] < 6
    assert math.comb(94, 64) == pytest.approx(3.2e24, rel=0.02)
    assert math.comb(168, 128) == pytest.approx(8.0e38, rel=0.02)
    planted = [dict(r, log10_crossover=5.0) if r["d"] == 64 else r for r in at.bigd_table()]
    assert at.check_at_bigd("smoke", data=planted).verdict == "refuted"


def test_algorithm_1_in_mpmath_needs_more_than_float64():
    """Algorithm 1 as printed at B = 20: fails at 53 bits, meets eps with enough bits (and attention_1d in float64)."""
    rng = np.random.default_rng(0)
    B, n = 20.0, 60
    q = np.concatenate([[0.0, B, -B], B * rng.uniform(-1, 1, 3)])
    k, v = B * rng.uniform(-1, 1, n), B * rng.uniform(-1, 1, n)
    ref = at.exact_rows_mp(q, k, v)
    lo, _ = at.algorithm1_mp(q, k, v, 1e-3, B, 53)
    hi, g = at.algorithm1_mp(q, k, v, 1e-3, B, 299)
    assert np.max(np.abs(lo - ref)) > 1e-3 >= np.max(np.abs(hi - ref)) and g > 10
    assert np.max(np.abs(at.exact_rows(q, k, v) - ref)) < 1e-12


def test_speedup_and_fit_on_planted_rows():
    t = _timing(1.0)["rows"]
    s = at.speedup(t, 100.0, 1e-3)
    assert s["n"] == 2**17 and s["speedup"] == pytest.approx(1e-9 * 2**34 / (1e-6 * 2**17))
    f = at.fit_time(t, "attention_1d", 1.0, 1e-3, 2**8)
    assert f["slope"] == pytest.approx(1.0) and f["points"] == 10


def test_naive_monomials_fail_where_attention_1d_holds():
    rng = np.random.default_rng(0)
    q, k, v = 16 * rng.uniform(0.5, 1, 8), 16 * rng.uniform(-1, 1, 256), rng.uniform(-1, 1, 256)
    ref = at.exact_rows(q, k, v)
    naive, g = at.naive_monomial_1d(q, k, v, 1e-3, 16.0)
    assert g > 5
    assert not np.all(np.abs(naive - ref) <= 1e-3)
    q1, k1 = q / 16, k / 16  # B = 1: the expansion is harmless
    naive1, _ = at.naive_monomial_1d(q1, k1, v, 1e-3, 1.0)
    assert np.max(np.abs(naive1 - at.exact_rows(q1, k1, v))) <= 1e-3


def test_make_case_families_and_exponents():
    rng = np.random.default_rng(0)
    for fam in at.FAMILIES:
        q, k, v = at.make_case(fam, 20, 8, 10.0, rng)
        assert k.shape == v.shape == (20,) and np.all(np.abs(k) <= 10) and np.all(np.abs(q) <= 10)
    with pytest.raises(ValueError, match="family"):
        at.make_case("nope", 3, 3, 1.0, rng)
    assert [r["exponent"] for r in at.exponent_table()][:2] == [1.0, 1.5]


def _tree(slope, n=(2**9, 2**10, 2**11), err=1e-6):
    rows = []
    for fam in ("square", "circle"):
        for B in (1.0, 10.0):
            for x in n:
                rows.append(dict(method="attention_2d", family=fam, n=x, B=B, eps=1e-3, seconds=1e-6 * x**slope,
                                 err=err))
                rows.append(dict(method="exact", family=fam, n=x, B=B, eps=0.0, seconds=1e-8 * x**2, err=0.0))
    return dict(rows=rows, loadavg=None)


def test_tree_summary_on_planted_rows():
    """Exponent, its place against 1.5, the crossover (from where it stays faster) and the extrapolated ratio."""
    rows = _tree(1.2, n=(2**9, 2**10, 2**11, 2**12))["rows"]
    rows = [r for r in rows if not (r["method"] == "exact" and r["n"] == 2**12)]  # exact measured up to 2^11 only
    s = {(t["family"], t["B"]): t for t in at.tree_summary(rows, 2**9)}
    t = s[("square", 1.0)]
    assert t["slope"] == pytest.approx(1.2) and t["vs_theta"] == "below" and t["points"] == 4
    assert t["crossover"] == 2**9 and t["exact_max"] == 2**11 and t["n_max"] == 2**12  # 1e-6 n^1.2 < 1e-8 n^2
    assert t["ratio_at_nmax"] == pytest.approx(1e-8 * 2**24 / (1e-6 * 2**(12 * 1.2)))
    slow = {(t["family"], t["B"]): t for t in at.tree_summary(_tree(1.95)["rows"], 2**9)}[("circle", 10.0)]
    assert slow["vs_theta"] == "above" and slow["crossover"] is None and slow["faster_at"] == []
    # faster at one n but not at the next: no crossover
    rows = _tree(1.2, n=(2**9, 2**10, 2**11))["rows"]
    for r in rows:
        if r["method"] == "attention_2d" and r["n"] == 2**11:
            r["seconds"] = 1.0
    assert {(t["family"], t["B"]): t for t in at.tree_summary(rows, 2**9)}[("square", 1.0)]["crossover"] is None


def test_load_benchmark_finds_the_record_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # the chapter's copy runs elsewhere (the smoke test, Colab): found via data_dir()
    rec = at.load_benchmark()
    assert rec is not None and {"n", "speedup", "direct_check"} <= set(rec["target"])
    monkeypatch.setenv("ATTNLAB_DATA_DIR", str(tmp_path))  # a data folder without benchmarks: None, not an error
    assert at.load_benchmark() is None


def test_figures_draw_no_zero_or_overflow_on_log_axes():
    import matplotlib

    matplotlib.use("Agg")
    g = [dict(method=m, family=f, n=n, B=1.0, eps=1e-3, dtype="float64", err=r * 1e-3, ratio=r)
         for m in ("attention_1d", "attention_gauss_1d") for f in at.FAMILIES for n, r in ((1, 0.0), (64, 1e-3))]
    fig, data = at.plot_guarantee(g)
    ys = np.concatenate([ln.get_ydata() for ln in fig.axes[0].get_lines()])
    assert len(data["ratio"]) == len(g) and np.all(ys > 0)
    nv = [dict(n=256, B=B, eps=1e-3, g_naive=20, err_naive=e, err_ours=0.0 if B == 1 else 1e-12)
          for B, e in ((1.0, 1e-12), (8.0, float("inf")), (16.0, 2.0))]
    fig, _ = at.plot_naive(nv)
    ys = np.concatenate([ln.get_ydata() for ln in fig.axes[0].get_lines() if len(ln.get_xdata())])
    assert np.all(np.isfinite(ys)) and np.all(ys > 0)
    tim = _timing(1.0)
    tim["rows"] += [dict(method="gauss", n=256, B=Bg, eps=1e-3, seconds=s, err=0.0)
                    for Bg, s in ((1.0, 1e-3), (10.0, float("nan")))]
    fig, _ = at.plot_timing(tim)
    assert len(fig.axes) == 2 and all(len(ax.get_lines()) <= 6 for ax in fig.axes)
    tree = dict(rows=[dict(method=m, family=f, n=n, B=B, eps=1e-3, seconds=1e-6 * n, err=0.0)
                      for m in ("attention_2d", "exact") for f in ("square", "circle") for B in (1.0, 10.0)
                      for n in (256, 512, 1024)], loadavg=None)
    fig, _ = at.plot_tree(tree)
    assert len(fig.axes) == 2 and all(len(ax.get_lines()) <= 6 for ax in fig.axes)
