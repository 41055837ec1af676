"""Evidence for chapter 11 (sparse patterns, the sparse-patterns summary): SP-approx, SP-exp, SP-robust, SP-tight.

Experiments (memoized): the smallest working projection dimension, found by search, for random sparse targets
over L (full and causal), over k, γ and the precisions at one L, and the time of the whole algorithm; the fits of
d against log L, √L and L with the lack-of-fit criterion that decides between them; the four checks; the figures.
The evidence of the section pages ``notebooks/11-sparse-patterns-inputs.ipynb`` (SP-tight) and
``notebooks/11-sparse-patterns-runs.ipynb`` (SP-exp, SP-robust) is :mod:`attnlab.audit.sparse_patterns_inputs` and
:mod:`attnlab.audit.sparse_patterns_runs`, re-exported here.
"""
from __future__ import annotations

import json
import math

import numpy as np
from scipy import sparse, stats

from ..theory.sparse_patterns import (log_target, moment_curve_attention,
                               packing_dimension_bound, pattern_profile, resample_success, sparse_dimension_bound)
from .cache import memoize
from .scale import preset
from .stats import clopper_pearson, fit_slope
from .verdict import Verdict

__all__ = ["PRESETS", "LAWS", "random_sparse_target", "search_dimension", "scaling_experiment",
           "robustness_experiment", "moment_experiment", "load_long_run", "growth_laws",
           "resample_summary", "compression", "fmt_num", "fmt_p", "check_sp_approx", "check_sp_causal",
           "plot_dimension_vs_L", "plot_success_rate",]

