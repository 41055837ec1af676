"""Evidence for chapter 11 (sparse patterns, seed 002): SP-approx, SP-exp, SP-robust, SP-tight.

Experiments (memoized): the smallest working projection dimension, found by search, for random sparse targets
over L (full and causal), over k, γ and the precisions at one L, and the time of the whole algorithm; the fits of
d against log L, √L and L with the lack-of-fit criterion that decides between them; the four checks; the figures.
"""
from __future__ import annotations

import math
import time

import numpy as np
from scipy import stats

from ..sparse_patterns import construct_sparse_attention, pattern_profile, resample_success, sparse_dimension_bound
from .cache import memoize
from .scale import preset
from .stats import clopper_pearson, fit_slope
from .verdict import Verdict

__all__ = ["PRESETS", "LAWS", "random_sparse_target", "search_dimension", "scaling_experiment",
           "robustness_experiment", "timing_experiment", "growth_laws", "resample_summary",
           "check_sp_approx", "check_sp_exp", "check_sp_robust", "check_sp_tight",
           "plot_dimension_vs_L", "plot_success_rate", "plot_robustness"]

PRESETS = {
    "smoke": dict(L=[64, 96, 128, 192], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=2, draws=6, grid=8,
                  robust_L=64, robust_k=[1, 2, 4], robust_gamma=[1.0, 2.0], robust_eps=[[2.0, 0.5], [1.0, 0.5]],
                  time_L=[64, 128, 256, 512], time_reps=2, Q=[1, 4, 16]),
    "book": dict(L=[512, 1024, 2048, 3072], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=2, draws=8, grid=10,
                 robust_L=512, robust_k=[1, 2, 4], robust_gamma=[1.0, 2.0, 4.0], robust_eps=[[2.0, 0.5], [1.0, 0.5],
                                                                                            [2.0, 0.2]],
                 time_L=[256, 512, 1024, 2048], time_reps=3, Q=[1, 4, 16]),
    "paper": dict(L=[512, 1024, 2048, 3072, 4096, 6144, 8192], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=4,
                  draws=16, grid=16, robust_L=1024, robust_k=[1, 2, 4, 8], robust_gamma=[1.0, 2.0, 4.0, 8.0],
                  robust_eps=[[2.0, 0.5], [1.0, 0.5], [2.0, 0.2], [0.5, 0.1]], time_L=[256, 512, 1024, 2048, 4096],
                  time_reps=5, Q=[1, 4, 16]),
}

#: The growth laws compared: d = a + b·f(L).
LAWS = {"log L": np.log, "sqrt L": np.sqrt, "L": lambda L: np.asarray(L, float)}
#: Lack-of-fit level: a law is rejected when its lack-of-fit F test gives p below this.
LOF_ALPHA = 0.01
#: A gap to the bound: bound / smallest working d above this at every L is slack (a factor-2 tightness reading);
#: below it somewhere, "far below the bound" is contradicted.
GAP = 2.0
#: "Resampling matters little" is contradicted when 16 draws instead of one save more than half of d
#: (pooled mean of d(Q=16)/d(Q=1) below this).
Q_RATIO = 0.5
#: Polynomial time: the upper 95% limit of the fitted time exponent at most this (the dense SVD is cubic).
TIME_EXP_MAX = 3.5
#: Robust: elasticity of d in the theory's factor F = max_i ||B_i||^2 / eta^2 at most this (upper 95% limit).
ELASTICITY_MAX = 1.25


# ------------------------------------------------------------------------------------------------ targets and search
def random_sparse_target(L, k, gamma, rng, *, causal=False):
    """A random target: the union of k random permutation patterns (at most k nonzeros per row and column),
    values exp(U(0, log γ)); causal: the lower triangle of k − 1 of them plus the diagonal."""
    A = np.zeros((L, L))
    rows = np.arange(L)
    for _ in range(k - 1 if causal else k):
        A[rows, rng.permutation(L)] = np.exp(rng.uniform(0.0, math.log(gamma), L))
    if causal:
        A = np.tril(A)
        A[rows, rows] = np.exp(rng.uniform(0.0, math.log(gamma), L))
    return A


