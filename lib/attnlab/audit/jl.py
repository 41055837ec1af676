r"""Chapter 01 (``notebooks/01-jl.ipynb``): the evidence for claim PDA-jl; the evidence of its sections is in
:mod:`attnlab.audit.jl_dimension` (PDA-row, PDA-global) and :mod:`attnlab.audit.jl_scaling` (PDA-mL, PDA-alg,
PDA-def), and importable from here too.

The sizes per scale (:data:`PRESETS`), the sweeps and experiments the chapter runs (memoized on disk), the
``check_*`` functions that turn them into verdicts, and the chapter's figures. The mathematics they rest on
(bounds, exact tails, rates, dimension formulas, samplers) is the library module :mod:`attnlab.approx.jl`.
"""
from __future__ import annotations

import math

import numpy as np
from tqdm import tqdm

from ..approx.jl import (inner_product_tail, jl_bound_chernoff, jl_bound_printed, large_deviation_rate,
                  sample_inner_product_error, worst_pair_tail)
from .cache import memoize
from .scale import preset
from .stats import clopper_pearson, fit_slope
from .verdict import Verdict, number_text

__all__ = [
    "PRESETS",
    "tail_grid",
    "tail_slopes",
    "tail_experiment",
    "check_pda_jl",
    "plot_tail_vs_c",
    "plot_tail_vs_m",
]

#: Sizes per scale. ``eps`` are JL tolerances (must lie in (0, 1/2)); ``L`` sequence lengths.
PRESETS = {
    "smoke": dict(m=[16, 64, 256], eps=[0.1, 0.3, 0.49], mc_trials=20_000,
                  d=64, logit_eps=0.5, delta=0.1, L=[1_000, 10_000], L_sim=[1_000], sim_trials=100,
                  scaling_m=[64, 256], scaling_trials=4, scaling_L=64, c_grid=5,
                  def_m=[32, 128], def_L=16, def_trials=256,
                  q_L=[1, 100, 10_000], q_delta=[0.1, 0.01, 1e-3], q_m=[1, 2, 64, 4096],
                  q_c=[0.0, 0.5, 0.9, 1.0], q_mc=dict(one=100_000, diag=5_000, sphere=100)),
    "book": dict(m=[8, 16, 32, 64, 128, 256, 512, 1024, 2048], eps=[0.05, 0.1, 0.2, 0.3, 0.4, 0.49],
                 mc_trials=200_000, d=64, logit_eps=0.5, delta=0.1,
                 L=[1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000], L_sim=[1_000, 10_000, 100_000],
                 sim_trials=400, scaling_m=[16, 32, 64, 128, 256, 512, 1024, 4096], scaling_trials=16,
                 scaling_L=256, c_grid=11, def_m=[16, 128, 256], def_L=32, def_trials=512,
                 q_L=[1, 2, 5, 10, 30, 100, 300, 1_000, 10_000, 100_000, 1_000_000],
                 q_delta=[0.1, 0.01, 1e-3], q_m=[1, 2, 3, 4, 8, 64, 1024, 65536],
                 q_c=[0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0], q_mc=dict(one=1_000_000, diag=50_000, sphere=1_000)),
    "paper": dict(m=[8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192],
                  eps=[0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.49], mc_trials=2_000_000, d=64, logit_eps=0.5,
                  delta=0.1, L=[1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000],
                  L_sim=[1_000, 10_000, 100_000, 1_000_000], sim_trials=2_000,
                  scaling_m=[16, 32, 64, 128, 256, 512, 1024, 4096, 16384], scaling_trials=64, scaling_L=1024, c_grid=21,
                  def_m=[16, 64, 128, 256, 1024], def_L=64, def_trials=4_096,
                  q_L=[1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1_000, 10_000, 100_000, 1_000_000, 10**9],
                  q_delta=[0.5, 0.1, 0.01, 1e-3, 1e-6], q_m=[1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 256, 1024, 4096, 16384,
                                                             65536],
                  q_c=np.linspace(0, 1, 21).tolist(), q_mc=dict(one=10_000_000, diag=2_000_000, sphere=10_000)),
}


