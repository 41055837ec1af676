"""Evidence for chapter 09 (attention at any temperature): AT-1d and AT-fixed-d of seed 003.

Experiments (memoized), fits, the two checks and the figures. The algorithms are in :mod:`attnlab.subquadratic`.
Every error is measured against exact attention computed row by row in extended precision (``np.longdouble``)
from the same inputs; every timing is the best of a few runs on this (shared) machine.
"""
from __future__ import annotations

import json
import math
import time

import numpy as np

import attnlab
from attnlab import subquadratic as sq

from .cache import memoize
from .scale import preset
from .stats import fit_slope
from .verdict import Verdict

__all__ = ["PRESETS", "PARAMETER_LABELS", "FAMILIES", "load_benchmark", "exact_rows", "make_case", "guarantee_experiment", "naive_monomial_1d", "naive_experiment",
           "degree_experiment", "budget_experiment", "range_experiment", "timing_experiment", "halfspace_experiment",
           "tree_experiment", "tree_summary", "exponent_table", "fit_time", "speedup", "check_at_1d", "check_at_fixed_d",
           "plot_guarantee", "plot_naive", "plot_timing", "plot_degree", "plot_tree", "RULES"]

PRESETS = {
    "smoke": dict(g_n=[1, 7, 300], g_B=[0.0, 0.5, 100.0], g_eps=[1e-3, 1e-6], g_nq=32,
                  naive_n=[64, 256], naive_B=[1.0, 4.0, 16.0],
                  deg_n=[2**8, 2**12, 2**16, 2**20], deg_eps=[1e-2, 1e-3, 1e-6], deg_B=[1.0, 100.0], deg_inst=64,
                  deg_needed_max=2**10, range_B=[1.0, 1e2, 1e4], range_n=128,
                  t_n=[2**k for k in range(8, 19)], t_exact_max=2**11, t_B=[1.0, 100.0], t_eps=[1e-3], t_reps=3,
                  t_fit_min=2**13, t_check_q=64, gauss_n=[2**8, 2**10], gauss_B=[1.0, 3.0],
                  hs_n=200, hs_B=[1.0, 10.0],
                  tree_n=[2**k for k in range(8, 12)], tree_exact_max=2**11, tree_B=[1.0, 10.0], tree_fit_min=2**9,
                  tree_reps=1),
    "book": dict(g_n=[1, 2, 64, 1000, 4096], g_B=[0.0, 0.1, 1.0, 10.0, 100.0], g_eps=[1e-2, 1e-3, 1e-6], g_nq=64,
                 naive_n=[2**8, 2**10, 2**12], naive_B=[0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 100.0],
                 deg_n=[2**8, 2**10, 2**12, 2**14, 2**16, 2**18, 2**20], deg_eps=[1e-2, 1e-3, 1e-6],
                 deg_B=[1.0, 10.0, 100.0], deg_inst=512, deg_needed_max=2**12,
                 range_B=[1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6], range_n=1024,
                 # exact attention timed up to 2^14 (was 2^13 until a quiet build's fit over 2^11-2^13 gave the
                 # quadratic control an exponent of 1.66 with a tight interval: at those sizes overheads still show)
                 t_n=[2**k for k in range(8, 19)], t_exact_max=2**14,
                 t_B=[1.0, 100.0], t_eps=[1e-3], t_reps=2, t_fit_min=2**12, t_check_q=32,
                 gauss_n=[2**8, 2**10, 2**12], gauss_B=[0.5, 1.0, 3.0, 10.0],
                 hs_n=1000, hs_B=[1.0, 10.0, 100.0],
                 tree_n=[2**k for k in range(8, 15)], tree_exact_max=2**13, tree_B=[1.0, 10.0],
                 tree_fit_min=2**10, tree_reps=1),
    "paper": dict(g_n=[1, 2, 7, 64, 1000, 4096, 16384], g_B=[0.0, 0.1, 1.0, 10.0, 100.0], g_eps=[1e-2, 1e-3, 1e-6],
                  g_nq=512, naive_n=[2**8, 2**10, 2**12, 2**14], naive_B=[0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 100.0],
                  deg_n=[2**8, 2**10, 2**12, 2**14, 2**16, 2**18, 2**20], deg_eps=[1e-2, 1e-3, 1e-6],
                  deg_B=[1.0, 10.0, 100.0], deg_inst=1024, deg_needed_max=2**16,
                  range_B=[1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6], range_n=4096,
                  t_n=[2**k for k in range(8, 21)], t_exact_max=2**15, t_B=[1.0, 10.0, 100.0],
                  t_eps=[1e-2, 1e-3, 1e-6], t_reps=3, t_fit_min=2**12, t_check_q=1024,
                  gauss_n=[2**8, 2**10, 2**12, 2**14], gauss_B=[0.5, 1.0, 3.0, 10.0],
                  hs_n=4000, hs_B=[1.0, 10.0, 100.0],
                  tree_n=[2**k for k in range(9, 18)], tree_exact_max=2**15, tree_B=[1.0, 10.0], tree_fit_min=2**12,
                  tree_reps=3),
}