def _dmin_at(dims, phat, q):
    """Smallest d with success rate >= q, linearly interpolated on the grid (inf if never reached)."""
    hit = np.flatnonzero(phat >= q)
    if hit.size == 0:
        return math.inf
    j = int(hit[0])
    if j == 0:
        return float(dims[0])
    d0, d1, p0, p1 = dims[j - 1], dims[j], phat[j - 1], phat[j]
    return float(d0 + (q - p0) / (p1 - p0) * (d1 - d0))


def _cap(L):
    """Largest d the Gaussian search tries."""
    return max(8 * L, 4096)


def search_dimension(A, p, rng, *, causal=False, start=16, projection="gaussian"):
    """Search the smallest working d for target A: a doubling pilot (2 draws) brackets it, then a geometric grid of
    p["grid"] dimensions from d_hi/4 to 1.25·d_hi, each evaluated on p["draws"] projections."""
    kw = dict(eps1=p["eps1"], eps2=p["eps2"], rng=rng, causal=causal, projection=projection, dtype=np.float32)
    cap = _cap(A.shape[0]) if projection == "gaussian" else A.shape[0]  # the orthogonal projection is exact at d = L
    d = max(1, min(int(start), cap))
    while d < cap and not resample_success(A, [d], draws=2, **kw)[2].all():
        d = min(2 * d, cap)
    d_hi = d
    dims = sorted({min(cap, max(1, int(round(x)))) for x in np.geomspace(d_hi / 4, 1.25 * d_hi, p["grid"])})
    ratio, leak, ok = resample_success(A, dims, draws=p["draws"], **kw)
    phat = ok.mean(axis=0)
    first = [float(dims[int(np.argmax(r))]) if r.any() else math.inf for r in ok]
    Q = p.get("Q", [1])
    return dict(L=int(A.shape[0]), causal=causal, dims=dims, phat=phat.tolist(), first=first,
                dmin={int(q): _dmin_at(np.array(dims), phat, 1 - 0.5 ** (1 / q)) for q in Q},
                d_hi=d_hi, censored=not bool(ok[:, -1].any()))


def _bound(p, L, k, gamma, causal=False, eps=None):
    e1, e2 = eps if eps is not None else (p["eps1"], p["eps2"])
    return sparse_dimension_bound(int(L), int(k), float(gamma), e1, e2, causal=causal)


