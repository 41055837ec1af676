"""Checks of chapter 10 fed planted evidence (fabricated numbers, not reruns): each reachable verdict comes out."""
import copy
import math

import numpy as np
import pytest

from attnlab.audit import random_features as rf

# --------------------------------------------------------------------------- LR-favor
IDS = dict(mgf=True, step3=True, printed_227=False, step4=True, ratio_227="exp(k**2 + q**2)", ratio_227_at_example=4.48)


def _krow(kind, r, cos, m, mean=1.0, se=0.01, var=1.0, vse=0.01, var_theory=1.0, s2=1.0):
    return dict(kind=kind, r=r, cos=cos, m=m, qk=0.0, s2=s2, mean=mean, mean_lo=mean - 2 * se, mean_hi=mean + 2 * se,
                se=se, var=var, var_lo=var - 2 * vse, var_hi=var + 2 * vse, vse=vse, mean_theory=1.0,
                var_theory_iid=var_theory)


def _favor(printed=False, unit_mean=0.5, iid_mean=1.0, orth_var=0.5, var_theory=1.0, exact_ratio=None):
    """Planted evidence; the exact orthogonal/iid variance ratio defaults to the sampled one (``orth_var``)."""
    ratio = orth_var if exact_ratio is None else exact_ratio
    krows = []
    for m in (4, 8, 32):
        krows += [_krow("iid", 1.0, 0.5, m, mean=iid_mean, var_theory=var_theory),
                  _krow("orth", 1.0, 0.5, m, var=orth_var),
                  _krow("orth-sqrt-d", 1.0, 0.5, m),
                  _krow("orth-unit", 1.0, 0.5, m, mean=unit_mean),
                  _krow("iid", 2.0, 0.5, m, mean=5.0, s2=12.0)]       # beyond MEAN_S2: reported, never decides
    orows = [dict(d=16, tau=1.0, m=32, m_over_d=2.0, orthogonal=True, err=1.3, err_max=1.5, mean_v=0.8)]
    exact = {(r, 0.5, m): dict(s2=1.0, iid=1.0, orth=ratio, pair_cov=-0.1, pairs=m) for m in (4, 8, 32)
             for r in (1.0, 2.0)}
    return dict(IDS, printed_227=printed), krows, orows, exact


@pytest.mark.parametrize("planted,expected", [
    (_favor(), "corrected"),                                        # sign error at l. 227, unit rows biased
    (_favor(iid_mean=1.2), "refuted"),                              # a biased iid estimator
    (_favor(orth_var=1.5), "refuted"),                              # orthogonal features raise the variance
    (_favor(var_theory=2.0), "refuted"),                            # the variance formula fails
    (_favor(printed=True, unit_mean=1.0), "verified"),              # everything as printed holds
    (_favor(printed=True, unit_mean=1.0, orth_var=1.0), "refuted"),  # exact variances equal: not lower
    (_favor(exact_ratio=0.9), "refuted"),                           # the exact orthogonal variance misses the sampler
])
def test_check_lr_favor_planted(planted, expected):
    v = rf.check_lr_favor("smoke", data=planted)
    assert v.verdict == expected, v.summary
    assert v.numbers["parts"] and v.thresholds


def test_lr_favor_identity_checks_find_the_sign_error():
    ids = rf.identity_checks.__wrapped__()
    assert ids["step4"] and ids["mgf"] and ids["step3"] and not ids["printed_227"]
    assert ids["ratio_227"] == "exp(k**2 + q**2)"


# --------------------------------------------------------------------------- LR-example
def _example(fixed=1.44790, typical=0.72):
    return dict(fixed=fixed, exact=math.exp(0.5), printed_fixed=1.4478, printed_exact=1.6487,
                fixed_rel_err=1 - fixed / math.exp(0.5), printed_rel_err=0.12, unit_rows_mean=0.817,
                sd_iid_theory=2.36, unit=dict(mean=0.81, mean_lo=0.8, mean_hi=0.82),
                orth=dict(mean=1.62, mean_lo=1.5, mean_hi=1.7, median=0.73, median_abs_rel_err=typical,
                          within_printed=0.07, at_most_fixed=0.6),
                iid=dict(mean=1.6, mean_lo=1.5, mean_hi=1.7, median=0.6, median_abs_rel_err=0.8,
                         within_printed=0.05, at_most_fixed=0.6))


