"""Evidence for chapter 09 (attention at any temperature): AT-1d and AT-fixed-d of seed 003.

Experiments (memoized), fits, the two checks and the figures. The algorithms are in :mod:`attnlab.subquadratic`.
Every error is measured against exact attention computed row by row in extended precision (``np.longdouble``)
from the same inputs; every timing is the best of a few runs on this (shared) machine.
"""
from __future__ import annotations

import math
import time

import numpy as np

import attnlab
from attnlab import subquadratic as sq

from .cache import memoize
from .scale import preset
from .stats import fit_slope
from .verdict import Verdict

__all__ = ["PRESETS", "FAMILIES", "exact_rows", "make_case", "guarantee_experiment", "naive_monomial_1d", "naive_experiment",
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
                 t_n=[2**k for k in range(8, 19)], t_exact_max=2**13,
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
    slopes = ", ".join(f"B = {B:g}: {f['slope']:.2f} [{f['lo']:.2f}, {f['hi']:.2f}]" for B, f in fits.items() if f)
    ex = ", ".join(f"{f['slope']:.2f}" for f in exact_fits.values() if f)
    target = f"; the 100x target at n = 2^20 is {'met' if sp['speedup'] >= 100 else 'missed'}" \
        if sp["n"] == 2**20 else ""
    summary = (f"Worst error/eps over {len(errs)} runs (families, n, B up to {max(p['g_B']):g}, float32/64): "
               f"{worst:.2e}. CPU-time exponent of attention_1d (eps = 1e-3) {slopes}; exact attention {ex}. "
               f"At n = {sp['n']} it uses {sp['speedup']:.0f}x less CPU time than exact attention (extrapolated as c·n²)"
               f"{target}.")
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
        + f", exact attention extrapolated to n = {t['n_max']} takes {t['ratio_at_nmax']:.2g}x its time"
        for t in ts if t["slope"] is not None)
    summary = (f"Relevant keys = halfspace in every case ({mism} mismatches, d = 2, 3); dropped mass at most "
               f"{dropped:.2f}·η; attention_2d (a k-d tree with moments) worst error/eps {worst:.2e}. Its CPU-time "
               f"exponents over n >= {p['tree_fit_min']} (95% CI) and crossovers: {sl}. Thm 1.3's 2 - 1/d = 1.5 is a "
               f"worst-case bound for partition trees; a k-d tree's exponent on random keys at these sizes neither "
               f"confirms nor refutes it.")
    return Verdict("AT-fixed-d", verdict, summary,
                   numbers=dict(mismatch=mism, dropped_over_eta=dropped, worst_ratio=worst, fits=fits,
                                beats_exact_at=sorted(set(beats)), tree=ts),
                   thresholds=dict(rule=RULES["AT-fixed-d"], theta=theta, error_ratio=1.0, mismatches=0,
                                   dropped_over_eta=1.0),
                   scale=p["scale"])


# ---------------------------------------------------------------------------------------------------------------
# figures


