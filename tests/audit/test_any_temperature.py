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


def _data_1d(ratio=0.01, **kw):
    g = [dict(method="attention_1d", family="uniform", n=10, B=1.0, eps=1e-3, dtype="float64", err=ratio * 1e-3,
              ratio=ratio)]
    return dict(guarantee=g, timing=_timing(**kw))


def test_check_at_1d_verified():
    assert at.check_at_1d("smoke", data=_data_1d(slope_ours=1.05)).verdict == "verified"


def test_check_at_1d_refuted_by_an_error_above_eps():
    v = at.check_at_1d("smoke", data=_data_1d(ratio=1.5, slope_ours=1.0))
    assert v.verdict == "refuted" and v.numbers["worst_ratio"] == 1.5


def test_check_at_1d_refuted_by_an_error_in_the_timing_run():
    assert at.check_at_1d("smoke", data=_data_1d(slope_ours=1.0, err=2e-3)).verdict == "refuted"


def test_check_at_1d_refuted_by_quadratic_time():
    assert at.check_at_1d("smoke", data=_data_1d(slope_ours=1.9)).verdict == "refuted"


def test_check_at_1d_unverifiable_when_noise_hides_the_law():
    v = at.check_at_1d("smoke", data=_data_1d(slope_ours=1.1, noise=1.0, seed=3))
    assert v.verdict == "unverifiable-here", v.numbers["fits"]


def test_check_at_1d_unverifiable_when_the_control_fails():
    assert at.check_at_1d("smoke", data=_data_1d(slope_ours=1.0, slope_exact=1.0)).verdict == "unverifiable-here"


def _tree(slope, n=(2**9, 2**10, 2**11), err=1e-6):
    rows = []
    for fam in ("square", "circle"):
        for B in (1.0, 10.0):
            for x in n:
                rows.append(dict(method="attention_2d", family=fam, n=x, B=B, eps=1e-3, seconds=1e-6 * x**slope,
                                 err=err))
                rows.append(dict(method="exact", family=fam, n=x, B=B, eps=0.0, seconds=1e-8 * x**2, err=0.0))
    return dict(rows=rows, loadavg=None)


def _data_fixed(mismatch=0, dropped=1e-6, slope=1.2, err=1e-6):
    hs = [dict(d=2, B=1.0, n=100, L=10.0, eta=1e-4, mismatch=mismatch, dropped=dropped, relevant_frac=0.5)]
    return dict(halfspace=hs, tree=_tree(slope, err=err))


def test_check_at_fixed_d_unverifiable_when_the_premises_hold():
    v = at.check_at_fixed_d("smoke", data=_data_fixed())
    assert v.verdict == "unverifiable-here"
    assert v.numbers["beats_exact_at"]  # 1e-6 n^1.2 < 1e-8 n^2 from n = 2^9 on
    assert at.check_at_fixed_d("smoke", data=_data_fixed(slope=1.95)).verdict == "unverifiable-here"


@pytest.mark.parametrize("kw", [dict(mismatch=1), dict(dropped=2e-4), dict(err=2e-3)])
def test_check_at_fixed_d_refuted(kw):
    assert at.check_at_fixed_d("smoke", data=_data_fixed(**kw)).verdict == "refuted"


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


# planted branches not covered above
def test_check_at_1d_refuted_by_a_superlinear_law_below_quadratic():
    """The cut is at exponent 1 + tol (0.35), not at 2: a clean n^1.6 law refutes 'Õ(n·polylog)'."""
    v = at.check_at_1d("smoke", data=_data_1d(slope_ours=1.6))
    assert v.verdict == "refuted", v.numbers["fits"]


def test_check_at_1d_unverifiable_when_the_grid_is_too_short_to_fit():
    """No size at or above the preset's t_fit_min: no fitted law, so no verdict on time (never verified)."""
    v = at.check_at_1d("smoke", data=_data_1d(slope_ours=1.0, n=tuple(2**k for k in range(8, 12))))
    assert all(f is None for f in v.numbers["fits"].values())
    assert v.verdict == "unverifiable-here"


def test_check_at_fixed_d_never_verifies():
    """By its stated rule (the time bound needs partition trees) AT-fixed-d reaches only refuted and
    unverifiable-here: even a planted n^1 law with exact halfspaces and no error is not 'verified'."""
    assert at.check_at_fixed_d("smoke", data=_data_fixed(slope=1.0, dropped=0.0, err=0.0)).verdict == "unverifiable-here"


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


def test_check_at_fixed_d_summary_reports_the_d2_exponents_and_crossovers():
    v = at.check_at_fixed_d("smoke", data=_data_fixed(slope=1.2))
    assert "1.20 [" in v.summary and "faster than exact attention from n = 512" in v.summary
    assert len(v.numbers["tree"]) == 4
    v = at.check_at_fixed_d("smoke", data=_data_fixed(slope=1.95))
    assert "never faster than exact attention up to n = 2048" in v.summary and v.verdict == "unverifiable-here"


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