@pytest.mark.parametrize("planted,expected", [
    (_example(), "corrected"), (_example(fixed=1.30), "refuted"), (_example(typical=0.15), "verified")])
def test_check_lr_example_planted(planted, expected):
    assert rf.check_lr_example("smoke", data=planted).verdict == expected


# --------------------------------------------------------------------------- LR-linformer
def _linformer(err_at_n, slope, typed=False, fams=((64, 8, 1.0), (128, 8, 1.0), (128, 16, 1.0))):
    rows = []
    for i, (n, d, tau) in enumerate(fams):
        e_n = err_at_n[i] if isinstance(err_at_n, (list, tuple)) else err_at_n
        k = 8
        while k <= n:
            rows.append(dict(n=n, d=d, tau=tau, k=k, err=e_n * (k / n) ** slope, err_jl=(k / n) ** -0.5 * 0.5,
                             mean_v=0.8, d_log_d=d * math.log(d)))
            k *= 2
    shapes = dict(full=[64, 64], projected=[64, 64] if typed else [64, 8], n=64, k=8)
    return dict(rows=rows, shapes=shapes)


@pytest.mark.parametrize("planted,expected", [
    (_linformer(1.4, -1.0), "refuted"),                       # falls, but to a floor above the zero output's error
    (_linformer(0.05, -0.5), "corrected"),                   # JL-like, printed statement ill-typed
    (_linformer(0.05, -0.5, typed=True), "verified"),
    (_linformer([0.05, 0.05, 1.5], -0.5), "unverifiable-here"),   # mixed
    (_linformer(0.5, -0.1), "unverifiable-here"),             # below 1 at k = n but not falling
])
def test_check_lr_linformer_planted(planted, expected):
    assert rf.check_lr_linformer("smoke", data=planted).verdict == expected


# --------------------------------------------------------------------------- LR-cost
def _cost(perf_exp=1.0, perf_scale=1e-5, mem_exp=1.0, exact_scale=1e-8):
    rows = []
    ns = (256, 512, 1024, 2048, 4096)
    for n in ns + (8192, 16384):
        fast = {"performer": perf_scale * n**perf_exp, "performer causal": 1.2 * perf_scale * n**perf_exp,
                "linformer": 0.8 * perf_scale * n**perf_exp}
        for meth, t in fast.items():
            rows.append(dict(n=n, method=meth, seconds=t, runs=[t], peak_bytes=int(1e3 * n**mem_exp)))
        if n in ns:
            for meth in ("exact", "exact causal"):
                rows.append(dict(n=n, method=meth, seconds=exact_scale * n**2, runs=[], peak_bytes=int(50 * n)))
            rows.append(dict(n=n, method="dense", seconds=None, runs=[], peak_bytes=int(8 * n * n)))
    return rows


def _counts(crossover=None, time_degree=1, mem_degree=1, lin_crossover=None):
    ev = copy.deepcopy(_COUNTS)
    if crossover is not None:
        ev["performer"]["crossover"] = crossover
    if lin_crossover is not None:
        ev["linformer"]["crossover"] = lin_crossover
    ev["performer"]["time_degree"] = time_degree
    ev["performer"]["mem_degree"] = mem_degree
    return ev


_COUNTS = rf._counts_evidence(64, 256, 256)


