"""The evidence of a section page (``notebooks/10-random-features-linformer.ipynb``, claims LR-linformer and LR-cost):
random-projection Linformer and the Linformer paper's factorisation, one loop over every method, and the cost by exact
operation counts with timings and traced memory beside them; moved as they were from
:mod:`attnlab.audit.random_features`, which keeps the presets, the rules and the shared helpers and re-exports these
names.
"""
from __future__ import annotations

import math
import resource
import time
import tracemalloc

import numpy as np
import sympy as sp
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from ..core.exact import attention, attention_blocked
from ..approx.pda import pda_attention
from ..approx.random_features import linformer_attention, performer_attention
from .cache import memoize
from .scale import preset
from .stats import fit_slope
from .verdict import Verdict
from .random_features import _COLOURS, _LINES, _MARKERS, METHOD_LABELS, PRESETS, TIE, _ERR, _ORDER, _legend_below, _log_ticks, _rel

__all__ = [
    "linformer_experiment",
    "methods_experiment",
    "_user_time",
    "_timed",
    "_peak",
    "cost_experiment",
    "_fit",
    "_crossover",
    "cost_summary",
    "check_lr_linformer",
    "plot_linformer",
    "plot_cost",
    "cost_counts",
    "_poly_text",
    "_counts_evidence",
    "counts_experiment",
    "check_lr_cost",
]

#: LR-linformer's thresholds, each used by its comparison and formatted into its text: a family fails when its error at
#: k = L is at least ZERO_OUTPUT_ERR (the error of the zero output), agrees when below it with a slope interval ending
#: at or below SLOPE_MAX; the JL form falls at the JL rate when its slope interval lies in JL_SLOPE.
ZERO_OUTPUT_ERR = 1.0
SLOPE_MAX = -0.25
JL_SLOPE = (-0.75, -0.25)


@memoize
def linformer_experiment(p: dict, seed: int, *, progress=False):
    """Output error of :func:`attnlab.linformer_attention` (Gaussian E, F with N(0, 1/k) entries) against exact
    attention, ‖Õ − O‖_F/‖O‖_F, over k = l_k0, 2·l_k0, …, n for each n, d, τ (median of ``l_reps`` draws);
    beside it the error of A·RᵀR·V (R k×n Gaussian, the low-rank form of the Linformer paper's Theorem 1) and of
    the trivial output 'mean of V'. Also the shapes of the two matrices compared by the printed statement."""
    rng = np.random.default_rng(seed)
    rows = []
    grid = [(n, d, tau) for n in p["l_n"] for d in p["l_d"] for tau in p["l_tau"]]
    shapes = None
    for n, d, tau in tqdm(grid, desc="linformer", disable=not progress, leave=False):
        beta = tau / math.sqrt(d)
        insts = [tuple(rng.standard_normal((n, d)) for _ in range(3)) for _ in range(p["l_reps"])]
        As = [np.exp((Q @ K.T) * beta - ((Q @ K.T) * beta).max(axis=1, keepdims=True)) for Q, K, _ in insts]
        As = [A / A.sum(axis=1, keepdims=True) for A in As]
        Os = [A @ V for A, (_, _, V) in zip(As, insts)]
        mean_v = float(np.median([_rel(np.broadcast_to(V.mean(axis=0), O.shape), O)
                                  for (_, _, V), O in zip(insts, Os)]))
        k = p["l_k0"]
        while k <= n:
            e_lin, e_jl = [], []
            for i, ((Q, K, V), A, O) in enumerate(zip(insts, As, Os)):
                g = np.random.default_rng([seed, n, d, k, i])
                e_lin.append(_rel(linformer_attention(Q, K, V, k, rng=g, beta=beta), O))
                Rm = g.standard_normal((k, n)) / math.sqrt(k)
                e_jl.append(_rel(A @ (Rm.T @ (Rm @ V)), O))
                if shapes is None:
                    E = g.standard_normal((k, n)) / math.sqrt(k)
                    shapes = dict(full=list(A.shape), projected=list((Q @ (E @ K).T).shape), n=n, k=k)
            rows.append(dict(n=n, d=d, tau=tau, k=k, err=float(np.median(e_lin)), err_jl=float(np.median(e_jl)),
                             mean_v=mean_v, d_log_d=d * math.log(d)))
            k *= 2
    return dict(rows=rows, shapes=shapes)