#: What each preset entry is, in words (the chapter's collapsed parameters box).
PARAMETER_LABELS = {
    "g_n": "guarantee runs: sizes n", "g_B": "guarantee runs: bounds B", "g_eps": "guarantee runs: tolerances ε",
    "g_nq": "guarantee runs: queries per case",
    "naive_n": "printed expansion: sizes n", "naive_B": "printed expansion: bounds B",
    "deg_n": "degree: sizes n", "deg_eps": "degree: tolerances ε", "deg_B": "degree needed: bounds B",
    "deg_inst": "degree needed: queries per instance (÷ 8)", "deg_needed_max": "degree needed: searched up to n",
    "range_B": "range: bounds B", "range_n": "range: keys n",
    "t_n": "timing: sizes n", "t_exact_max": "timing: exact attention measured up to n", "t_B": "timing: bounds B",
    "t_eps": "timing: tolerances ε", "t_reps": "timing: calls per measurement (best kept)",
    "t_fit_min": "timing: exponent fitted over n ≥", "t_check_q": "timing: queries checked against exact rows",
    "gauss_n": "Gauss route: sizes n", "gauss_B": "Gauss route: bounds B",
    "hs_n": "halfspace lemma: keys n", "hs_B": "halfspace lemma: bounds B",
    "tree_n": "d = 2 structure: sizes n", "tree_exact_max": "d = 2: exact attention measured up to n",
    "tree_B": "d = 2 structure: bounds B", "tree_fit_min": "d = 2: exponent fitted over n ≥",
    "tree_reps": "d = 2: calls per measurement",
}

#: The decision rules, stated before any run (the checks quote them in their verdicts).
RULES = {
    "AT-1d": ("refuted if any measured entrywise error exceeds eps; else verified if, for every B at eps = 1e-3, the "
              "95% CI of the fitted exponent of attention_1d's time over n >= t_fit_min lies in [1 - tol, 1 + tol] "
              "(CPU time; tol = 0.35: the law is n^1 times logs) while exact attention's exponent CI reaches 2 - tol_exact "
              "(0.3, a control that the timings resolve a quadratic); refuted if some CI lies entirely above 1 + tol; "
              "unverifiable-here otherwise (noise or a failed control). The 100x target at n = 2^20 is reported, "
              "not part of the rule (the seed states no constant)."),
    "AT-fixed-d": ("refuted if a key's relevance differs from halfspace membership (d = 2, 3), if the dropped mass "
                   "exceeds eta, or if the d = 2 windowed-polynomial structure (attention_2d) misses eps anywhere; "
                   "otherwise unverifiable-here: the time bound of Thm 1.3 is a worst-case bound that rests on "
                   "Matousek's partition trees, which this book does not build, and a k-d tree's measured exponents "
                   "on random keys neither confirm nor refute it (they are reported, with the sizes at which it beats "
                   "exact attention)."),
}


# ---------------------------------------------------------------------------------------------------------------
# reference and inputs