@pytest.mark.parametrize("kw, expected", [
    (dict(), "corrected"),                                        # faster only beyond n* ≈ 2m
    (dict(crossover=0.5, lin_crossover=0.5), "verified"),         # faster at every length
    (dict(crossover=math.inf), "refuted"),                        # never faster
    (dict(time_degree=2), "refuted"),                             # not linear in n
    (dict(mem_degree=2), "refuted"),                              # memory not O(nm + m·d_k)
    (dict(crossover=0.5, lin_crossover=math.inf), "refuted"),     # the worst part decides
])
def test_check_lr_cost_planted(kw, expected):
    v = rf.check_lr_cost("smoke", data=_counts(**kw))
    assert v.verdict == expected, (v.summary, v.numbers["parts"])


def test_cost_counts_are_the_seed_forms():
    ev = _COUNTS
    assert ev["performer"]["time_degree"] == ev["linformer"]["time_degree"] == 1
    assert ev["performer"]["time_ratio_limit"] == 4 and ev["linformer"]["time_ratio_limit"] == 4
    # the crossover is 2m(d + d_v + 2)/(d + d_v + 1) and k(2d + 2d_v + 1)/(d + d_v + 1)
    assert ev["performer"]["crossover"] == pytest.approx(2 * 256 * 130 / 129)
    assert ev["linformer"]["crossover"] == pytest.approx(256 * 257 / 129)


# --------------------------------------------------------------------------- planted branches not covered above
@pytest.mark.parametrize("broken", [dict(mgf=False), dict(step3=False), dict(step4=False),
                                    dict(printed_227=False, step4=False)])
def test_check_lr_favor_refuted_when_the_derivation_fails(broken):
    """Parts (1)–(2): a failed SymPy step of the derivation (or a printed display that no step repairs) refutes."""
    ids, krows, orows, exact = _favor(printed=True, unit_mean=1.0)
    v = rf.check_lr_favor("smoke", data=({**ids, **broken}, krows, orows, exact))
    assert v.verdict == "refuted", v.numbers["parts"]


# --------------------------------------------------------------------------- LR-unbiased
def _unbiased_data(kernel_off=0.0, bias=0.01):
    n, d = 4, 2
    rows = [dict(m=m, R=1000, kernel_mean=(np.ones((n, n)) + kernel_off).tolist(),
                 kernel_se=np.full((n, n), 0.001).tolist(), out_bias=np.full((n, d), bias / m).tolist(),
                 out_se=np.full((n, d), 1e-4).tolist(), O_norm=1.0, O_scale=1.0) for m in (8, 32)]
    return dict(n=n, d=d, rows=rows)


@pytest.mark.parametrize("kw, verdict", [
    (dict(), "corrected"),                   # kernel unbiased, output biased: a ratio estimator
    (dict(bias=0.0), "verified"),            # an output without bias
    (dict(kernel_off=0.01), "refuted"),      # the kernel itself biased
])
def test_check_lr_unbiased_on_planted_evidence(kw, verdict):
    v = rf.check_lr_unbiased("smoke", data=_unbiased_data(**kw))
    assert v.verdict == verdict, v.summary


def test_unbiased_experiment_at_smoke_scale():
    from attnlab.audit.scale import preset
    P = preset(rf.PRESETS, "smoke")
    out = rf.unbiased_experiment(P, 0)
    assert [r["m"] for r in out["rows"]] == list(P["u_m"])
    assert rf.check_lr_unbiased("smoke", data=out).verdict == "corrected"


# --------------------------------------------------------------------------- presentation (issue 18)
_PLANTED = [("check_lr_favor", _favor()), ("check_lr_favor", _favor(printed=True, unit_mean=1.0)),
            ("check_lr_example", _example()), ("check_lr_example", _example(typical=0.15)),
            ("check_lr_linformer", _linformer(1.4, -1.0)), ("check_lr_linformer", _linformer(0.05, -0.5)),
            ("check_lr_cost", _counts()), ("check_lr_cost", _counts(crossover=0.5, lin_crossover=0.5)),
            ("check_lr_cost", _counts(time_degree=2)), ("check_lr_cost", _counts(crossover=math.inf)),
            ("check_lr_unbiased", _unbiased_data()), ("check_lr_unbiased", _unbiased_data(bias=0.0)),
            ("check_lr_unbiased", _unbiased_data(kernel_off=0.01))]