@memoize
def methods_experiment(p: dict, seed: int):
    """One loop, one signature: exact, Performer (orthogonal, iid, causal), Linformer and PDA on the same Gaussian
    Q, K, V (n = ``mt_n``, d = 64, β = 1/√d); error relative to ‖O‖_F and wall time (median of 3)."""
    rng = np.random.default_rng(seed)
    n, d, m, r = p["mt_n"], 64, p["mt_m"], p["mt_r"]
    Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))
    O, Oc = attention(Q, K, V), attention(Q, K, V, causal=True)
    methods = {
        "exact (blocked)": (lambda g: attention_blocked(Q, K, V), O),
        f"Performer m={m}, orthogonal": (lambda g: performer_attention(Q, K, V, m, rng=g), O),
        f"Performer m={m}, iid": (lambda g: performer_attention(Q, K, V, m, rng=g, orthogonal=False), O),
        f"Performer m={m}, causal": (lambda g: performer_attention(Q, K, V, m, rng=g, causal=True), Oc),
        f"Linformer k={m}": (lambda g: linformer_attention(Q, K, V, m, rng=g), O),
        f"PDA m={m // 2}, r={r}": (lambda g: pda_attention(Q, K, V, m // 2, r, rng=g, svd="randomized"), O),
        "mean of V": (lambda g: np.broadcast_to(V.mean(axis=0), O.shape), O),
    }
    rows = []
    for name, (fn, ref) in methods.items():
        ts = []
        for i in range(3):
            t = time.perf_counter()
            out = fn(np.random.default_rng([seed, i]))
            ts.append(time.perf_counter() - t)
        rows.append(dict(method=name, rel_err_O=_rel(out, ref), seconds=float(np.median(ts))))
    return rows


def _user_time() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def _timed(fn, repeats, min_batch=0.05):
    """User CPU time per call (``getrusage``, one thread): calls are batched until a batch takes at least
    ``min_batch`` s, and the median over ``repeats`` batches is returned (with the per-call time of each batch).
    System time (page faults, which follow the shared machine's memory pressure) is left out."""
    calls, ts = 1, []
    while True:
        t = _user_time()
        for _ in range(calls):
            fn()
        dt = _user_time() - t
        if dt >= min_batch or calls >= 64:
            break
        calls *= 2
    ts.append(dt / calls)
    for _ in range(repeats - 1):
        t = _user_time()
        for _ in range(calls):
            fn()
        ts.append((_user_time() - t) / calls)
    return float(np.median(ts)), [float(x) for x in ts]


def _peak(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return int(peak)


@memoize
def cost_experiment(p: dict, seed: int, *, progress=False):
    """User CPU time per call (median of ``c_rep`` batches, one thread: the machine is shared, and the user CPU
    time of a single-threaded run is what other processes disturb least) and peak traced memory (:mod:`tracemalloc`) over n
    at d = ``c_d``: exact blocked attention (non-causal, causal) on ``c_n``, Performer with m = ``c_m``
    (non-causal, causal) and Linformer with k = ``c_k`` on ``c_n`` and the longer ``c_n_fast``, dense exact
    attention (memory only) up to ``c_dense_max``."""
    rng = np.random.default_rng(seed)
    d, m, k, blk = p["c_d"], p["c_m"], p["c_k"], p["c_block"]
    rows = []
    grid = list(p["c_n"]) + list(p["c_n_fast"])
    with threadpool_limits(1):
        for n in tqdm(grid, desc="cost", disable=not progress, leave=False):
            Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))
            g = np.random.default_rng(seed)
            methods = {
                "performer": lambda: performer_attention(Q, K, V, m, rng=g),
                "performer causal": lambda: performer_attention(Q, K, V, m, rng=g, causal=True),
                "linformer": lambda: linformer_attention(Q, K, V, k, rng=g),
            }
            if n in p["c_n"]:
                methods["exact"] = lambda: attention_blocked(Q, K, V, block=blk, threads=1)
                methods["exact causal"] = lambda: attention_blocked(Q, K, V, block=blk, causal=True, threads=1)
            for name, fn in methods.items():
                med, all_ = _timed(fn, p["c_rep"], p["c_min_batch"])
                rows.append(dict(n=n, method=name, seconds=med, runs=all_, peak_bytes=_peak(fn)))
            if n <= p["c_dense_max"]:
                rows.append(dict(n=n, method="dense", seconds=None, runs=[],
                                 peak_bytes=_peak(lambda: attention(Q, K, V))))
    return rows


def _fit(rows, method, key):
    rs = sorted((x for x in rows if x["method"] == method and x[key] is not None), key=lambda x: x["n"])
    rs = rs[max(0, min(len(rs) // 2, len(rs) - 3)):]   # the larger half, at least three points
    f = fit_slope(np.log([x["n"] for x in rs]), np.log([x[key] for x in rs]))
    return dict(slope=f.slope, lo=f.slope_lo, hi=f.slope_hi, intercept=f.intercept, window=[rs[0]["n"], rs[-1]["n"]])


def _crossover(rows, fast, ref):
    """Where ``fast`` becomes faster than ``ref``: the largest grid n at which it is clearly slower (ratio > TIE),
    the smallest grid n from which on it is clearly faster (ratio < 1/TIE everywhere above), and the power-law
    crossing of the two fits (extrapolated when outside the grid; inf when the fits do not cross)."""
    t = {x["n"]: x["seconds"] for x in rows if x["method"] == fast}
    e = {x["n"]: x["seconds"] for x in rows if x["method"] == ref}
    ns = sorted(set(t) & set(e))
    ratio = {n: t[n] / e[n] for n in ns}
    slower = [n for n in ns if ratio[n] > TIE]
    faster_from = next((n for i, n in enumerate(ns) if all(ratio[x] < 1 / TIE for x in ns[i:])), None)
    f, g = _fit(rows, fast, "seconds"), _fit(rows, ref, "seconds")
    if g["slope"] > f["slope"]:
        cross = math.exp((f["intercept"] - g["intercept"]) / (g["slope"] - f["slope"]))
    else:
        cross = math.inf
    return dict(ratio={str(n): ratio[n] for n in ns}, last_slower=max(slower) if slower else None,
                faster_from=faster_from, fit_crossing=cross, n_min=ns[0], n_max=ns[-1])


def cost_summary(rows) -> dict:
    """Fitted exponents (time, memory) per method and the crossovers of Performer and Linformer against exact."""
    methods = sorted({x["method"] for x in rows})
    time_fit = {mth: _fit(rows, mth, "seconds") for mth in methods if mth != "dense"}
    mem_fit = {mth: _fit(rows, mth, "peak_bytes") for mth in methods}
    cross = {"performer": _crossover(rows, "performer", "exact"),
             "performer causal": _crossover(rows, "performer causal", "exact causal"),
             "linformer": _crossover(rows, "linformer", "exact")}
    return dict(time=time_fit, memory=mem_fit, crossover=cross)


def check_lr_linformer(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for LR-linformer. Rule (before the run): the printed statement is well-typed only if the two
    matrices it compares have the same shape. The output-level law softmax(Q(EK)ᵀβ)(FV) ≈ AV is fitted per family
    (n, d, τ) as log median error against log k on the k grid. A family fails when, at k = n (no compression
    left), the error is still ≥ ``ZERO_OUTPUT_ERR`` = 1, the error of the zero output (a size-free end point: no
    compression method needs k > n); it agrees when the error at k = n is below it and falls at least like k^(−1/4)
    (slope's 95% interval below ``SLOPE_MAX`` = −0.25; the JL rate is −1/2). ``refuted`` if most families fail; ``corrected`` if all agree and
    the printed statement is ill-typed, ``verified`` if all agree and it is well-typed; otherwise
    ``unverifiable-here``. 'k = n/4 or n/8 loses almost nothing' is a trained-model claim, reported only."""
    p = preset(PRESETS, scale)
    res = linformer_experiment(p, seed) if data is None else data
    rows, shapes = res["rows"], res["shapes"]
    typed = shapes["full"] == shapes["projected"]
    fams = sorted({(x["n"], x["d"], x["tau"]) for x in rows})
    fits, fits_jl = {}, {}
    agree = fail = 0
    for fam in fams:
        rs = sorted((x for x in rows if (x["n"], x["d"], x["tau"]) == fam), key=lambda x: x["k"])
        f = fit_slope(np.log([x["k"] for x in rs]), np.log([x["err"] for x in rs]))
        g = fit_slope(np.log([x["k"] for x in rs]), np.log([x["err_jl"] for x in rs]))
        fits[str(fam)] = dict(slope=f.slope, lo=f.slope_lo, hi=f.slope_hi, err_at_k_max=rs[-1]["err"],
                              k_max=rs[-1]["k"], mean_v=rs[-1]["mean_v"])
        fits_jl[str(fam)] = dict(slope=g.slope, lo=g.slope_lo, hi=g.slope_hi)
        if rs[-1]["err"] >= ZERO_OUTPUT_ERR:
            fail += 1
        elif f.slope_hi <= SLOPE_MAX:
            agree += 1
    if fail > len(fams) / 2:
        verdict = "refuted"
    elif agree == len(fams):
        verdict = "verified" if typed else "corrected"
    else:
        verdict = "unverifiable-here"
    jl_ok = sum(JL_SLOPE[0] <= v["lo"] and v["hi"] <= JL_SLOPE[1] for v in fits_jl.values())
    errs_kmax = [v["err_at_k_max"] for v in fits.values()]
    slopes = [v["slope"] for v in fits.values()]
    return Verdict(
        "LR-linformer", verdict,
        f"Random-projection Linformer misses attention even at k = L (no compression): error ‖Õ − O‖_F/‖O‖_F "
        f"{min(errs_kmax):.2f} to {max(errs_kmax):.2f}, ≥ {ZERO_OUTPUT_ERR:g} (the zero output's) in {fail} of "
        f"{len(fams)} settings. "
        f"The settings are (L, d, τ); the printed bound compares a {shapes['full'][0]}×{shapes['full'][1]} with a "
        f"{shapes['projected'][0]}×{shapes['projected'][1]} matrix (ill-typed). With Gaussian E, F of N(0, 1/k) "
        f"entries the error falls below {ZERO_OUTPUT_ERR:g} in {agree} of {len(fams)} settings (fitted slopes in log k "
        f"{min(slopes):.2f} to {max(slopes):.2f}), while the low-rank form A·RᵀR·V of the Linformer paper's "
        f"Theorem 1 falls at the JL rate in {jl_ok} of {len(fams)}.",
        numbers=dict(shapes=shapes, well_typed=typed, families=len(fams), agree=agree, fail=fail, fits=fits,
                     fits_theorem1_form=fits_jl, theorem1_form_agree=jl_ok),
        thresholds=dict(fail=f"error at k = L ≥ {ZERO_OUTPUT_ERR:g} (the zero output's)",
                        agree=f"error at k = L < {ZERO_OUTPUT_ERR:g} and slope 95% interval upper end ≤ "
                              f"{SLOPE_MAX:g}".replace("-", "−"), refuted="most families fail",
                        corrected="all agree, printed statement ill-typed"),
        scale=p["scale"])


def plot_linformer(res):
    """Output error against k at τ = 1, one curve per (L, d): random-projection Linformer (left) and the low-rank
    form A·RᵀR·V of the Linformer paper's Theorem 1 (right); the dotted line is the error 1 of the zero output."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from ..plotting import figure  # noqa: PLC0415

    rows = res["rows"]
    fig, (a1, a2) = figure(ncols=2, width=3.4, height=2.5, sharey=True)
    data = {}
    fams = sorted({(x["n"], x["d"], x["tau"]) for x in rows if x["tau"] == 1.0})
    ns, ds = sorted({f[0] for f in fams}), sorted({f[1] for f in fams})
    for j, fam in enumerate(fams):
        rs = sorted((x for x in rows if (x["n"], x["d"], x["tau"]) == fam), key=lambda x: x["k"])
        ks = [x["k"] for x in rs]
        # colour by L, marker and line style by d: the two widths of one L nearly coincide, so the second (open
        # markers, dashed) is drawn over the first (filled, solid) and both stay visible
        c = _COLOURS[(1, 3, 2, 4)[ns.index(fam[0]) % 4]]
        wide = ds.index(fam[1]) % 2
        style = dict(color=c, marker="os"[wide], ls=("-", "--")[wide], ms=(3, 5)[wide], mfc=(c, "none")[wide],
                     zorder=2 + wide)
        a1.loglog(ks, [x["err"] for x in rs], **style)
        a2.loglog(ks, [x["err_jl"] for x in rs], **style)
        key = f"L{fam[0]}_d{fam[1]}"
        data[f"k_{key}"], data[f"err_{key}"], data[f"err_ARRV_{key}"] = ks, [x["err"] for x in rs], \
            [x["err_jl"] for x in rs]
    for ax, what in ((a1, r"Linformer $\mathrm{softmax}(\beta Q(EK)^\top)\,FV$"), (a2, r"$A\,R^\top R\,V$")):
        ax.axhline(1, color="k", ls=":", lw=1)
        ax.set_xlabel(f"projected length $k$\n{what}")
        _log_ticks(ax)
    a1.set_ylabel(_ERR)
    handles = [Line2D([], [], color=_COLOURS[(1, 3, 2, 4)[ns.index(f[0]) % 4]], marker="os"[ds.index(f[1]) % 2],
                      ls=("-", "--")[ds.index(f[1]) % 2], mfc=("none" if ds.index(f[1]) % 2 else None), lw=2)
               for f in fams] + [Line2D([], [], color="k", ls=":",
                                                                                        lw=1)]
    labels = [f"$L = {f[0]}$, $d = {f[1]}$" for f in fams] + ["zero output"]
    _legend_below(fig, handles, labels, ncol=3)
    return fig, data


def plot_cost(rows):
    """User CPU time per call (left) and peak traced memory (right) against L for exact, Performer and Linformer."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from ..plotting import figure  # noqa: PLC0415

    fig, (a1, a2) = figure(ncols=2, width=3.4, height=2.5)
    data = {}
    methods = [m for m in METHOD_LABELS if any(x["method"] == m for x in rows)]
    for j, meth in enumerate(methods):
        rs = sorted((x for x in rows if x["method"] == meth), key=lambda x: x["n"])
        ns = [x["n"] for x in rs]
        if rs[0]["seconds"] is not None:
            a1.loglog(ns, [x["seconds"] for x in rs], marker=_MARKERS[j % 7], ls=_LINES[j % 7], ms=3,
                      color=_COLOURS[j % 7])
            data[f"seconds_{meth}"] = [x["seconds"] for x in rs]
        a2.loglog(ns, [x["peak_bytes"] / 2**20 for x in rs], marker=_MARKERS[j % 7], ls=_LINES[j % 7], ms=3,
                  color=_COLOURS[j % 7])
        data[f"L_{meth}"], data[f"peak_MiB_{meth}"] = ns, [x["peak_bytes"] / 2**20 for x in rs]
    a1.set_ylabel("user CPU time per call (s)")
    a2.set_ylabel("peak traced memory (MiB)")
    for ax in (a1, a2):
        ax.set_xlabel("sequence length $L$")
        _log_ticks(ax)
    handles = [Line2D([], [], color=_COLOURS[j % 7], marker=_MARKERS[j % 7], ls=_LINES[j % 7], ms=3)
               for j in range(len(methods))]
    labels = [METHOD_LABELS[m] + (" (memory only)" if m == "dense" else "") for m in methods]
    _legend_below(fig, handles, labels, ncol=3)
    return fig, data


def cost_counts():
    """Exact multiply–add, exponential and memory counts (floats held besides Q, K, V and the output) of each
    method, as SymPy polynomials in the length L (written n below), d (= d_k), d_v, m, k, from the products the algorithms perform:

    - exact (dense): QKᵀ n²d, softmax n² exps, AV n²d_v; memory the n×n matrix;
    - Performer (FAVOR+, non-causal): ωᵀq and ωᵀk 2nmd, 2nm exps, φ(K)ᵀV nmd_v, φ(K)ᵀ1 nm, φ(Q)(φ(K)ᵀV) nmd_v,
      φ(Q)(φ(K)ᵀ1) nm; memory φ(Q), φ(K) (2nm), φ(K)ᵀV and φ(K)ᵀ1 (m·d_v + m) and ω (m·d);
    - Linformer: EK knd, FV knd_v, Q(EK)ᵀ nkd, nk exps, Ã(FV) nkd_v; memory E, F (2kn), EK, FV (k(d + d_v)) and
      the n×k scores.
    """
    n, d, dv, m, k = sp.symbols("L d d_v m k", positive=True, integer=True)   # L: the sequence length
    return dict(
        symbols=(n, d, dv, m, k),
        exact=dict(mac=n**2 * d + n**2 * dv, exp=n**2, mem=n**2),
        performer=dict(mac=2 * n * m * d + 2 * n * m * dv + 2 * n * m, exp=2 * n * m,
                       mem=2 * n * m + m * dv + m + m * d),
        linformer=dict(mac=k * n * d + k * n * dv + n * k * d + n * k * dv, exp=n * k,
                       mem=2 * k * n + k * (d + dv) + n * k),
    )


def _poly_text(expr) -> str:
    """A count for a sentence: 2dmn + 2d_v·mn + 4mn, not 2*d*m*n + …"""
    text = str(sp.expand(expr)).replace("**2", "²").replace("d_v*", "d_v·").replace("*", "")
    return text


def _counts_evidence(d0: int, m0: int, k0: int):
    """What the LR-cost rule reads from :func:`cost_counts`: degrees in n, the leading coefficients against the
    seed's forms (Linformer k·d_k, Performer m·d, memory nm + m·d_k), and the exact crossover lengths at d = d_v = d0."""
    c = cost_counts()
    n, d, dv, m, k = c["symbols"]
    ev = {}
    for meth, form_t, form_m in (("performer", n * m * d, n * m + m * d), ("linformer", n * k * d, None)):
        total = c[meth]["mac"] + c[meth]["exp"]
        lead = sp.Poly(total, n).LC()
        ev[meth] = dict(time_degree=int(sp.Poly(total, n).degree()),
                        mem_degree=int(sp.Poly(c[meth]["mem"], n).degree()),
                        # the leading coefficient over the seed's: bounded as d, d_v, m, k grow together (d_v = d)
                        time_ratio=str(sp.simplify((lead / sp.Poly(form_t, n).LC()).subs(dv, d))),
                        time_ratio_limit=float(sp.limit((lead / sp.Poly(form_t, n).LC()).subs(dv, d), d, sp.oo)),
                        mem_ratio_limit=(float(sp.limit(sp.limit((c[meth]["mem"] / form_m).subs(dv, d), n, sp.oo),
                                                        m, sp.oo)) if form_m is not None else None))
        ex = c["exact"]["mac"] + c["exact"]["exp"]
        vals = {d: d0, dv: d0, m: m0, k: k0}
        x = sp.symbols("x", positive=True)          # n as a real unknown: the crossover need not be an integer
        sol = [float(s) for s in sp.solve(sp.Eq(ex.subs(vals).subs(n, x), total.subs(vals).subs(n, x)), x)]
        ev[meth]["crossover"] = max(sol) if sol else math.inf
        ev[meth]["total"] = _poly_text(total)
        ev[meth]["memory"] = _poly_text(c[meth]["mem"])
    ev["exact"] = dict(total=_poly_text(c["exact"]["mac"] + c["exact"]["exp"]), memory=_poly_text(c["exact"]["mem"]))
    ev["params"] = dict(d=d0, m=m0, k=k0)
    return ev


def counts_experiment(p: dict) -> dict:
    """The evidence of LR-cost: :func:`cost_counts` read at the chapter's sizes (d = d_v = ``c_d``, m = ``c_m``,
    k = ``c_k``); no timing involved."""
    return _counts_evidence(p["c_d"], p["c_m"], p["c_k"])


def check_lr_cost(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for LR-cost (restated: Linformer time O(nk·d_k), no memory figure; Performer time O(nmd), memory
    O(nm + m·d_k); both faster than standard attention), decided by exact counts (:func:`cost_counts`).

    Rule (stated before the run): each method's count (multiply–adds plus exponentials) must be of degree 1 in n
    with a leading coefficient within a constant of the seed's (k·d_k, m·d: the ratio has a finite limit as the
    sizes grow), and Performer's memory of degree 1 in n within a constant of nm + m·d_k; otherwise refuted.
    "Faster": the exact crossover n* where the count equals exact attention's n²(d + d_v) + n² (at d = d_v =
    ``c_d``, m = ``c_m``, k = ``c_k``): faster at every n ≥ 1 (n* < 1) → verified; faster only for n > n* →
    corrected (faster beyond n*, which the seed does not say); never → refuted. The worst part decides. The CPU
    timings of :func:`cost_experiment` are an illustration and decide nothing.
    """
    p = preset(PRESETS, scale)
    ev = counts_experiment(p) if data is None else data
    parts = {}
    for meth in ("performer", "linformer"):
        e = ev[meth]
        ok_t = e["time_degree"] == 1 and math.isfinite(e["time_ratio_limit"])
        parts[f"{meth} time"] = "verified" if ok_t else "refuted"
        if meth == "performer":
            ok_m = e["mem_degree"] == 1 and e["mem_ratio_limit"] is not None and math.isfinite(e["mem_ratio_limit"])
            parts["performer memory"] = "verified" if ok_m else "refuted"
        x = e["crossover"]
        parts[f"{meth} faster"] = "verified" if x < 1 else ("corrected" if math.isfinite(x) else "refuted")
    verdict = min(parts.values(), key=_ORDER.index)
    pe, li, pr = ev["performer"], ev["linformer"], ev["params"]
    faster = min((v for kp, v in parts.items() if kp.endswith("faster")), key=_ORDER.index)
    lead = {"verified": f"faster than exact attention at every length (d = {pr['d']}, m = k = {pr['m']})",
            "corrected": f"faster than exact attention only beyond L = {pe['crossover']:,.0f} (Performer) and "
                         f"{li['crossover']:,.0f} (Linformer) at d = {pr['d']}, m = k = {pr['m']}",
            "refuted": f"never faster than exact attention (d = {pr['d']}, m = k = {pr['m']})"}[faster]
    linear = all(v == "verified" for kp, v in parts.items() if not kp.endswith("faster"))
    summary = (f"{'Linear' if linear else 'Not linear'} in L by exact counts, and {lead}. The crossovers are about "
               f"2m and 2k (d = d_v). Counts (multiply–adds plus exponentials): exact "
               f"{ev['exact']['total']}, Performer {pe['total']} (over L·m·d → {pe['time_ratio_limit']:.0f} as the "
               f"sizes grow), Linformer {li['total']} (over L·k·d_k → {li['time_ratio_limit']:.0f}, its projections "
               f"EK and FV included, which the seed's table leaves out); memory besides inputs and output: "
               f"Performer {pe['memory']}, the seed's O(Lm + m·d_k); Linformer {li['memory']}, exact {ev['exact']['memory']}.")
    return Verdict("LR-cost", verdict, summary,
                   numbers=dict(parts=parts, counts={k_: v for k_, v in ev.items()}),
                   thresholds=dict(time="degree 1 in n, leading coefficient within a constant of k·d_k and m·d",
                                   memory="Performer: degree 1 in n, within a constant of nm + m·d_k",
                                   faster="exact crossover with n²(d + d_v) + n²: none above 1 → verified; finite "
                                          "→ corrected; none → refuted",
                                   illustration="CPU timings (cost_experiment) decide nothing"),
                   scale=p["scale"])