PRESETS = {
    "smoke": dict(L=[64, 96, 128, 192], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=2, draws=6, grid=8,
                  robust_L=64, robust_k=[1, 2, 4], robust_gamma=[1.0, 2.0], robust_eps=[[2.0, 0.5], [1.0, 0.5]],
                  time_L=[64, 128, 256, 512], time_reps=2, Q=[1, 4, 16], moment_L=[64, 128, 256]),
    "book": dict(L=[512, 1024, 2048, 3072], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=2, draws=8, grid=10,
                 robust_L=512, robust_k=[1, 2, 4], robust_gamma=[1.0, 2.0, 4.0], robust_eps=[[2.0, 0.5], [1.0, 0.5],
                                                                                            [2.0, 0.2]],
                 time_L=[256, 512, 1024, 2048], time_reps=3, Q=[1, 4, 16], moment_L=[128, 256, 512, 1024, 2048]),
    "paper": dict(L=[512, 1024, 2048, 3072, 4096, 6144, 8192], k=2, gamma=2.0, eps1=2.0, eps2=0.5, targets=4,
                  draws=16, grid=16, robust_L=1024, robust_k=[1, 2, 4, 8], robust_gamma=[1.0, 2.0, 4.0, 8.0],
                  robust_eps=[[2.0, 0.5], [1.0, 0.5], [2.0, 0.2], [0.5, 0.1]], time_L=[256, 512, 1024, 2048, 4096],
                  time_reps=5, Q=[1, 4, 16], moment_L=[128, 256, 512, 1024, 2048, 4096]),
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
def random_sparse_target(L, k, gamma, rng, *, causal=False, as_sparse=False):
    """A random target: the union of k random permutation patterns (at most k nonzeros per row and column),
    values exp(U(0, log γ)); causal: the lower triangle of k − 1 of them plus the diagonal. ``as_sparse``: the same
    draws as a SciPy CSR array (for lengths where a dense L×L target does not fit in memory)."""
    rows = np.arange(L)
    R, C, V = [], [], []
    for _ in range(k - 1 if causal else k):
        V.append(np.exp(rng.uniform(0.0, math.log(gamma), L)))  # drawn before the permutation (dense assignment order)
        R.append(rows)
        C.append(rng.permutation(L))
    if causal:
        keep = [c < rows for c in C]  # strictly below the diagonal; the diagonal is drawn next
        R, C, V = [r[m] for r, m in zip(R, keep)], [c[m] for c, m in zip(C, keep)], [v[m] for v, m in zip(V, keep)]
        R.append(rows)
        C.append(rows)
        V.append(np.exp(rng.uniform(0.0, math.log(gamma), L)))
    r, c, v = (np.concatenate(x) if x else np.zeros(0, int) for x in (R, C, V))
    # later permutations overwrite earlier ones where they collide, as assignment into a dense matrix does
    if as_sparse:
        key = r * L + c
        _, last = np.unique(key[::-1], return_index=True)
        idx = (key.size - 1 - last)
        return sparse.csr_array((v[idx], (r[idx], c[idx])), shape=(L, L))
    D = np.zeros((L, L))
    D[r, c] = v
    return D


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
    A = A if sparse.issparse(A) else sparse.csr_array(A)  # the same target; each call validates it in O(nnz), not O(L²)
    d = max(1, min(int(start), cap))
    while d < cap and not resample_success(A, [d], draws=2, **kw).success.all():
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
def moment_experiment(p: dict, seed: int) -> list:
    """The moment-curve construction (fixed d = 2k + 1) on random targets over p["moment_L"], full and causal, with
    the norm product R of its inputs and the packing lower bound at that R; beside it the norm product of the
    random-projection inputs (rows of B·G/√d and G/√d for one Gaussian G at d = 256: the row norms concentrate near
    ‖B_i‖ and 1 whatever d) and the packing lower bound at that R."""
    rng = np.random.default_rng(seed + 3)
    rows = []
    for causal in (False, True):
        for L in p["moment_L"]:
            A = random_sparse_target(L, p["k"], p["gamma"], rng, causal=causal)
            mc = moment_curve_attention(A, eps1=p["eps1"], eps2=p["eps2"], causal=causal)
            B = log_target(A, p["eps1"], p["eps2"], causal=causal)
            d = 256
            G = rng.standard_normal((L, d))
            R_jl = float(np.linalg.norm(B @ G, axis=1).max() / math.sqrt(d) * np.linalg.norm(G, axis=1).max()
                         / math.sqrt(d))
            rows.append(dict(L=L, causal=causal, d=mc.d, success=mc.success, ratio=mc.error.ratio,
                             leakage=mc.error.leakage, mass=mc.error.mass, max_entry=mc.max_entry, R=mc.norm_product,
                             packing=packing_dimension_bound(L, mc.norm_product, p["eps2"]), R_jl=R_jl,
                             packing_jl=packing_dimension_bound(L, R_jl, p["eps2"])))
    return rows


#: The long run's record (benchmarks/sparse_patterns.py), read from data/benchmarks.
LONG_RUN = "sparse-patterns-long.json"


def load_long_run(name: str = LONG_RUN):
    """The record of ``benchmarks/sparse_patterns.py`` (the search to L = 16,384 or beyond), or None if absent.

    Located as :func:`attnlab.audit.any_temperature.load_benchmark` locates its record. JSON nulls (infinite
    dimensions: a draw that never succeeded on its grid) come back as ``inf`` and the keys of ``dmin`` as ints, so
    the rows read like those of :func:`scaling_experiment`."""
    from .real_heads import data_dir  # noqa: PLC0415

    try:
        path = data_dir().parent / "benchmarks" / name
    except FileNotFoundError:
        return None
    if not path.is_file():
        return None
    rec = json.loads(path.read_text())
    inf = lambda v: math.inf if v is None else v  # noqa: E731
    for part in ("full", "causal"):
        for r in rec["rows"][part]:
            r["first"] = [inf(v) for v in r["first"]]
            r["dmin"] = {int(q): inf(v) for q, v in r["dmin"].items()}
    return rec


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
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def fmt_num(v, digits=2):
    """A number for a sentence: thousands separators below 10⁵, m × 10ⁿ above 10⁵ and below 10⁻³ (never 1e+09)."""
    if not math.isfinite(v):
        return "∞" if v > 0 else "–"
    if abs(v) >= 1e5 or 0 < abs(v) < 1e-3:
        e = math.floor(math.log10(abs(v)))
        return f"{v / 10**e:.{digits - 1}f} × 10{str(e).translate(_SUP)}"
    if abs(v) >= 100 or v == int(v):
        return f"{round(v):,}"
    return f"{v:.{digits}g}"


def fmt_p(v):
    """A p-value for a sentence: two digits, m × 10⁻ⁿ below 10⁻³ (never 9.3e-08)."""
    if not math.isfinite(v):
        return "–"
    if v < 1e-3:
        e = math.floor(math.log10(v)) if v > 0 else -300
        return f"{v / 10**e:.1f} × 10{str(e).translate(_SUP)}" if v > 0 else "0"
    return f"{v:.2g}"


#: Compression: the elasticity of the smallest working d in L (least squares of log d on log L over the long run's
#: medians per length) must have its upper 95% limit below this, i.e. d/L falls with L.
ELASTICITY_L_MAX = 1.0


def compression(rows) -> dict:
    """Per length of ``rows`` (full targets): the median smallest working d, d/L and the bound; the elasticity of d
    in L with its 95% interval; whether d lies below min(bound, L) at the longest length."""
    med = _median_dmin(rows)
    bnd = {}
    for r in rows:
        bnd.setdefault(r["L"], []).append(r["bound"])
    Ls = sorted(med)
    d = np.array([med[L] for L in Ls], float)
    ok = np.isfinite(d)
    if ok.sum() >= 3:
        f = fit_slope(np.log(np.array(Ls, float)[ok]), np.log(d[ok]))
        el, lo, hi = float(f.slope), float(f.slope_lo), float(f.slope_hi)
    else:
        el = lo = hi = math.nan
    last = Ls[-1]
    cap = min(float(np.median(bnd[last])), float(last))
    return dict(L=Ls, d=d.tolist(), d_over_L=(d / np.array(Ls, float)).tolist(),
                bound=[float(np.median(bnd[L])) for L in Ls], elasticity=el, elasticity_lo=lo, elasticity_hi=hi,
                falls=bool(ok.all() and hi < ELASTICITY_L_MAX), below_at_last=bool(d[-1] < cap),
                d_last=float(d[-1]), L_last=int(last), cap_last=cap)


def _sufficiency(inst):
    """Counts over (d, bound, censored, cap) instances: above the bound, failed past it, failed below it."""
    above = sum(1 for d, b, c, cap in inst if math.isfinite(d) and d > b)
    failed_tested = sum(1 for d, b, c, cap in inst if not math.isfinite(d) and cap >= b)
    untested = sum(1 for d, b, c, cap in inst if not math.isfinite(d) and cap < b)
    worst = max((d / b for d, b, c, cap in inst if math.isfinite(d)), default=math.nan)
    return above, failed_tested, untested, worst


def _data_approx(p, seed, data):
    if data is not None:
        return data
    long = load_long_run()
    return (scaling_experiment(p, seed), robustness_experiment(p, seed), None if long is None else long["rows"],
            moment_experiment(p, seed))


def check_sp_approx(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-approx, the literal statement (no bound on the inputs). Data: the chapter's searches, the robustness
    configurations, the long run's record (benchmarks/sparse_patterns.py) and the moment-curve runs.

    Rule, in order: (1) sufficiency of the random-projection construction: an instance that needs d above the
    proof's bound, or fails although searched past it: refuted; (2) compression on the long run (full targets): d/L
    must fall (upper 95% limit of the elasticity of d in L below ELASTICITY_L_MAX), else refuted; (3) an instance
    that failed with the search stopped below its bound, a missing long run, or d not below min(bound, L) at the
    longest length: unverifiable-here; (4) otherwise the theorem holds, and if the moment curve meets the precision
    at its fixed d = 2k + 1 at every tested L, a sharper statement holds for unbounded inputs: loose; if it fails
    somewhere: verified."""
    p = preset(PRESETS, scale)
    sc, rob, long, mom = _data_approx(p, seed, data)
    inst = [(r["dmin"][1], r["bound"], r.get("censored", False), _cap(r["L"])) for part in ("full", "causal")
            for r in sc[part]]
    inst += [(r["dmin"], r["bound"], r["censored"], _cap(p["robust_L"])) for r in rob]
    if long is not None:
        inst += [(r["dmin"][1], r["bound"], r.get("censored", False), _cap(r["L"])) for part in ("full", "causal")
                 for r in long[part]]
    above, failed_tested, untested, worst = _sufficiency(inst)
    comp = compression(long["full"]) if long is not None else None
    mf = [r for r in mom if not r["causal"]]
    m_ok = all(r["success"] for r in mf)
    m_d = sorted({r["d"] for r in mf})
    m_entry = max(r["max_entry"] for r in mf)
    pack = [r["packing_jl"] for r in mf]
    if above or failed_tested or (comp is not None and not comp["falls"]):
        verdict = "refuted"
    elif untested or comp is None or not comp["below_at_last"]:
        verdict = "unverifiable-here"
    else:
        verdict = "loose" if m_ok else "verified"
    if comp is not None:
        ctext = (f"d/L falls from {comp['d_over_L'][0]:.2f} at L = {comp['L'][0]:,} to {comp['d_over_L'][-1]:.3f} at "
                 f"L = {comp['L_last']:,} (elasticity of d in L {comp['elasticity']:.2f}, 95% interval "
                 f"{comp['elasticity_lo']:.2f} to {comp['elasticity_hi']:.2f}; d = {fmt_num(comp['d_last'])} against "
                 f"min(bound, L) = {fmt_num(comp['cap_last'])} at the longest length)")
    else:
        ctext = "the long run's record is missing, so compression (d/L falling) is not tested"
    mtext = (f"the moment curve meets the precision at the fixed d = {', '.join(map(str, m_d))} at every L from "
             f"{mf[0]['L']:,} to {mf[-1]['L']:,} (inputs up to {fmt_num(m_entry)})" if m_ok else
             f"the moment curve at its fixed d = {', '.join(map(str, m_d))} misses the precision at "
             f"{sum(not r['success'] for r in mf)} of {len(mf)} lengths")
    lead = {"loose": f"True but loose: d = O(log L) suffices, yet with unbounded inputs a fixed d = {m_d[0]} works at "
                     f"every L tried (entries up to {fmt_num(m_entry)}).",
            "verified": f"The random-projection construction works at d ≤ the proof's bound in {len(inst)} of "
                        f"{len(inst)} instances and d/L falls to {comp['d_over_L'][-1]:.3f} at L = {comp['L_last']:,}."
                        if comp else "",
            "refuted": (f"The construction fails the theorem: {above} instances need d above the bound, "
                        f"{failed_tested} fail past it" + (", and d/L does not fall." if comp and not comp["falls"]
                                                            else ".")),
            "unverifiable-here": f"Not decided: the construction succeeds in {len(inst) - untested} of {len(inst)} "
                                 f"instances, but " + (
                                     f"{untested} failed with the search stopped below the bound." if untested else
                                     "the long run's record is missing." if comp is None else
                                     f"d = {fmt_num(comp['d_last'])} ≥ min(bound, L) at L = {comp['L_last']:,}: "
                                     f"no compression shown.")}[verdict]
    summary = (f"{lead} Random projection: {len(inst) - above - failed_tested - untested} of {len(inst)} instances "
               f"(chapter, robustness configurations, long run; full and causal) succeed at a d of at most "
               f"{worst:.3g} times the proof's bound; {ctext}. Unbounded inputs: {mtext}. With inputs of bounded norm "
               f"(R = max‖q‖·max‖k‖ independent of L, as the random projection's, R ≈ {fmt_num(mf[-1]['R_jl'], 3)}) the "
               f"packing bound forces d ≥ log L / log(1 + 2R/log(1/ε₂)) ({pack[0]} to {pack[-1]} here): in that "
               f"reading O(log L) is right and tight (verified). The seed states no norm bound, so the literal "
               f"statement is judged.")
    return Verdict(
        "SP-approx", verdict, summary, headline=lead,
        numbers=dict(instances=len(inst), above_bound=above, failed_past_bound=failed_tested,
                     failed_below_bound=untested, max_dmin_over_bound=worst,
                     compression=None if comp is None else {k: comp[k] for k in (
                         "elasticity", "elasticity_lo", "elasticity_hi", "falls", "below_at_last")},
                     moment_d=m_d, moment_all_succeed=m_ok),
        thresholds=dict(refuted=f"an instance needs d above the bound or fails past it; or the elasticity of d in L "
                                f"has upper 95% limit >= {ELASTICITY_L_MAX} (d/L does not fall)",
                        unverifiable_here="an instance fails with the search stopped below its bound, the long run "
                                          "is missing, or d >= min(bound, L) at its longest length",
                        loose="all of the above hold and the moment curve meets the precision at fixed d = 2k + 1 "
                              "at every tested L (a sharper law for unbounded inputs)",
                        verified="all of the above hold and the moment curve fails somewhere"),
        scale=p["scale"])


def _law(name):
    return {"undecided": "undecided", "sqrt L": "d ~ √L", "L": "d ~ L", "log L": "d ~ log L"}[name]


def check_sp_causal(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-causal: the theorem for lower-triangular patterns with causally masked attention, d = O(log L). Data: the
    chapter's causal searches, the long run's causal rows and the causal moment-curve runs.

    Rule, in order: a causal instance that needs d above its causal bound (L(L+1)/2 pairs), or fails although
    searched past it, or a growth law other than log L decided on the long run's causal rows: refuted; an instance
    that failed with the search stopped below its bound, no long run, or the law undecided: unverifiable-here;
    otherwise the law is log L, and if the moment curve meets the precision on causal targets at its fixed d = 2k + 1
    at every tested L (a sharper statement for unbounded inputs, as for SP-approx): loose; else verified."""
    p = preset(PRESETS, scale)
    if data is None:
        rec = load_long_run()
        sc, long, mom = scaling_experiment(p, seed), (None if rec is None else rec["rows"]), moment_experiment(p, seed)
    else:
        sc, long, mom = data
    rows = list(sc["causal"]) + (list(long["causal"]) if long is not None else [])
    inst = [(r["dmin"][1], r["bound"], r.get("censored", False), _cap(r["L"])) for r in rows]
    above, failed_tested, untested, worst = _sufficiency(inst)
    law = growth_laws(long["causal"]) if long is not None else None
    decided = law["decided"] if law is not None else "undecided"
    mc = [r for r in mom if r["causal"]]
    m_ok = all(r["success"] for r in mc)
    m_d = sorted({r["d"] for r in mc})
    if above or failed_tested or decided in ("sqrt L", "L"):
        verdict = "refuted"
    elif untested or decided == "undecided":
        verdict = "unverifiable-here"
    else:
        verdict = "loose" if m_ok else "verified"
    Ls = sorted({r["L"] for r in long["causal"]}) if long is not None else []
    fl = law["fits"]["log L"] if law is not None else None
    span = f"L = {Ls[0]:,} to {Ls[-1]:,}" if Ls else "the chapter's lengths"
    lawtext = (f"over {span} the lack-of-fit test decides '{_law(decided)}' for causal targets (p: "
               + ", ".join(f"{LAW_LABELS[n]} {fmt_p(f['lof_p'])}" for n, f in law["fits"].items())
               + f"; d ≈ {fl['intercept']:.3g} + {fl['slope']:.3g}·log L)") if law is not None else \
        "the long run's record is missing, so the law is not decided"
    mtext = (f"the moment curve meets the precision on causal targets at the fixed d = {m_d[0]} at every L from "
             f"{mc[0]['L']:,} to {mc[-1]['L']:,}" if m_ok else
             f"the moment curve misses the precision on {sum(not r['success'] for r in mc)} of {len(mc)} causal targets")
    lead = {"loose": f"True but loose, as for full patterns: causal d grows like log L over {span}, yet unbounded "
                     f"inputs need only d = {m_d[0] if m_d else 5} at every L.",
            "verified": f"Causal patterns need d ~ log L over {span}, at most {worst:.3g} times the causal bound.",
            "refuted": (f"The causal extension fails: {above} instances need d above the bound, {failed_tested} fail "
                        f"past it, law decided: {_law(decided)}."),
            "unverifiable-here": f"The causal construction works where searched, but {lawtext}."}[verdict]
    summary = (f"{lead} The random projection with a causal mask succeeds in "
               f"{len(inst) - above - failed_tested - untested} of {len(inst)} causal instances (chapter and long "
               f"run) at a d of at most {worst:.3g} times the causal bound, which is O(log L) by the same proof (the "
               f"mask removes only entries the construction does not constrain); {lawtext}. Unbounded inputs: "
               f"{mtext}. With inputs of bounded norm d = Ω(log L) still: on the causal identity pattern (each "
               f"token attends to itself only) every key must be separated from all earlier ones, which is the "
               f"packing argument of the full case.")
    return Verdict(
        "SP-causal", verdict, summary, headline=lead,
        numbers=dict(instances=len(inst), above_bound=above, failed_past_bound=failed_tested,
                     failed_below_bound=untested, max_dmin_over_bound=worst, decided=decided,
                     lof_p=None if law is None else {n: f["lof_p"] for n, f in law["fits"].items()},
                     moment_d=m_d, moment_all_succeed=m_ok),
        thresholds=dict(refuted="a causal instance needs d above its bound or fails past it, or the long run decides "
                                "√L or L",
                        unverifiable_here="an instance fails with the search stopped below its bound, or the law is "
                                          "undecided (or no long run)",
                        loose="law log L and the moment curve meets the precision at fixed d = 2k + 1 at every L",
                        verified="law log L and the moment curve fails somewhere",
                        law=f"lack-of-fit F test at level {LOF_ALPHA}, as for SP-exp"),
        scale=p["scale"])


# ------------------------------------------------------------------------------------------------ figures
#: How the figures and tables write the growth laws.
LAW_LABELS = {"log L": "log L", "sqrt L": "√L", "L": "L", "undecided": "undecided"}
#: Series styles of this module's figures: the Okabe–Ito palette without its yellow, each colour with its own marker
#: and line style, so that the series stay apart in grey print.
_COLOURS = ("#E69F00", "#0072B2", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
_LINES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)))
_LAW_TEX = {"log L": r"$a + b\,\log L$", "sqrt L": r"$a + b\sqrt{L}$", "L": r"$a + bL$"}