# --------------------------------------------------------------------------- sweeps
def tail_grid(m_list, eps_list, mc_trials, rng, *, grid: int = 11, confidence: float = 0.95, progress=False):
    r"""Exact worst-pair tails, both bounds, and Monte-Carlo counts with Clopper–Pearson intervals on an (ε, m) grid.

    Monte-Carlo draws at the worst pair use genuine Gaussian matrices
    (:func:`attnlab.approx.jl.sample_inner_product_error`) while ``m * mc_trials <= 2e7``, and the
    pair's exact two-chi-square law beyond that. Returns a list of dicts, one per point, with keys
    ``eps, m, c_star, tail, bound, chernoff, mc_k, mc_n, mc_lo, mc_hi`` (the interval at ``confidence``)
    and ``mc_lo999`` (the lower limit at 99.9%).
    """
    rows = []
    bar = tqdm(total=len(eps_list) * len(m_list), desc="tail grid", disable=not progress, leave=False)
    for eps in eps_list:
        for m in m_list:
            bar.update()
            c, tail = worst_pair_tail(m, eps, grid=grid)
            method = "matrix" if m * mc_trials <= 2e7 else "chi2"
            err = sample_inner_product_error(c, m, mc_trials, rng=rng, method=method)
            k = int((np.abs(err) >= eps).sum())
            lo, hi = clopper_pearson(k, mc_trials, confidence)
            lo999, _ = clopper_pearson(k, mc_trials, 0.999)
            rows.append(dict(eps=eps, m=m, c_star=c, tail=tail, bound=float(jl_bound_printed(m, eps)),
                             chernoff=float(jl_bound_chernoff(m, eps)), mc_k=k, mc_n=mc_trials,
                             mc_lo=float(lo), mc_hi=float(hi), mc_lo999=float(lo999)))
    bar.close()
    return rows