def exact_rows(q, k, v):
    """Exact attention for (n_q,) or (n_q, d) queries in extended precision (``np.longdouble``), row-max shifted."""
    q = np.asarray(q, dtype=np.longdouble)
    k = np.asarray(k, dtype=np.longdouble)
    v = np.asarray(v, dtype=np.longdouble)
    V = v[:, None] if v.ndim == 1 else v
    out = np.empty((q.shape[0], V.shape[1]), dtype=np.longdouble)
    step = max(1, 2**21 // max(1, k.shape[0]))
    for i in range(0, q.shape[0], step):
        s = np.outer(q[i:i + step], k) if q.ndim == 1 else q[i:i + step] @ k.T
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[i:i + step] = (p @ V) / p.sum(axis=1, keepdims=True)
    return out[:, 0] if v.ndim == 1 else out


def make_case(family, n, nq, B, rng, eps=1e-3):
    """Inputs (q, k, v) of one family with |q|, |k|, |v| <= max(B, 1) (v in [-1, 1] when B < 1).

    Families: ``uniform``; ``clustered`` (keys in 3 clusters of width 1e-9·B); ``tied`` (keys from {-B, 0, B});
    ``threshold`` (adversarial for the window: one key at B with value +1, every other key just past the window of
    the query q = B, with value -1, so the dropped mass is as large as the error accounting allows); ``signs``
    (queries 0, ±tiny, negative, positive).
    """
    vb = max(B, 1.0)
    if family == "uniform":
        q, k = B * rng.uniform(-1, 1, nq), B * rng.uniform(-1, 1, n)
        v = vb * rng.uniform(-1, 1, n)
    elif family == "clustered":
        centres = B * rng.uniform(-1, 1, 3)
        k = np.clip(centres[rng.integers(0, 3, n)] + 1e-9 * B * rng.standard_normal(n), -B, B)
        q, v = B * rng.uniform(-1, 1, nq), vb * rng.uniform(-1, 1, n)
    elif family == "tied":
        k = B * rng.integers(-1, 2, n).astype(float)
        q, v = B * rng.uniform(-1, 1, nq), vb * rng.integers(-1, 2, n).astype(float)
    elif family == "threshold":
        R = 2.0
        eta = eps / (5 * R)
        L = math.log(max(n, 1) / eta)
        qv = max(B, 1e-3)
        k = np.full(n, B - (L / qv) * (1 + 1e-12)) if B > 0 else np.zeros(n)
        k[0] = B
        v = -np.ones(n)
        v[0] = 1.0
        q = np.full(nq, qv)
        q[nq // 2:] = qv * rng.uniform(0.5, 1, nq - nq // 2)
    elif family == "signs":
        q = np.concatenate([[0.0, 1e-300, -1e-300, -B, B], B * rng.uniform(-1, 1, max(nq - 5, 0))])
        k, v = B * rng.uniform(-1, 1, n), vb * rng.uniform(-1, 1, n)
    else:
        raise ValueError(f"unknown family {family!r}")
    return q, k, v


FAMILIES = ("uniform", "clustered", "tied", "threshold", "signs")


# ---------------------------------------------------------------------------------------------------------------
# experiments


@memoize
def guarantee_experiment(p: dict, seed: int) -> list[dict]:
    """Max entrywise error of attention_1d (and attention_gauss_1d where it runs) over families, n, B, eps, dtypes."""
    rng = np.random.default_rng(seed)
    rows = []
    for fam in FAMILIES:
        for n in p["g_n"]:
            for B in p["g_B"]:
                for eps in p["g_eps"]:
                    q, k, v = make_case(fam, n, p["g_nq"], B, rng, eps)
                    for dtype in (np.float64, np.float32):
                        qq, kk, vv = (x.astype(dtype) for x in (q, k, v))
                        if dtype == np.float32 and eps <= 2 * 2.0**-24 * np.abs(vv).max():
                            continue  # below float32 resolution of the output: attention_1d refuses (tested)
                        ref = exact_rows(qq, kk, vv)
                        err = float(np.max(np.abs(sq.attention_1d(qq, kk, vv, eps).astype(np.longdouble) - ref)))
                        rows.append(dict(method="attention_1d", family=fam, n=n, B=B, eps=eps,
                                         dtype=np.dtype(dtype).name, err=err, ratio=err / eps))
                        if dtype == np.float64 and B <= 3 and n >= 2:
                            try:
                                err = float(np.max(np.abs(sq.attention_gauss_1d(q, k, v, eps) - ref)))
                            except ValueError:  # the Hermite degree would exceed 400: the route refuses
                                continue
                            rows.append(dict(method="attention_gauss_1d", family=fam, n=n, B=B, eps=eps,
                                             dtype="float64", err=err, ratio=err / eps))
    return rows


def naive_monomial_1d(q, k, v, eps, B):
    """The seed's Algorithm 1 as printed, numerically: prefix sums of k^b and k^b v (b = 0..g) over the sorted
    keys and the polynomial of e^x on the window expanded in monomials of the score (NumPy, float64, q > 0 only).

    η = eps/(7B), L = log(n/η); P interpolates e^x on [-L, 0] at Chebyshev points with relative error <= η on a
    fine grid; :math:`\\sum_{j \\in R} P(q k_j - c)\\,v_j = \\sum_b [\\sum_{l \\ge b} m_l \\binom{l}{b} (-c)^{l-b}]\\,
    q^b \\sum_{j\\in R} k_j^b v_j` with c = q·max k. Returns (output, degree g)."""
    from numpy.polynomial import chebyshev as C, polynomial as Pm  # noqa: PLC0415
    from scipy.special import comb  # noqa: PLC0415

    n = k.shape[0]
    eta = eps / (7 * max(B, 1e-12))
    L = math.log(n / eta)
    x = np.linspace(-L, 0, 4001)
    for g in range(2, 400):
        cheb = C.Chebyshev.interpolate(np.exp, g, domain=[-L, 0])
        if np.max(np.abs(cheb(x) - np.exp(x)) / np.exp(x)) <= eta:
            break
    m = cheb.convert(kind=Pm.Polynomial).coef  # monomial coefficients in x
    order = np.argsort(k)
    ks, vs = k[order], v[order]
    b = np.arange(g + 1)
    powk = ks[:, None] ** b[None, :]
    pre1 = np.vstack([np.zeros(g + 1), np.cumsum(powk, axis=0)])
    prev = np.vstack([np.zeros(g + 1), np.cumsum(powk * vs[:, None], axis=0)])
    kmax = ks[-1]
    out = np.empty(q.shape[0])
    binom = comb(np.arange(g + 1)[:, None], b[None, :])  # binom[l, b]
    with np.errstate(all="ignore"):
        for i, qi in enumerate(q):
            c = qi * kmax
            start = np.searchsorted(ks, kmax - L / qi, side="left")
            coef = ((m[:, None] * binom * (-c) ** (np.arange(g + 1)[:, None] - b[None, :])) * (binom > 0)).sum(0)
            coef = coef * qi**b
            num = coef @ (prev[n] - prev[start])
            den = coef @ (pre1[n] - pre1[start])
            out[i] = num / den
    return out, g


@memoize
def naive_experiment(p: dict, seed: int) -> list[dict]:
    """Error of the printed monomial expansion next to attention_1d, over n and B (eps = 1e-3, q in [B/2, B])."""
    rng = np.random.default_rng(seed)
    rows = []
    eps = 1e-3
    for n in p["naive_n"]:
        for B in p["naive_B"]:
            q, k, v = B * rng.uniform(0.5, 1, 64), B * rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
            ref = exact_rows(q, k, v)
            naive, g = naive_monomial_1d(q, k, v, eps, B)
            e_naive = float(np.max(np.abs(naive - ref))) if np.all(np.isfinite(naive)) else float("inf")
            e_ours = float(np.max(np.abs(sq.attention_1d(q, k, v, eps) - ref)))
            rows.append(dict(n=n, B=B, eps=eps, g_naive=g, err_naive=e_naive, err_ours=e_ours))
    return rows


@memoize
def degree_experiment(p: dict, seed: int) -> list[dict]:
    """Degree g of attention_1d against L = log(n/η), and the degree really needed: the smallest g whose measured
    error on an instance (adversarial threshold family and uniform keys) is still <= eps."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in p["deg_n"]:
        for eps in p["deg_eps"]:
            plan = sq.attention_1d_plan(n, eps, 0.0, 2.0)
            row = dict(n=n, eps=eps, L=plan["L"], g=plan["g"], eta=plan["eta"])
            needed = 0
            if n <= p["deg_needed_max"]:
                for B in p["deg_B"]:
                    for fam in ("uniform", "threshold"):
                        q, k, v = make_case(fam, n, p["deg_inst"] // 8, B, rng, eps)
                        v = np.clip(v, -1, 1)
                        ref = exact_rows(q, k, v)
                        lo, hi = 1, plan["g"]
                        while lo < hi:  # smallest g meeting eps (error is not monotone in g: bisection is a guide)
                            mid = (lo + hi) // 2
                            o = sq._attention_1d_core(np, q, k, v[:, None], plan["L"], mid)[:, 0]
                            if np.max(np.abs(o - ref)) <= eps:
                                hi = mid
                            else:
                                lo = mid + 1
                        needed = max(needed, lo)
                row["g_needed"] = needed
            else:
                row["g_needed"] = None
            rows.append(row)
    return rows


@memoize
def budget_experiment(p: dict, seed: int) -> list[dict]:
    """The error split at the seed's η = eps/(7B): truncation alone (window L, degree far above need) and
    truncation plus polynomial (the planned degree), against the accounting 3ηB and 4ηB; |v| <= B."""
    rng = np.random.default_rng(seed)
    rows = []
    for B in [1.0, 10.0, 100.0]:
        for fam in ("uniform", "threshold"):
            eps, n = 1e-3, 1024
            q, k, v = make_case(fam, n, 128, B, rng, eps)
            v = B * np.clip(v, -1, 1)
            eta = eps / (7 * B)
            L = math.log(n / eta)
            g = sq._degree(round(L, 12), eta / n)
            ref = exact_rows(q, k, v)
            trunc = float(np.max(np.abs(sq._attention_1d_core(np, q, k, v[:, None], L, 3 * g)[:, 0] - ref)))
            total = float(np.max(np.abs(sq._attention_1d_core(np, q, k, v[:, None], L, g)[:, 0] - ref)))
            rows.append(dict(B=B, family=fam, eta=eta, L=L, g=g, trunc=trunc, total=total,
                             trunc_over_3etaB=trunc / (3 * eta * B), poly_over_4etaB=abs(total - trunc) / (4 * eta * B)))
    return rows


@memoize
def range_experiment(p: dict, seed: int) -> list[dict]:
    """Error of attention_1d at eps = 1e-3 (v in [-1, 1]) as B grows, in float64 and float32."""
    rng = np.random.default_rng(seed)
    rows = []
    for B in p["range_B"]:
        q, k, v = B * rng.uniform(-1, 1, 128), B * rng.uniform(-1, 1, p["range_n"]), rng.uniform(-1, 1, p["range_n"])
        for dtype in (np.float64, np.float32):
            qq, kk, vv = (x.astype(dtype) for x in (q, k, v))
            err = float(np.max(np.abs(sq.attention_1d(qq, kk, vv, 1e-3).astype(np.longdouble) - exact_rows(qq, kk, vv))))
            rows.append(dict(B=B, dtype=np.dtype(dtype).name, err=err, holds=err <= 1e-3))
    return rows


def _best(fn, reps):
    """Best CPU time (all threads of this process, BLAS single-threaded) of ``reps`` calls, and the result.

    CPU time measures the work a complexity law speaks of; on a machine shared with other jobs it is far less
    disturbed than wall time (which the benchmark script records as well)."""
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    best, out = float("inf"), None
    with threadpool_limits(1, user_api="blas"):
        for _ in range(reps):
            t = time.process_time()
            out = fn()
            best = min(best, time.process_time() - t)
    return max(best, 1e-6), out


@memoize
def timing_experiment(p: dict, seed: int) -> dict:
    """CPU time of attention_1d (per B, eps) and of exact attention (attention_blocked, d = 1) over n, one run; the
    error of each attention_1d call on t_check_q of its queries; the Gauss-transform route at small B (best of
    t_reps calls, like attention_1d)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in p["t_n"]:
        q0, k0, v = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
        check = rng.choice(n, size=min(n, p["t_check_q"]), replace=False)
        for B in p["t_B"]:
            q, k = B * q0, B * k0
            for eps in p["t_eps"]:
                t, o = _best(lambda: sq.attention_1d(q, k, v, eps), p["t_reps"])
                err = float(np.max(np.abs(o[check] - exact_rows(q[check], k, v))))
                rows.append(dict(method="attention_1d", n=n, B=B, eps=eps, seconds=t, err=err))
            if n <= p["t_exact_max"]:
                t, _ = _best(lambda: attnlab.attention_blocked(q[:, None], k[:, None], v[:, None], beta=1.0),
                             p["t_reps"])
                rows.append(dict(method="exact", n=n, B=B, eps=0.0, seconds=t, err=0.0))
            if n in p["gauss_n"]:
                for Bg in p["gauss_B"]:
                    if Bg != B and not (B == p["t_B"][0]):
                        continue
                    qg, kg = Bg * q0, Bg * k0
                    try:
                        t, o = _best(lambda: sq.attention_gauss_1d(qg, kg, v, 1e-3), p["t_reps"])
                        err = float(np.max(np.abs(o[check] - exact_rows(qg[check], kg, v))))
                    except ValueError:
                        t, err = float("nan"), float("nan")
                    rows.append(dict(method="gauss", n=n, B=Bg, eps=1e-3, seconds=t, err=err))
    load = _loadavg()
    return dict(rows=rows, loadavg=load)


def load_benchmark(name: str = "any-temperature-cpu.json"):
    """The record of ``benchmarks/any_temperature.py`` (the 100× target at n = 2^20), or None if it is absent.

    Found in the repository's ``data/benchmarks`` folder, located as :func:`attnlab.audit.real_heads.data_dir`
    locates ``data/real_heads`` (``$ATTNLAB_DATA_DIR``, the checkout this package lives in, or the nearest folder
    at or above the working directory that has one), so the chapter reads it from any working directory."""
    from .real_heads import data_dir  # noqa: PLC0415

    try:
        path = data_dir().parent / "benchmarks" / name
    except FileNotFoundError:
        return None
    return json.loads(path.read_text()) if path.is_file() else None


def _loadavg():
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return None


def fit_time(rows, method, B, eps, n_min):
    """Slope of log time against log n over n >= n_min (fit_slope: estimate and 95% CI)."""
    r = [x for x in rows if x["method"] == method and x["B"] == B and x["eps"] == eps and x["n"] >= n_min
         and math.isfinite(x["seconds"])]
    if len(r) < 3:
        return None
    f = fit_slope(np.log([x["n"] for x in r]), np.log([x["seconds"] for x in r]))
    return dict(slope=f.slope, lo=f.slope_lo, hi=f.slope_hi, points=len(r))


def speedup(rows, B, eps, n_target=None):
    """Exact time extrapolated as c·n² (c: median of t/n² over the three largest measured n) over attention_1d's
    measured time, at n_target (default: the largest n measured); and the crossover n (first n where it is faster)."""
    ex = sorted((x for x in rows if x["method"] == "exact" and x["B"] == B), key=lambda x: x["n"])
    ours = sorted((x for x in rows if x["method"] == "attention_1d" and x["B"] == B and x["eps"] == eps),
                  key=lambda x: x["n"])
    c = float(np.median([x["seconds"] / x["n"] ** 2 for x in ex[-3:]]))
    exact_at = {x["n"]: x["seconds"] for x in ex}
    cross = None
    for x in ours:
        t_ex = exact_at.get(x["n"], c * x["n"] ** 2)
        if x["seconds"] < t_ex:
            cross = x["n"]
            break
    last = ours[-1] if n_target is None else next(x for x in ours if x["n"] == n_target)
    return dict(n=last["n"], ours=last["seconds"], exact_extrapolated=c * last["n"] ** 2,
                speedup=c * last["n"] ** 2 / last["seconds"], crossover=cross, c=c)


@memoize
def halfspace_experiment(p: dict, seed: int) -> list[dict]:
    """d = 2, 3: the keys whose exact probability is >= e^{-L}·(row max) against the halfspace q·k >= m_q - L;
    and the dropped probability mass against η (v in [-1, 1], eps = 1e-3)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in (2, 3):
        for B in p["hs_B"]:
            n = p["hs_n"]
            Q, K = B * rng.uniform(-1, 1, (64, d)), B * rng.uniform(-1, 1, (n, d))
            eta = 1e-3 / 10
            L = math.log(n / eta)
            S = Q @ K.T
            m = S.max(1, keepdims=True)
            P = np.exp(S - m)
            by_prob = P >= math.exp(-L)
            by_half = S >= m - L
            margin = np.abs(S - (m - L)) > 1e-9 * (1 + np.abs(m))
            mismatch = int(((by_prob != by_half) & margin).sum())
            dropped = float(((P * ~by_half).sum(1) / P.sum(1)).max())
            rows.append(dict(d=d, B=B, n=n, L=L, eta=eta, mismatch=mismatch, dropped=dropped,
                             relevant_frac=float(by_half.mean())))
    return rows


def _circle(n, B, rng):
    th = rng.uniform(0, 2 * np.pi, n)
    return B * np.stack([np.cos(th), np.sin(th)], 1)


@memoize
def tree_experiment(p: dict, seed: int) -> dict:
    """attention_2d against exact attention (attention_blocked, d = 2) over n, for keys uniform in a square and
    keys on a circle (every key some query's maximum), queries uniform; error on 128 queries."""
    rng = np.random.default_rng(seed)
    rows = []
    for fam in ("square", "circle"):
        for n in p["tree_n"]:
            for B in p["tree_B"]:
                Q = B * rng.uniform(-1, 1, (n, 2))
                K = B * rng.uniform(-1, 1, (n, 2)) if fam == "square" else _circle(n, B, rng)
                v = rng.uniform(-1, 1, n)
                check = rng.choice(n, size=min(n, 128), replace=False)
                t, o = _best(lambda: sq.attention_2d(Q, K, v, 1e-3), p["tree_reps"])
                err = float(np.max(np.abs(o[check] - exact_rows(Q[check], K, v))))
                rows.append(dict(method="attention_2d", family=fam, n=n, B=B, eps=1e-3, seconds=t, err=err))
                if n <= p["tree_exact_max"]:
                    t, _ = _best(lambda: attnlab.attention_blocked(Q, K, v[:, None], beta=1.0), p["tree_reps"])
                    rows.append(dict(method="exact", family=fam, n=n, B=B, eps=0.0, seconds=t, err=0.0))
    return dict(rows=rows, loadavg=_loadavg())


def tree_summary(rows, n_min, theta=1.5):
    """Per key family and B of :func:`tree_experiment`: the CPU-time exponent of attention_2d over n >= n_min (fit and
    95% CI), the same fit over the three largest n (the trend at the end of the range), where the CI lies against
    Thm 1.3's ``theta`` = 2 - 1/d ("below", "above" or "contains"), the crossover and the ratio at the largest n.

    ``crossover``: the smallest measured n from which attention_2d is faster than exact attention at every larger n
    where exact attention was measured (None if at none). ``ratio_at_nmax``: exact attention's time extrapolated as
    c·n² (c: median t/n² of its three largest measured n) over attention_2d's measured time at the largest n."""
    out = []
    for fam in sorted({r["family"] for r in rows}):
        for B in sorted({r["B"] for r in rows if r["family"] == fam}):
            rr = [r for r in rows if r["family"] == fam and r["B"] == B]
            ours = sorted((r for r in rr if r["method"] == "attention_2d"), key=lambda r: r["n"])
            ex = {r["n"]: r["seconds"] for r in rr if r["method"] == "exact"}
            f = fit_time(rr, "attention_2d", B, 1e-3, n_min)
            tail = fit_time(rr, "attention_2d", B, 1e-3, ours[-3]["n"]) if len(ours) >= 3 else None
            both = [r for r in ours if r["n"] in ex]
            cross = None
            for i, r in enumerate(both):
                if all(x["seconds"] < ex[x["n"]] for x in both[i:]):
                    cross = r["n"]
                    break
            top = sorted(ex)[-3:]
            c = float(np.median([ex[x] / x**2 for x in top])) if top else float("nan")
            last = ours[-1]
            where = None if f is None else ("below" if f["hi"] < theta else "above" if f["lo"] > theta else "contains")
            out.append(dict(family=fam, B=B, slope=f and f["slope"], lo=f and f["lo"], hi=f and f["hi"],
                            points=f and f["points"], tail_slope=tail and tail["slope"], tail_lo=tail and tail["lo"],
                            tail_hi=tail and tail["hi"], vs_theta=where, crossover=cross,
                            faster_at=[r["n"] for r in both if r["seconds"] < ex[r["n"]]],
                            exact_max=max(ex) if ex else None, n_max=last["n"],
                            ratio_at_nmax=c * last["n"] ** 2 / last["seconds"]))
    return out


def exponent_table():
    """Thm 1.3's exponents 2 - 1/d."""
    return [dict(d=d, exponent=2 - 1 / d) for d in (1, 2, 3, 4, 8)]


# ---------------------------------------------------------------------------------------------------------------
# checks


def _data_1d(p, seed, data):
    if data is not None:
        return data
    return dict(guarantee=guarantee_experiment(p, seed), timing=timing_experiment(p, seed))


def check_at_1d(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-1d (rule: ``RULES["AT-1d"]``): the eps guarantee everywhere, and a near-linear time law."""
    p = preset(PRESETS, scale)
    d = _data_1d(p, seed, data)
    tol, tol_exact = 0.35, 0.3
    g_rows = d["guarantee"]
    t_rows = d["timing"]["rows"]
    errs = [r["ratio"] for r in g_rows if r["method"] == "attention_1d"]
    errs += [r["err"] / r["eps"] for r in t_rows if r["method"] == "attention_1d"]
    worst = max(errs)
    fits = {B: fit_time(t_rows, "attention_1d", B, 1e-3, p["t_fit_min"]) for B in p["t_B"]}
    exact_fits = {B: fit_time(t_rows, "exact", B, 0.0, min(p["t_fit_min"], p["t_exact_max"] // 4)) for B in p["t_B"]}
    sp = speedup(t_rows, p["t_B"][-1], 1e-3)
    ok_fits = [f for f in fits.values() if f is not None]
    control = all(f is not None and f["hi"] >= 2 - tol_exact for f in exact_fits.values())
    if worst > 1:
        verdict = "refuted"
    elif any(f["lo"] > 1 + tol for f in ok_fits):
        verdict = "refuted"
    elif control and ok_fits and all(f["lo"] >= 1 - tol and f["hi"] <= 1 + tol for f in ok_fits):
        verdict = "verified"
    else:
        verdict = "unverifiable-here"
    slopes = "; ".join(f"B = {B:g}: {f['slope']:.2f} [{f['lo']:.2f}, {f['hi']:.2f}]" for B, f in fits.items() if f)
    ex = ", ".join(f"{f['slope']:.2f}" for f in exact_fits.values() if f)
    lo = min((f["slope"] for f in ok_fits), default=float("nan"))
    hi = max((f["slope"] for f in ok_fits), default=float("nan"))
    theta = ("none" if not ok_fits else f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}")
    if worst > 1:
        head = f"attention_1d misses its guarantee: its worst error is {worst:.3g}·ε over {len(errs)} runs."
    elif verdict == "refuted":
        head = (f"attention_1d meets ε, but its time is not near-linear: the fitted exponent of n is {theta}, "
                f"its confidence interval above {1 + tol:g}.")
    elif verdict == "verified":
        head = (f"Near-linear attention at any temperature holds in d = 1: attention_1d stays within {worst:.2g}·ε "
                f"in all {len(errs)} runs (B up to {max(p['g_B']):g}) and its CPU time grows as n^{theta}.")
    else:
        head = (f"attention_1d stays within {worst:.2g}·ε in all {len(errs)} runs, but these timings do not "
                f"resolve its time law (fitted exponent of n: {theta}).")
    target = f"; the 100× target at n = 2^20 is {'met' if sp['speedup'] >= 100 else 'missed'}" \
        if sp["n"] == 2**20 else ""
    summary = (f"{head} Runs over five input families, n, B up to {max(p['g_B']):g}, float32 and float64. CPU-time "
               f"exponent of attention_1d at ε = 0.001 (95% interval): {slopes}; exact attention: {ex}. At "
               f"n = {sp['n']:,} it uses {sp['speedup']:,.0f}× less CPU time than exact attention (extrapolated as "
               f"c·n²){target}.")
    return Verdict("AT-1d", verdict, summary,
                   numbers=dict(worst_ratio=worst, runs=len(errs), fits={str(k): v for k, v in fits.items()},
                                exact_fits={str(k): v for k, v in exact_fits.items()}, speedup=sp),
                   thresholds=dict(rule=RULES["AT-1d"], tol=tol, tol_exact=tol_exact, error_ratio=1.0),
                   scale=p["scale"])


def _data_fixed_d(p, seed, data):
    if data is not None:
        return data
    return dict(halfspace=halfspace_experiment(p, seed), tree=tree_experiment(p, seed))


def check_at_fixed_d(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-fixed-d (rule: ``RULES["AT-fixed-d"]``)."""
    p = preset(PRESETS, scale)
    d = _data_fixed_d(p, seed, data)
    theta = 1.5
    hs = d["halfspace"]
    mism = sum(r["mismatch"] for r in hs)
    dropped = max(r["dropped"] / r["eta"] for r in hs)
    rows = d["tree"]["rows"]
    worst = max(r["err"] / r["eps"] for r in rows if r["method"] == "attention_2d")
    fits = {}
    for fam in sorted({r["family"] for r in rows}):
        for B in sorted({r["B"] for r in rows}):
            fr = [r for r in rows if r["family"] == fam and r["B"] == B]
            fits[f"{fam}, B = {B:g}"] = fit_time(fr, "attention_2d", B, 1e-3, p["tree_fit_min"])
    beats = [r["n"] for r in rows if r["method"] == "attention_2d" and any(
        x["method"] == "exact" and x["n"] == r["n"] and x["family"] == r["family"] and x["B"] == r["B"]
        and x["seconds"] > r["seconds"] for x in rows)]
    verdict = "refuted" if (mism > 0 or dropped > 1 or worst > 1) else "unverifiable-here"
    ts = tree_summary(rows, p["tree_fit_min"], theta)
    sl = "; ".join(
        f"{t['family']}, B = {t['B']:g}: {t['slope']:.2f} [{t['lo']:.2f}, {t['hi']:.2f}] ({t['vs_theta']} 1.5), "
        + (f"faster than exact attention from n = {t['crossover']} on (measured up to {t['exact_max']})"
           if t["crossover"] else f"faster than exact attention only at n = {', '.join(map(str, t['faster_at']))}"
           if t["faster_at"] else f"never faster than exact attention up to n = {t['exact_max']}")
        + f", exact attention extrapolated to n = {t['n_max']} takes {t['ratio_at_nmax']:.2g}× its time"
        for t in ts if t["slope"] is not None)
    if verdict == "refuted":
        head = (f"A premise of seed 003, Thm 1.3 fails here: {mism} halfspace mismatches, dropped mass up to "
                f"{dropped:.2g}·η, attention_2d's worst error {worst:.3g}·ε.")
    else:
        head = (f"The premises hold ({mism} halfspace mismatches, attention_2d within {worst:.2g}·ε), but the "
                f"n^1.5 time bound rests on partition trees, which this book does not build.")
    summary = (f"{head} Relevant keys and the halfspace agree in d = 2 and 3; the dropped mass is at most "
               f"{dropped:.2f}·η. attention_2d is a k-d tree with moments; its CPU-time exponents over "
               f"n ≥ {p['tree_fit_min']} (95% interval) and crossovers: {sl}. The exponent 2 − 1/d = 1.5 of seed 003, "
               f"Thm 1.3 is a worst-case bound for partition trees; a k-d tree's exponent on random keys at these "
               f"sizes neither confirms nor refutes it.")
    return Verdict("AT-fixed-d", verdict, summary,
                   numbers=dict(mismatch=mism, dropped_over_eta=dropped, worst_ratio=worst, fits=fits,
                                beats_exact_at=sorted(set(beats)), tree=ts),
                   thresholds=dict(rule=RULES["AT-fixed-d"], theta=theta, error_ratio=1.0, mismatches=0,
                                   dropped_over_eta=1.0),
                   scale=p["scale"])


# ---------------------------------------------------------------------------------------------------------------
# figures


def _log_ticks(ax):
    """Major tick labels only on log axes (minor labels such as 3×10² collide with their neighbours)."""
    from matplotlib.ticker import NullFormatter  # noqa: PLC0415

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())


def _eps_tex(eps):
    e = math.log10(eps)
    return f"10^{{{e:.0f}}}" if abs(e - round(e)) < 1e-9 else f"{eps:g}"


def plot_guarantee(rows):
    """Error/ε of every guarantee run, by family (log scale); the line at 1 is the guarantee. Runs whose error is
    exactly zero (n = 1, ties) have no place on a log axis and are not drawn, and errors below 1e-18·ε are drawn
    at 1e-18 (all of them are in the data)."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=2.6)
    fams = list(dict.fromkeys(r["family"] for r in rows))
    data = {"family": [], "method": [], "ratio": [], "n": [], "B": [], "eps": [], "dtype": []}
    for i, fam in enumerate(fams):
        for j, (meth, mk, label) in enumerate((("attention_1d", "o", "attention_1d"),
                                               ("attention_gauss_1d", "x", "Gauss route"))):
            rr = [r for r in rows if r["family"] == fam and r["method"] == meth]
            if not rr:
                continue
            y = np.array([r["ratio"] for r in rr], float)
            x = i + 0.25 * (j - 0.5) + 0.08 * np.random.default_rng(i).uniform(-1, 1, len(y))
            pos = y > 0
            ax.semilogy(x[pos], np.maximum(y[pos], 1e-18), mk, ms=2.5, color=OKABE_ITO[(0, 6)[j]], label=label if i == 0 else None)
            for r in rr:
                for c in data:
                    data[c].append(r[c])
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_ylim(3e-19, 30)
    ax.set_xticks(range(len(fams)), fams, fontsize=7)
    ax.set_ylabel(r"largest error / $\varepsilon$")
    _log_ticks(ax)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    fig.tight_layout()
    return fig, data


def plot_naive(rows):
    """Error of the printed monomial expansion (solid) and of attention_1d (dotted) against B, per n (ε = 10⁻³);
    runs that overflow (inf or NaN) or have error exactly zero are not drawn (they are in the data)."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=3.0)
    colours = [OKABE_ITO[k] for k in (0, 1, 5, 6, 3)]
    handles = []
    for i, n in enumerate(sorted({r["n"] for r in rows})):
        rr = sorted((r for r in rows if r["n"] == n), key=lambda r: r["B"])
        B = np.array([r["B"] for r in rr], float)
        for key, mk in (("err_naive", "o-"), ("err_ours", "s:")):
            y = np.array([r[key] for r in rr], float)
            ok = np.isfinite(y) & (y > 0)
            ax.loglog(B[ok], y[ok], mk, color=colours[i % len(colours)], ms=3)
        handles.append(Line2D([], [], color=colours[i % len(colours)], label=f"$n = {n}$"))
    handles += [Line2D([], [], color="0.4", marker="o", ms=3, label="printed expansion"),
                Line2D([], [], color="0.4", ls=":", marker="s", ms=3, label="attention_1d")]
    ax.axhline(1e-3, color="k", lw=1, ls="--")
    ax.set_xlabel("bound $B$ on the entries")
    ax.set_ylabel("largest entrywise error")
    _log_ticks(ax)
    ax.legend(handles=handles, fontsize=6.5, loc="upper center", bbox_to_anchor=(0.45, -0.2), ncol=3,
              frameon=False)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_timing(timing):
    """CPU time against n. Left: attention_1d (ε = 10⁻³) and exact attention, per B. Right: the Gauss-transform
    route per B, with attention_1d at the smallest B for reference."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    rows = timing["rows"]
    fig, (a1, a2) = figure(ncols=2, width=3.4, height=2.6, sharey=True)

    def curve(ax, meth, B, mk, colour, label):
        rr = sorted((r for r in rows if r["method"] == meth and r["B"] == B and math.isfinite(r["seconds"])
                     and r["eps"] in (1e-3, 0.0)), key=lambda r: r["n"])
        if rr:
            ax.loglog([r["n"] for r in rr], [r["seconds"] for r in rr], mk, base=2, ms=3, color=colour, label=label)

    Bs = sorted({r["B"] for r in rows if r["method"] == "attention_1d"})
    for i, B in enumerate(Bs):
        curve(a1, "attention_1d", B, "o-", OKABE_ITO[(1, 5, 6)[i % 3]], f"attention_1d, $B = {B:g}$")
        curve(a1, "exact", B, "s--", OKABE_ITO[(1, 5, 6)[i % 3]], f"exact, $B = {B:g}$")
    Bg = sorted({r["B"] for r in rows if r["method"] == "gauss"})
    for i, B in enumerate(Bg):
        curve(a2, "gauss", B, "x:", OKABE_ITO[(2, 3, 6, 7, 1)[i % 5]], f"Gauss route, $B = {B:g}$")
    if Bs:
        curve(a2, "attention_1d", Bs[0], "o-", OKABE_ITO[0], f"attention_1d, $B = {Bs[0]:g}$")
    for ax in (a1, a2):
        ax.set_xlabel("sequence length $n$")
        ax.legend(fontsize=6.5, loc="lower right", framealpha=0.9)
    a1.set_ylabel("CPU time (s)")
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_degree(rows):
    """Degree g of attention_1d (circles) and the degree really needed (crosses) against L = log(n/η), per ε."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=2.6)
    handles = []
    for i, eps in enumerate(sorted({r["eps"] for r in rows})):
        c = OKABE_ITO[(1, 5, 6)[i % 3]]
        rr = sorted((r for r in rows if r["eps"] == eps), key=lambda r: r["L"])
        ax.plot([r["L"] for r in rr], [r["g"] for r in rr], "o-", color=c, ms=3)
        need = [r for r in rr if r["g_needed"] is not None]
        ax.plot([r["L"] for r in need], [r["g_needed"] for r in need], "x", color=c, ms=5, mew=1.2)
        handles.append(Line2D([], [], color=c, label=rf"$\varepsilon = {_eps_tex(eps)}$"))
    handles += [Line2D([], [], color="0.4", marker="o", ms=3, label="degree used"),
                Line2D([], [], color="0.4", ls="none", marker="x", ms=5, label="degree needed")]
    ax.set_xlabel(r"window $L = \log(n/\eta)$")
    ax.set_ylabel("polynomial degree $g$")
    ax.legend(handles=handles, fontsize=6.5, loc="upper left", framealpha=0.9)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_tree(tree):
    """d = 2: CPU time of attention_2d (solid) and exact attention (dashed) against n, per B; keys in a square
    (left) and on a circle (right)."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    rows = tree["rows"]
    fams = sorted({r["family"] for r in rows}, key=lambda f: (f != "square", f))
    fig, axes = figure(ncols=len(fams), width=3.4, height=2.6, sharey=True, squeeze=False)
    for ax, fam in zip(axes[0], fams):
        for i, B in enumerate(sorted({r["B"] for r in rows})):
            for meth, mk, name in (("attention_2d", "o-", "attention_2d"), ("exact", "s--", "exact")):
                rr = sorted((r for r in rows if r["family"] == fam and r["B"] == B and r["method"] == meth),
                            key=lambda r: r["n"])
                if rr:
                    ax.loglog([r["n"] for r in rr], [r["seconds"] for r in rr], mk, base=2, ms=3,
                              color=OKABE_ITO[(1, 5, 6)[i % 3]], label=f"{name}, $B = {B:g}$")
        ax.set_xlabel(f"$n$, keys {'in a square' if fam == 'square' else 'on a circle'}")
        ax.legend(fontsize=6.5, loc="upper left", framealpha=0.9)
    axes[0][0].set_ylabel("CPU time (s)")
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}