@memoize
def scaling_experiment(p: dict, seed: int, progress: bool = False) -> dict:
    """Smallest working d over L (full and causal targets), p["targets"] random targets per L."""
    from tqdm.auto import tqdm  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    out = {}
    for causal in (False, True):
        rows, start = [], 16
        for L in tqdm(p["L"], desc="causal" if causal else "full", disable=not progress):
            for _ in range(p["targets"]):
                A = random_sparse_target(L, p["k"], p["gamma"], rng, causal=causal)
                r = search_dimension(A, p, rng, causal=causal, start=start)
                r["bound"] = _bound(p, L, p["k"], p["gamma"], causal)
                rows.append(r)
                start = max(16, r["d_hi"] // 2)
        out["causal" if causal else "full"] = rows
    return out


@memoize
def robustness_experiment(p: dict, seed: int, progress: bool = False) -> list:
    """Smallest working d at L = p["robust_L"] over k, γ and the precisions (ε1, ε2); one row per configuration,
    with the theory's factor F = max_i ||B_i||² / η² and the bound; also the seed's orthogonal projection."""
    from tqdm.auto import tqdm  # noqa: PLC0415

    rng = np.random.default_rng(seed + 1)
    L = p["robust_L"]
    configs = [(k, g, e) for k in p["robust_k"] for g in p["robust_gamma"] for e in p["robust_eps"]
               if not (k == 1 and g > 1)]
    rows = []
    for k, g, (e1, e2) in tqdm(configs, desc="k, γ, ε", disable=not progress):
        A = random_sparse_target(L, k, g, rng)
        q = dict(p, eps1=e1, eps2=e2)
        r = search_dimension(A, q, rng)
        c = math.log((1 + e1) / e2)
        lo = np.where(A > 0, A, np.inf).min(axis=1, keepdims=True)
        row_norm2 = float(np.where(A > 0, (np.log(np.where(A > 0, A, 1) / lo) + c) ** 2, 0).sum(axis=1).max())
        k_A, g_A = pattern_profile(A)
        rows.append(dict(k=k, gamma=g, eps1=e1, eps2=e2, k_measured=k_A, gamma_measured=g_A, dmin=r["dmin"][1],
                         factor=row_norm2 / (0.5 * math.log1p(e1)) ** 2, bound=_bound(p, L, k, g, eps=(e1, e2)),
                         projection="gaussian", censored=r["censored"]))
    A = random_sparse_target(L, p["k"], p["gamma"], rng)
    r = search_dimension(A, p, rng, projection="orthogonal")
    rows.append(dict(k=p["k"], gamma=p["gamma"], eps1=p["eps1"], eps2=p["eps2"], dmin=r["dmin"][1],
                     factor=math.nan, bound=_bound(p, L, p["k"], p["gamma"]), projection="orthogonal",
                     censored=r["censored"]))
    return rows


@memoize
def timing_experiment(p: dict, seed: int) -> list:
    """Wall time (median of p["time_reps"]) of the whole algorithm (checks, factorisation, resampling until success,
    the attention matrix) at the d where a doubling pilot first saw 2 of 2 draws succeed (the pilot is not timed)."""
    rng = np.random.default_rng(seed + 2)
    rows = []
    kw = dict(eps1=p["eps1"], eps2=p["eps2"], rng=rng, projection="gaussian", dtype=np.float32)
    for L in p["time_L"]:
        A = random_sparse_target(L, p["k"], p["gamma"], rng)
        d = 16
        while d < _cap(L) and not resample_success(A, [d], draws=2, **kw)[2].all():
            d *= 2
        times, res = [], []
        for _ in range(p["time_reps"]):
            t0 = time.perf_counter()
            out = construct_sparse_attention(A, d, eps1=p["eps1"], eps2=p["eps2"], rng=rng, max_resamples=64,
                                             projection="gaussian")
            times.append(time.perf_counter() - t0)
            res.append(out.resamples)
        rows.append(dict(L=L, d=d, time=float(np.median(times)), resamples=res,
                         success=bool(out.success)))
    return rows


# ------------------------------------------------------------------------------------------------ fits
def growth_laws(rows, *, alpha=LOF_ALPHA) -> dict:
    """Fit d = a + b·f(L) for each law to the per-draw first-success dimensions (replicates at each L) and decide.

    The lack-of-fit F test (replicates give the pure error) rejects a law when p < alpha. The law with the
    smallest residual sum of squares is *decided* if it is not rejected and every other law is; otherwise the
    data do not separate the laws ("undecided"). Slopes come with 95% intervals (Student t)."""
    L = np.array([r["L"] for r in rows for f in r["first"] if math.isfinite(f)], float)
    d = np.array([f for r in rows for f in r["first"] if math.isfinite(f)], float)
    levels = np.unique(L)
    sse_pure = sum(((d[L == x] - d[L == x].mean()) ** 2).sum() for x in levels)
    df_pure = d.size - levels.size
    fits = {}
    for name, f in LAWS.items():
        fx = f(L)
        fit = fit_slope(fx, d)
        rss = float(((d - fit.intercept - fit.slope * fx) ** 2).sum())
        df_lof = levels.size - 2
        if df_lof > 0 and df_pure > 0 and sse_pure > 0:
            F = ((rss - sse_pure) / df_lof) / (sse_pure / df_pure)
            pval = float(stats.f.sf(F, df_lof, df_pure))
        else:
            pval = math.nan
        fits[name] = dict(slope=fit.slope, slope_lo=fit.slope_lo, slope_hi=fit.slope_hi, intercept=fit.intercept,
                          r2=fit.r2, rss=rss, lof_p=pval)
    best = min(fits, key=lambda n: fits[n]["rss"])
    ok = fits[best]["lof_p"] >= alpha and all(fits[n]["lof_p"] < alpha for n in fits if n != best)
    return dict(fits=fits, best=best, decided=best if ok else "undecided", n=int(d.size), levels=int(levels.size),
                alpha=alpha)


def _median_dmin(rows, q=1):
    by = {}
    for r in rows:
        by.setdefault(r["L"], []).append(r["dmin"][q])
    return {L: float(np.median(v)) for L, v in sorted(by.items())}


def resample_summary(rows, Q) -> dict:
    """Per L: d at which Q resamples succeed with probability 1/2 (medians over targets), the ratio d(Q_max)/d(1),
    and the success rate p̂ at the first grid point at or above d(1) with its Clopper–Pearson interval (the
    resample count at that d is geometric with mean 1/p)."""
    out = []
    for L in sorted({r["L"] for r in rows}):
        rs = [r for r in rows if r["L"] == L]
        dq = {q: float(np.median([r["dmin"][q] for r in rs])) for q in Q}
        ks = ns = 0
        for r in rs:
            dims = np.array(r["dims"])
            j = int(np.searchsorted(dims, r["dmin"][1])) if math.isfinite(r["dmin"][1]) else len(dims)
            j = min(j, len(dims) - 1)
            n = len(r["first"])
            ks += round(r["phat"][j] * n)
            ns += n
        lo, hi = clopper_pearson(ks, ns)
        out.append(dict(L=L, dq=dq, q_ratio=dq[max(Q)] / dq[1], p=ks / ns, p_lo=float(lo), p_hi=float(hi),
                        mean_resamples=ns / max(ks, 1)))
    return out


# ------------------------------------------------------------------------------------------------ checks
def check_sp_approx(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-approx: in every instance the construction reaches the precision with success rate >= 1/2 at some d, and
    that d is at most the proof's bound (the bound itself is O(log L): the chapter checks it symbolically)."""
    p = preset(PRESETS, scale)
    sc, rob = data if data is not None else (scaling_experiment(p, seed), robustness_experiment(p, seed))
    inst = [(r["dmin"][1], r["bound"], r.get("censored", False), _cap(r["L"])) for part in ("full", "causal")
            for r in sc[part]]
    inst += [(r["dmin"], r["bound"], r["censored"], _cap(p["robust_L"])) for r in rob]
    found = [d for d, b, c, cap in inst if math.isfinite(d)]
    above = sum(1 for d, b, c, cap in inst if math.isfinite(d) and d > b)
    failed_tested = sum(1 for d, b, c, cap in inst if not math.isfinite(d) and cap >= b)
    untested = sum(1 for d, b, c, cap in inst if not math.isfinite(d) and cap < b)
    worst = max((d / b for d, b, c, cap in inst if math.isfinite(d)), default=math.nan)
    if above or failed_tested:
        verdict = "refuted"
    elif untested:
        verdict = "unverifiable-here"
    else:
        verdict = "verified"
    return Verdict(
        "SP-approx", verdict,
        f"The construction reached the precision in {len(found)} of {len(inst)} instances, always at a d of at most "
        f"{worst:.3g} times the proof's bound. "
        f"Instances: random targets, full and causal, over several k, γ and ε; success means a success rate of one "
        f"draw ≥ 1/2. {above} instances needed a d above the bound, {failed_tested} failed although searched past "
        f"it, and {untested} failed with the search stopped below it.",
        numbers=dict(instances=len(inst), succeeded=len(found), above_bound=above, failed_past_bound=failed_tested,
                     failed_below_bound=untested, max_dmin_over_bound=worst),
        thresholds=dict(verified="every instance succeeds at some d <= its bound",
                        refuted="an instance needs d above the bound, or fails although searched past the bound",
                        unverifiable_here="an instance fails but the search stopped below the bound"),
        scale=p["scale"])


def check_sp_exp(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-exp, on the book's rerun of the seed's design (its own experiment cannot be rerun exactly: no measure,
    precisions or targets are given). Four parts: (a) the growth law decided by :func:`growth_laws` is log L; (b) the
    causal targets get the same decision; (c) resampling matters little: the pooled mean of d(Q = 16)/d(Q = 1) is at
    least Q_RATIO; (d) far below the bound: bound/d > GAP at every L. A part contradicted
    gives ``refuted``; all parts agreeing (or the laws undecided) give ``unverifiable-here``.

    Parts (c) and (d) are contradicted only by effects no reading of "little" and "far" allows (the saving and the
    gap depend on the book's L, precision and its own derivation of the bound)."""
    p = preset(PRESETS, scale)
    sc = scaling_experiment(p, seed) if data is None else data
    law = {part: growth_laws(sc[part]) for part in ("full", "causal")}
    res = {part: resample_summary(sc[part], p["Q"]) for part in ("full", "causal")}
    q_all = [r["q_ratio"] for part in res for r in res[part]]
    q_min, q_mean = min(q_all), float(np.mean(q_all))
    far = min(r["bound"] / r["dmin"][1] for part in ("full", "causal") for r in sc[part] if math.isfinite(r["dmin"][1]))
    bad = []
    for part in ("full", "causal"):
        if law[part]["decided"] not in ("log L", "undecided"):
            bad.append(f"the data decide for d ~ {LAW_LABELS[law[part]['decided']]} on {part} targets")
    if law["full"]["decided"] != law["causal"]["decided"] and "undecided" not in (law["full"]["decided"],
                                                                                  law["causal"]["decided"]):
        bad.append("the causal targets follow another law")
    if q_mean < Q_RATIO:
        bad.append(f"16 resamples save {100 * (1 - q_mean):.0f}% of d")
    if far <= GAP:
        bad.append(f"d is only {far:.3g}× below the bound")
    verdict = "refuted" if bad else "unverifiable-here"
    fl = law["full"]["fits"]["log L"]
    def _law(name):
        return {"undecided": "undecided", "sqrt L": "d ~ √L", "L": "d ~ L", "log L": "d ~ log L"}[name]
    lead = (f"The book's rerun of the seed's design contradicts it: {'; '.join(bad)}." if bad else
            f"The book's rerun of the seed's design contradicts none of it (16 resamples save "
            f"{100 * (1 - q_mean):.0f}% of d; d ≥ {far:.3g}× below the bound); the seed's run cannot be repeated.")
    headline = (f"The book's rerun of the seed's design contradicts it: {bad[0]}"
                + (f" (and {len(bad) - 1} more)." if len(bad) > 1 else ".")) if bad else lead
    summary = (f"{lead} The growth law decided by the lack-of-fit test (level {LOF_ALPHA}) is "
               f"'{_law(law['full']['decided'])}' for full and '{_law(law['causal']['decided'])}' for causal "
               f"targets; the fit in log L is d ≈ {fl['intercept']:.3g} + {fl['slope']:.3g}·log L (slope 95% interval "
               f"{fl['slope_lo']:.3g} to {fl['slope_hi']:.3g}). 16 resamples instead of one lower d by "
               f"{100 * (1 - q_mean):.0f}% on average and by at most {100 * (1 - q_min):.0f}%. The seed gives neither its measure, nor its precisions, nor its targets.")
    return Verdict(
        "SP-exp", verdict, summary, headline=headline,
        numbers=dict(decided_full=law["full"]["decided"], decided_causal=law["causal"]["decided"],
                     lof_p_full={n: f["lof_p"] for n, f in law["full"]["fits"].items()},
                     lof_p_causal={n: f["lof_p"] for n, f in law["causal"]["fits"].items()},
                     log_slope=fl["slope"], log_slope_ci=[fl["slope_lo"], fl["slope_hi"]],
                     mean_q16_over_q1=q_mean, min_q16_over_q1=q_min, min_bound_over_d=far, contradicted=bad),
        thresholds=dict(law=f"lack-of-fit F test, reject at p < {LOF_ALPHA}; decided = best law kept, others rejected",
                        resampling=f"pooled mean d(Q=16)/d(Q=1) >= {Q_RATIO}", far_below=f"bound/d > {GAP}",
                        verdict="a contradicted part: refuted; otherwise unverifiable-here (not the seed's run)"),
        scale=p["scale"])


def check_sp_robust(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-robust. Polynomial time: the upper 95% limit of the fitted exponent of the algorithm's median time in L is
    at most TIME_EXP_MAX and every run succeeded within its resamples. Robust to k and γ: every (k, γ, ε) succeeds, and
    d grows no faster than the theory's factor F = max ||B_i||²/η² (upper 95% limit of the elasticity of d in F at
    most ELASTICITY_MAX). Both hold: verified; either fails: refuted."""
    p = preset(PRESETS, scale)
    rob, tim = (robustness_experiment(p, seed), timing_experiment(p, seed)) if data is None else data
    tf = fit_slope(np.log([r["L"] for r in tim]), np.log([r["time"] for r in tim]))
    all_ok = all(r["success"] for r in tim)
    g = [r for r in rob if r["projection"] == "gaussian"]
    fails = sum(1 for r in g if not math.isfinite(r["dmin"]))
    fin = [r for r in g if math.isfinite(r["dmin"])]
    ef = fit_slope(np.log([r["factor"] for r in fin]), np.log([r["dmin"] for r in fin]))
    span = max(r["dmin"] for r in fin) / min(r["dmin"] for r in fin)
    poly = tf.slope_hi <= TIME_EXP_MAX and all_ok
    robust = fails == 0 and ef.slope_hi <= ELASTICITY_MAX
    verdict = "verified" if poly and robust else "refuted"
    return Verdict(
        "SP-robust", verdict,
        f"The algorithm runs in time growing like L^{tf.slope:.2f} and succeeded in {len(g) - fails} of {len(g)} "
        f"(k, γ, ε) configurations, but the d it needs varies {span:.3g}-fold with them. "
        f"Time exponent 95% interval {tf.slope_lo:.2f} to {tf.slope_hi:.2f}; the elasticity of d in the theory's factor "
        f"max‖B_i‖²/η² is {ef.slope:.2f} (95% interval {ef.slope_lo:.2f} to {ef.slope_hi:.2f}): robust in the sense "
        "that it always works, with d growing as the norm of B, not insensitive to k and γ.",
        numbers=dict(time_exponent=tf.slope, time_exponent_ci=[tf.slope_lo, tf.slope_hi], runs_succeeded=all_ok,
                     configs=len(g), failures=fails, elasticity=ef.slope, elasticity_ci=[ef.slope_lo, ef.slope_hi],
                     d_span=span),
        thresholds=dict(polynomial=f"upper 95% limit of the time exponent <= {TIME_EXP_MAX}, every run succeeds",
                        robust=f"no configuration fails and the elasticity's upper 95% limit <= {ELASTICITY_MAX}"),
        scale=p["scale"])


def check_sp_tight(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-tight. A measured d far below an upper bound shows the bound's slack; it cannot show tightness (that needs a
    matching lower bound). Rule: measured d above the bound anywhere: refuted (the bound fails); bound/d > GAP at
    every L: the bound is loose (not tight even within a factor GAP), so the inference to tightness is wrong and the
    corrected statement is "the bound is loose by at least that factor": corrected; 1 <= bound/d <= GAP somewhere:
    the premise "far below" fails: refuted."""
    p = preset(PRESETS, scale)
    sc = scaling_experiment(p, seed) if data is None else data
    rows = [r for part in ("full", "causal") for r in sc[part] if math.isfinite(r["dmin"][1])]
    ratios = [r["bound"] / r["dmin"][1] for r in rows]
    lo, hi = min(ratios), max(ratios)
    law = growth_laws(sc["full"])["fits"]["log L"]
    Ls = np.array(sorted({r["L"] for r in sc["full"]}), float)
    bslope = fit_slope(np.log(Ls), [_bound(p, L, p["k"], p["gamma"]) for L in Ls]).slope if Ls.size >= 3 else math.nan
    if lo < 1:
        verdict = "refuted"
    elif lo > GAP:
        verdict = "corrected"
    else:
        verdict = "refuted"
    return Verdict(
        "SP-tight", verdict,
        f"The proof's bound exceeds the smallest working d by {lo:.3g}× to {hi:.3g}×: a gap to an upper bound measures "
        f"the bound's slack and cannot show that it is tight. "
        f"The bound's slope in log L ({bslope:.3g}) is {bslope / law['slope']:.3g}× the measured one "
        f"({law['slope']:.3g}); what holds is that the bound is loose by that factor.",
        numbers=dict(min_bound_over_d=lo, max_bound_over_d=hi, bound_log_slope=bslope, measured_log_slope=law["slope"],
                     slope_ratio=bslope / law["slope"]),
        thresholds=dict(refuted=f"bound/d < 1 anywhere (bound fails), or <= {GAP} somewhere (not far below)",
                        corrected=f"bound/d > {GAP} everywhere: below the bound by more than a factor {GAP}, "
                                  "hence loose, not tight"),
        scale=p["scale"])


# ------------------------------------------------------------------------------------------------ figures
#: How the figures and tables write the growth laws.
LAW_LABELS = {"log L": "log L", "sqrt L": "√L", "L": "L", "undecided": "undecided"}
_LAW_TEX = {"log L": r"$a + b\,\log L$", "sqrt L": r"$a + b\sqrt{L}$", "L": r"$a + bL$"}


def _sci(v, _pos=None):
    """A tick label: plain between 1e-3 and 1e5, otherwise m×10ⁿ in mathtext."""
    if v <= 0:
        return ""
    if 1e-3 <= v < 1e5:
        return f"{v:g}"
    e = math.floor(math.log10(v) + 1e-9)
    mant = v / 10**e
    return rf"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else rf"${mant:g}\times10^{{{e}}}$"


def _log_ticks(ax):
    """Log axes whose labels never collide: minor ticks unlabelled; an x axis spanning fewer than two powers of ten
    (a y axis: fewer than three, its labels are stacked) gets labels at 1, 2 and 5 × 10ᵏ instead."""
    from matplotlib import ticker  # noqa: PLC0415

    for axis, (lo, hi), scale in ((ax.xaxis, ax.get_xlim(), ax.get_xscale()),
                                  (ax.yaxis, ax.get_ylim(), ax.get_yscale())):
        if scale != "log" or not (0 < lo < hi):
            continue
        decades = math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1
        if decades < (2 if axis is ax.xaxis else 3):
            axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(_sci))
        axis.set_minor_formatter(ticker.NullFormatter())


def plot_dimension_vs_L(sc, p):
    """Smallest working d (median over targets, and per-draw first successes as grey dots) against L with the three
    fitted laws, the proof's bound and d = L; full targets left, causal right. Fitted values ≤ 0 are not drawn
    (log axis)."""
    from attnlab.plotting import figure  # noqa: PLC0415

    fig, axes = figure(2, 1, width=3.4, height=2.6, sharey=True)
    data = {}
    for ax, part in zip(axes, ("full", "causal")):
        rows = sc[part]
        law = growth_laws(rows)
        Ls = np.array(sorted({r["L"] for r in rows}), float)
        xs = np.geomspace(Ls.min(), Ls.max(), 50)
        for r in rows:
            fin = [f for f in r["first"] if math.isfinite(f)]
            ax.plot([r["L"]] * len(fin), fin, ".", color="0.7", ms=2, label="first success of one draw")
        med = _median_dmin(rows)
        ax.plot(list(med), list(med.values()), "o", color="k", label="smallest working $d$ (median)", zorder=3)
        for j, (name, f) in enumerate(LAWS.items()):
            ft = law["fits"][name]
            ys = ft["intercept"] + ft["slope"] * f(xs)
            ax.plot(xs, np.where(ys > 0, ys, np.nan), lw=1.2, color=f"C{j}", label=f"fit {_LAW_TEX[name]}")
        bnd = [_bound(p, L, p["k"], p["gamma"], part == "causal") for L in Ls]
        ax.plot(Ls, bnd, "--", color="k", lw=1, label="the proof's bound")
        ax.plot(xs, xs, ":", color="k", lw=1, label="$d = L$ (exact)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"sequence length $L$ ({part} targets)")
        _log_ticks(ax)
        data[f"L_{part}"] = list(med)
        data[f"d_{part}"] = list(med.values())
        data[f"bound_{part}"] = bnd
    axes[0].set_ylabel("smallest working $d$")
    handles, labels = axes[0].get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    fig.tight_layout()
    fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7)
    return fig, data


def plot_success_rate(sc):
    """Success rate of one draw against d, one curve per random target, coloured by L (full targets)."""
    from attnlab.plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    data = {}
    Ls = sorted({r["L"] for r in sc["full"]})
    for i, r in enumerate(sc["full"]):
        j = Ls.index(r["L"])
        ax.plot(r["dims"], r["phat"], "-o", ms=2, lw=1, color=f"C{j}", label=f"$L = {r['L']}$")
        data[f"d_L{r['L']}_target{i}"] = r["dims"]
        data[f"p_L{r['L']}_target{i}"] = r["phat"]
    ax.axhline(0.5, color="k", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("projection dimension $d$")
    ax.set_ylabel("success rate of one draw")
    _log_ticks(ax)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig, data


def plot_robustness(rob):
    """Smallest working d against the theory's factor max ||B_i||²/η², one point per (k, γ, ε), coloured by k."""
    from attnlab.plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    g = [r for r in rob if r["projection"] == "gaussian" and math.isfinite(r["dmin"])]
    for k in sorted({r["k"] for r in g}):
        pts = [r for r in g if r["k"] == k]
        ax.plot([r["factor"] for r in pts], [r["dmin"] for r in pts], "o", label=f"$k = {k}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\mathrm{max}_i\,\|B_i\|^2/\eta^2$")
    ax.set_ylabel("smallest working $d$")
    _log_ticks(ax)
    ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    return fig, dict(factor=[r["factor"] for r in g], dmin=[r["dmin"] for r in g], k=[r["k"] for r in g],
                     gamma=[r["gamma"] for r in g], eps1=[r["eps1"] for r in g], eps2=[r["eps2"] for r in g])