@pytest.mark.parametrize("check,planted", _PLANTED)
def test_summary_reads_as_a_finding(check, planted):
    """The headline is a whole first sentence (never cut), with a number; numbers rounded; one notation."""
    import re

    v = getattr(rf, check)("smoke", data=planted)
    assert v.headline.endswith(".") and not v.headline.endswith("…"), v.headline
    assert re.search(r"\d", v.headline), v.headline
    assert not re.search(r"\d\.\d{5,}", v.summary), v.summary
    assert " n = " not in v.summary and "ln " not in v.summary and "e^(" not in v.summary, v.summary


def _texts(fig):
    for ax in fig.axes:
        yield ax.get_xlabel()
        yield ax.get_ylabel()
        leg = ax.get_legend()
        if leg is not None:
            yield from (t.get_text() for t in leg.get_texts())
    for leg in fig.legends:
        yield from (t.get_text() for t in leg.get_texts())


def _assert_readable(fig):
    import matplotlib.ticker as mticker
    import numpy as np

    assert fig.get_figwidth() <= 6.8 + 1e-9, fig.get_figwidth()
    for text in _texts(fig):
        # underscores only inside mathtext, where they are subscripts
        outside = "".join(part for i, part in enumerate(text.split("$")) if i % 2 == 0)
        assert "_" not in outside and "mib" not in text, text
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                assert isinstance(axis.get_minor_formatter(), mticker.NullFormatter)
        for line in ax.get_lines():
            if line.get_transform() is not ax.transData:
                continue  # axhline/axvline: axes coordinates
            for data, scale in ((line.get_xdata(), ax.get_xscale()), (line.get_ydata(), ax.get_yscale())):
                vals = np.asarray(data, float)
                if scale == "log" and vals.size > 1:
                    assert not (vals[np.isfinite(vals)] <= 0).any()
        assert len([ln for ln in ax.get_lines() if ln.get_linestyle() != "None"]) <= 8


def test_figures_are_readable():
    """Issue 18: widths of 3.4 in per panel, mathtext labels, no minor tick labels or zeros on log axes."""
    import numpy as np

    ids, krows, orows, _ = _favor()
    orows = [dict(d=d, tau=t, m=int(r * d), m_over_d=r, orthogonal=o, err=1.2 / r ** 0.1, err_max=1.5, mean_v=0.8)
             for d in (16, 64) for t in (0.5, 1.0) for r in (0.5, 2, 8) for o in (True, False)]
    ex = _example()
    rng = np.random.default_rng(0)
    h, e = np.histogram(rng.standard_normal(1000), bins=20)
    ex["orth"].update(hist=h.tolist(), hist_edges=e.tolist())
    for fig, _ in (rf.plot_kernel(krows), rf.plot_output(orows), rf.plot_example(ex),
                   rf.plot_linformer(_linformer(1.4, -1.0)), rf.plot_cost(_cost())):
        _assert_readable(fig)




def test_exact_orthogonal_variance_against_sampling():
    """The quadrature of the orthogonal-χ pair moment against 200,000 sampled pairs, and the limits it must meet."""
    import numpy as np
    rng = np.random.default_rng(0)
    d, N, s_ = 8, 200000, 1.0
    W = rf.draw_omega(2, d, rng=rng, size=N)               # (N, 2, d): two rows of one orthogonal-χ block
    x = np.exp(s_ * W[:, :, 0].sum(1))                 # |x| = s along the first axis
    assert abs(x.mean() - rf.orth_pair_moment(s_, d)) < 4 * x.std() / math.sqrt(N)
    assert rf.chi_mgf(0.0, d) == pytest.approx(1.0)
    v = rf.exact_relative_variances(1.0, 1, d)
    assert v["orth"] == pytest.approx(v["iid"]) and v["pairs"] == 0
    v = rf.exact_relative_variances(1.0, 4, d)
    assert v["orth"] < v["iid"] == pytest.approx(math.expm1(1.0) / 4)