def _log_ticks(ax):
    """Log axes whose labels never collide: minor ticks unlabelled; an x axis spanning fewer than two powers of ten
    (a y axis: fewer than three, its labels are stacked) gets labels at 1, 2 and 5 × 10ᵏ instead."""
    from ..plotting import log_ticks  # noqa: PLC0415

    log_ticks(ax, short=(2, 3), span="powers", labels="sci")


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
            ax.plot(xs, np.where(ys > 0, ys, np.nan), lw=1.2, color=_COLOURS[j % 7], ls=("-", "-.", (0, (5, 1)))[j % 3],
                    label=f"fit {_LAW_TEX[name]}")
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
        ax.plot(r["dims"], r["phat"], marker=_MARKERS[j % 7], ls=_LINES[j % 7], ms=2, lw=1, color=_COLOURS[j % 7],
                label=f"$L = {r['L']}$")
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


# --------------------------------------------------------------------------- moved to the section pages' modules
_MOVED_TO = {"timing_experiment": "sparse_patterns_runs", "check_sp_exp": "sparse_patterns_runs",
             "check_sp_robust": "sparse_patterns_runs", "plot_robustness": "sparse_patterns_runs",
             "known_targets": "sparse_patterns_runs", "check_sp_tight": "sparse_patterns_inputs"}


def __getattr__(name):
    """The evidence of the section pages moved to :mod:`attnlab.audit.sparse_patterns_runs` and
    :mod:`attnlab.audit.sparse_patterns_inputs`; re-exported here."""
    if name in _MOVED_TO:
        import importlib  # noqa: PLC0415

        return getattr(importlib.import_module(f"{__package__}.{_MOVED_TO[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