def plot_guarantee(rows):
    """Error/eps of every guarantee run, by family (log scale); the line at 1 is the guarantee."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=5.0, height=2.6)
    fams = list(dict.fromkeys(r["family"] for r in rows))
    data = {"family": [], "method": [], "ratio": [], "n": [], "B": [], "eps": [], "dtype": []}
    for i, fam in enumerate(fams):
        for j, (meth, mk) in enumerate((("attention_1d", "o"), ("attention_gauss_1d", "x"))):
            rr = [r for r in rows if r["family"] == fam and r["method"] == meth]
            if not rr:
                continue
            y = np.maximum([r["ratio"] for r in rr], 1e-18)
            x = i + 0.25 * (j - 0.5) + 0.08 * np.random.default_rng(i).uniform(-1, 1, len(y))
            ax.semilogy(x, y, mk, ms=2.5, color=OKABE_ITO[j], label=meth if i == 0 else None)
            for r in rr:
                for c in data:
                    data[c].append(r[c])
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_xticks(range(len(fams)), fams, fontsize=7)
    ax.set_ylabel("max error / eps")
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig, data


def plot_naive(rows):
    """Error of the printed monomial expansion and of attention_1d against B, per n (eps = 1e-3)."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=4.0, height=2.6)
    for i, n in enumerate(sorted({r["n"] for r in rows})):
        rr = sorted((r for r in rows if r["n"] == n), key=lambda r: r["B"])
        B = [r["B"] for r in rr]
        naive = [min(r["err_naive"], 1e30) for r in rr]
        ax.loglog(B, naive, "o-", color=OKABE_ITO[i], ms=3, label=f"monomials, n = {n}")
        ax.loglog(B, np.maximum([r["err_ours"] for r in rr], 1e-18), "s:", color=OKABE_ITO[i], ms=3,
                  label=f"attention_1d, n = {n}")
    ax.axhline(1e-3, color="k", lw=1, ls="--")
    ax.set_xlabel("B")
    ax.set_ylabel("max entrywise error")
    ax.legend(fontsize=5)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_timing(timing):
    """Time against n: attention_1d per B, exact attention, the Gauss route."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    rows = timing["rows"]
    fig, ax = figure(width=4.2, height=2.8)
    i = 0
    for meth, mk in (("attention_1d", "o-"), ("exact", "s--"), ("gauss", "x:")):
        for B in sorted({r["B"] for r in rows if r["method"] == meth}):
            rr = sorted((r for r in rows if r["method"] == meth and r["B"] == B and math.isfinite(r["seconds"])
                         and r["eps"] in (1e-3, 0.0)), key=lambda r: r["n"])
            if rr:
                ax.loglog([r["n"] for r in rr], [r["seconds"] for r in rr], mk, base=2, ms=3,
                          color=OKABE_ITO[i % len(OKABE_ITO)], label=f"{meth}, B = {B:g}")
                i += 1
    ax.set_xlabel("n (queries = keys)")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=5)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_degree(rows):
    """Degree g of attention_1d and the degree really needed against L = log(n/η)."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=3.6, height=2.6)
    for i, eps in enumerate(sorted({r["eps"] for r in rows})):
        rr = sorted((r for r in rows if r["eps"] == eps), key=lambda r: r["L"])
        ax.plot([r["L"] for r in rr], [r["g"] for r in rr], "o-", color=OKABE_ITO[i], ms=3, label=f"g, eps = {eps:g}")
        need = [r for r in rr if r["g_needed"] is not None]
        ax.plot([r["L"] for r in need], [r["g_needed"] for r in need], "x:", color=OKABE_ITO[i], ms=4,
                label=f"needed, eps = {eps:g}")
    ax.set_xlabel("L = log(n/η)")
    ax.set_ylabel("degree")
    ax.legend(fontsize=5)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}


def plot_tree(tree):
    """d = 2: attention_2d and exact attention against n, per key family and B."""
    from attnlab.plotting import OKABE_ITO, figure  # noqa: PLC0415

    rows = tree["rows"]
    fig, ax = figure(width=4.2, height=2.8)
    i = 0
    for fam in sorted({r["family"] for r in rows}):
        for B in sorted({r["B"] for r in rows}):
            for meth, mk in (("attention_2d", "o-"), ("exact", "s--")):
                rr = sorted((r for r in rows if r["family"] == fam and r["B"] == B and r["method"] == meth),
                            key=lambda r: r["n"])
                if rr:
                    ax.loglog([r["n"] for r in rr], [r["seconds"] for r in rr], mk, base=2, ms=3,
                              color=OKABE_ITO[i % len(OKABE_ITO)], label=f"{meth}, {fam}, B = {B:g}")
            i += 1
    ax.set_xlabel("n (queries = keys), d = 2")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=5)
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}
