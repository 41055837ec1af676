"""The evidence of a section page (``notebooks/09-any-temperature-cost.ipynb``, the time half of claim AT-1d):
CPU timings of ``attention_1d`` against exact attention and the Gauss-transform route, shown as an illustration, and
the record of the 100× benchmark; moved as they were from :mod:`attnlab.audit.any_temperature`, which keeps the
presets, the exact operation counts the verdict is decided on and the check, and re-exports these names.
"""
from __future__ import annotations

import json
import math

import numpy as np

import attnlab
from attnlab import subquadratic as sq

from .any_temperature import (PARAMETER_LABELS, PRESETS, _best, _loadavg, _num, count_experiment, count_slopes,
                              envelope, exact_rows, fit_time, guarantee_experiment, precision_experiment)
from .cache import memoize

__all__ = ["PRESETS", "PARAMETER_LABELS", "count_experiment", "count_slopes", "envelope", "fit_time",
           "guarantee_experiment", "precision_experiment",
           "timing_experiment", "load_benchmark", "speedup", "plot_timing", "_num"]


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
        curve(a1, "attention_1d", B, ("o-", "^-", "D-")[i % 3], OKABE_ITO[(1, 5, 6)[i % 3]],
              f"attention_1d, $B = {B:g}$")
        curve(a1, "exact", B, ("s--", "v--", "P--")[i % 3], OKABE_ITO[(1, 5, 6)[i % 3]], f"exact, $B = {B:g}$")
    Bg = sorted({r["B"] for r in rows if r["method"] == "gauss"})
    for i, B in enumerate(Bg):
        curve(a2, "gauss", B, ("x:", "+-.", "1--", "*:", "x-.")[i % 5], OKABE_ITO[(2, 3, 6, 7, 1)[i % 5]],
              f"Gauss route, $B = {B:g}$")
    if Bs:
        curve(a2, "attention_1d", Bs[0], "o-", OKABE_ITO[0], f"attention_1d, $B = {Bs[0]:g}$")
    for ax in (a1, a2):
        ax.set_xlabel("sequence length $L$")
        ax.legend(fontsize=6.5, loc="lower right", framealpha=0.9)
    a1.set_ylabel("CPU time (s)")
    fig.tight_layout()
    return fig, {k: [r[k] for r in rows] for k in rows[0]}