def tail_slopes(rows, *, min_tail: float = 1e-300):
    r"""Per ε, the fitted slope of log(exact tail) against m over the larger half of the m grid (≥ 3 points).

    ``rows`` are those of :func:`tail_grid`. Each result row holds the slope with its 95% interval next to
    the exact large-deviation rate :math:`-I` (``rate``) and the printed :math:`-\epsilon^2/8` (``printed``).

    Examples
    --------
    >>> rows = [dict(eps=0.3, m=m, tail=2 * math.exp(-0.02 * m)) for m in (10, 20, 30, 40)]
    >>> round(tail_slopes(rows)[0]["slope"], 6)
    -0.02
    """
    out = []
    for eps in sorted({r["eps"] for r in rows}):
        pts = sorted((r["m"], r["tail"]) for r in rows if r["eps"] == eps and r["tail"] > min_tail)
        pts = pts[-max(3, len(pts) // 2):]  # the larger half of the grid, at least three points
        if len(pts) < 3:
            continue
        f = fit_slope([m for m, _ in pts], [math.log(t) for _, t in pts])
        out.append(dict(eps=eps, slope=f.slope, slope_lo=f.slope_lo, slope_hi=f.slope_hi,
                        rate=-large_deviation_rate(eps, 1.0), printed=-(eps**2) / 8))
    return out


# --------------------------------------------------------------------------- experiments (chapter and checks)
@memoize
def tail_experiment(p: dict, seed: int, *, progress=False):
    """:func:`tail_grid` on the (ε, m) grid of preset ``p``, Monte Carlo drawn from ``seed``."""
    return tail_grid(p["m"], p["eps"], p["mc_trials"], np.random.default_rng(seed), grid=p["c_grid"],
                     progress=progress)


# --------------------------------------------------------------------------- verdicts
# Each check takes (scale, seed) and, optionally, ``data``: the output of the experiment function it would
# otherwise run (tail_experiment, row_experiment, dimension_table(..., pairs=True), scaling_experiment) for the
# same preset and seed, so that a chapter that already ran the experiment does not run it twice.
#: PDA-jl: the printed bound is loose if the Chernoff form holds and the largest tail/bound stays below this.
JL_LOOSE = 0.5


def check_pda_jl(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for PDA-jl (the PDA draft, Thm 3.1): exact worst-pair tails and Monte Carlo (Clopper–Pearson) against
    4·exp(−mε²/8)."""
    p = preset(PRESETS, scale)
    rows = tail_experiment(p, seed) if data is None else data
    worst = max(r["tail"] / r["bound"] for r in rows)
    worst_chernoff = max(r["tail"] / r["chernoff"] for r in rows)
    mc_above = sum(r["mc_lo999"] > r["bound"] for r in rows)
    rate_ratio = min(large_deviation_rate(e, 1.0) / (e**2 / 8) for e in p["eps"])
    holds = worst <= 1 and mc_above == 0
    verdict = ("loose" if worst_chernoff <= 1 and worst < JL_LOOSE else "verified") if holds else "refuted"
    n_vacuous = sum(r["bound"] >= 1 for r in rows)
    if holds:
        head = (f"The printed bound 4·exp(−mε²/8) holds{' with room to spare' if verdict == 'loose' else ''}: the "
                f"exact worst-pair tail is at most {worst:.3g} of it over {len(rows)} (m, ε) points.")
    else:
        head = (f"The printed bound 4·exp(−mε²/8) fails: the exact worst-pair tail reaches {worst:.3g} times it"
                f"{f', and {mc_above} Monte-Carlo lower limits (99.9%) lie above it' if mc_above else ''}.")
    chernoff = "holds too" if worst_chernoff <= 1 else "fails too"
    worst_c = " and ".join(f"{c:g}".replace("-", "−") for c in sorted({r["c_star"] for r in rows}))
    return Verdict(
        "PDA-jl", verdict,
        f"{head} The search over pairs puts the worst at ⟨u,v⟩ = {worst_c}. The Chernoff form "
        f"2[exp(−m(ε − log(1+ε))/2) + exp(−m(−ε − log(1−ε))/2)] {chernoff} (tail/bound at most "
        f"{worst_chernoff:.3g}), and the true decay rate is at least {rate_ratio:.3g} times the printed ε²/8. The "
        f"printed bound is vacuous (≥ 1) at {n_vacuous} of the {len(rows)} points.",
        numbers=dict(max_tail_over_bound=worst, max_tail_over_chernoff=worst_chernoff, mc_points_above_bound=mc_above,
                     grid_points=len(rows), vacuous_points=sum(r["bound"] >= 1 for r in rows),
                     min_rate_over_eps2_8=rate_ratio, worst_c=sorted({r["c_star"] for r in rows})),
        thresholds=dict(holds="max tail/bound <= 1 and no 99.9% Clopper–Pearson lower limit above the bound",
                        loose=f"the Chernoff form holds too and max tail/bound < {number_text(JL_LOOSE)}"),
        scale=p["scale"])


# --------------------------------------------------------------------------- figures
def _log_axis(axis):
    """Ticks of a log axis that never collide; call after the data are drawn.

    Spanning 1.5 decades or more: labels at powers of ten only (no minor tick labels). Less: labels at 1, 2, 3 and 5
    times powers of ten, so that the axis is never left with a single label."""
    from ..plotting import log_ticks  # noqa: PLC0415

    log_ticks(axis, short=1.5, short_subs=(1.0, 2.0, 3.0, 5.0), short_labels="g-or-sci", numticks=7)


def _m_axis(ax, ms):
    """A log2 axis of projected dimensions with integer labels at (at most six) grid values."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, StrMethodFormatter  # noqa: PLC0415

    ax.set_xscale("log", base=2)
    ms = sorted(set(int(m) for m in ms))
    step = max(1, math.ceil(len(ms) / 6))
    ticks = ms[::step]
    if ticks[-1] != ms[-1]:  # always label the largest m; drop its neighbour if closer than a factor of 4
        ticks = (ticks[:-1] if ms[-1] < 4 * ticks[-1] else ticks) + [ms[-1]]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:.0f}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("projected dimension $m$")


def _positive(y):
    """``y`` as floats with zeros and negatives masked (NaN): a log axis never shows a zero."""
    y = np.asarray(y, dtype=float)
    return np.where(y > 0, y, np.nan)


def _pick_eps(eps_list, targets=(0.1, 0.3, 0.49)):
    """At most three tolerances of ``eps_list`` for a figure, those nearest ``targets``, in increasing order."""
    return sorted({min(eps_list, key=lambda e: abs(e - t)) for t in targets})


def plot_tail_vs_c(m_eps_pairs, n_c: int = 41):
    """Exact tail against ⟨u,v⟩ = c for a few (m, ε): the worst pair sits at |c| = 1. Returns (fig, data)."""
    from ..plotting import figure  # noqa: PLC0415

    cs = np.linspace(-1, 1, n_c)
    fig, ax = figure(height=2.7)
    data = {"c": cs}
    for m, eps in m_eps_pairs:
        t = np.array([inner_product_tail(m, eps, c) for c in cs])
        data[f"tail_m{m}_eps{eps}"] = t
        ax.plot(cs, _positive(t), label=rf"$m = {m},\ \varepsilon = {eps}$")
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    ax.set_xlabel(r"inner product $c = \langle u, v\rangle$")
    ax.set_ylabel(r"$\Pr(|\langle Pu, Pv\rangle - c| \geq \varepsilon)$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(m_eps_pairs), handlelength=1.2,
              columnspacing=0.8)
    return fig, data


def plot_tail_vs_m(rows):
    """Worst-pair tail against m for (at most) three ε: exact, Monte Carlo and the printed bound (left); the exact
    tail as a fraction of the printed bound and of the Chernoff form (right). Returns (fig, data)."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from ..plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, (ax, bx) = figure(ncols=2, width=3.4, height=2.7)
    shown = _pick_eps(sorted({r["eps"] for r in rows}))
    colours, markers = {}, {}
    for i, eps in enumerate(shown):
        rs = sorted((r for r in rows if r["eps"] == eps), key=lambda r: r["m"])
        col = colours[eps] = OKABE_ITO[(1, 5, 6)[i % 3]]
        mk = markers[eps] = "os^"[i % 3]
        m = np.array([r["m"] for r in rs])
        tail = np.array([r["tail"] for r in rs])
        ax.plot(m, _positive(tail), color=col)
        ax.plot(m, [r["bound"] for r in rs], color=col, ls="--", lw=1)
        ok = np.array([r["mc_k"] > 0 for r in rs])
        p = np.array([r["mc_k"] / r["mc_n"] for r in rs])
        lo = np.array([r["mc_lo"] for r in rs])
        hi = np.array([r["mc_hi"] for r in rs])
        ax.errorbar(m[ok], p[ok], yerr=[p[ok] - lo[ok], hi[ok] - p[ok]], fmt=mk, color=col, ms=3, lw=1)
        bx.plot(m, _positive(tail / np.array([r["bound"] for r in rs])), color=col, ls="--")
        bx.plot(m, _positive(tail / np.array([r["chernoff"] for r in rs])), color=col, ls=":")
    ms = [r["m"] for r in rows]
    ax.set_yscale("log")
    bx.set_yscale("log")
    ax.set_ylim(1e-12, 5)
    for a in (ax, bx):
        _m_axis(a, ms)
        _log_axis(a.yaxis)
    ax.set_ylabel("worst-pair tail probability")
    bx.set_ylabel("exact tail / bound")
    eps_handles = [Line2D([], [], color=colours[e], marker=markers[e], ms=3, label=rf"$\varepsilon = {e:g}$") for e in shown]
    ax.legend(handles=eps_handles + [
        Line2D([], [], color="k", marker="o", ms=3, ls="", label="Monte Carlo, 95%"),
        Line2D([], [], color="k", ls="--", lw=1, label=r"printed $4e^{-m\varepsilon^2/8}$")],
        loc="lower left", handlelength=1.6)
    bx.legend(handles=[Line2D([], [], color="k", ls="--", label=r"/ printed $4e^{-m\varepsilon^2/8}$"),
                       Line2D([], [], color="k", ls=":", label="/ Chernoff form")],
              loc="lower left", handlelength=1.6)
    fig.tight_layout()
    data = {k: [r[k] for r in rows] for k in rows[0]}
    return fig, data


# Moved, unchanged, to the modules of the chapter's section pages; still importable from here.
_MOVED_TO = {
    'random_unit_rows': 'jl_dimension',
    'm_simulated_row': 'jl_dimension',
    'dimension_table': 'jl_dimension',
    'row_experiment': 'jl_dimension',
    'QUANTIFIER_RULE': 'jl_dimension',
    'eps0_for_m': 'jl_dimension',
    'chi2_tail': 'jl_dimension',
    'diagonal_failure': 'jl_dimension',
    'row_family_failure': 'jl_dimension',
    'quantifier_search': 'jl_dimension',
    'breaking_points': 'jl_dimension',
    'smallest_diagonal_L': 'jl_dimension',
    'global_mc': 'jl_dimension',
    'quantifier_experiment': 'jl_dimension',
    '_fmt_delta': 'jl_dimension',
    '_smallest': 'jl_dimension',
    'quantifier_verdict': 'jl_dimension',
    '_search_numbers': 'jl_dimension',
    '_limit': 'jl_dimension',
    '_unpack': 'jl_dimension',
    'check_pda_row': 'jl_dimension',
    'check_pda_global': 'jl_dimension',
    'plot_dimension_table': 'jl_dimension',
    'logit_scaling': 'jl_scaling',
    'scaling_sweep': 'jl_scaling',
    'def_expectations': 'jl_scaling',
    'def_logits': 'jl_scaling',
    '_mean_ci': 'jl_scaling',
    'def_sweep': 'jl_scaling',
    'scaling_experiment': 'jl_scaling',
    'def_experiment': 'jl_scaling',
    'check_pda_alg': 'jl_scaling',
    'DEF_RULE': 'jl_scaling',
    'check_pda_def': 'jl_scaling',
    'ML_RULE': 'jl_scaling',
    'ml_attribution': 'jl_scaling',
    '_pretty': 'jl_scaling',
    'ml_verdict': 'jl_scaling',
    'check_pda_ml': 'jl_scaling',
    'plot_scaling': 'jl_scaling',
}


def __getattr__(name):
    if name in _MOVED_TO:
        import importlib  # noqa: PLC0415

        return getattr(importlib.import_module(f"{__package__}.{_MOVED_TO[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
