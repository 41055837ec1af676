r"""Chapter 03, section "Rank, energy and one-hot rows" (notebooks/03-spectrum-rank.ipynb): the evidence for claims
LR-rank, LR-cutoff and LR-onehot (and the synthetic illustration of LR-energy, decided in chapter 12).

The demo grid of the low-rank tutorial, the energy sweep over input families, lengths, widths and temperature
multipliers, and the one-hot limit (memoized); the ``check_*`` verdicts and the figures. The presets, parameters and
rules are those of :mod:`attnlab.audit.spectrum` (the chapter page).
"""
from __future__ import annotations

import math

import numpy as np
from tqdm import tqdm

from ..core.exact import attention_matrix
from ..theory.spectrum import energy_count, powerlaw_fit, singular_values
from .cache import memoize
from .scale import preset
from .verdict import Verdict
from .spectrum import PARAMETERS  # noqa: F401 (the page reads them from this module)
from .spectrum import ENERGY_KINDS, PRESETS, RULES, _num, _tidy_log_axes, make_inputs

__all__ = [
    "rank_experiment",
    "energy_experiment",
    "CUT_RATIO",
    "ONEHOT_LOW_DIVISOR",
    "check_lr_rank",
    "check_lr_cutoff",
    "energy_families",
    "onehot_k90",
    "onehot_experiment",
    "check_lr_onehot",
    "plot_demo_spectra",
    "plot_energy",
]


#: LR-cutoff: a singular value past the d-th "drops to zero" when σ_(d+1)/σ₁ is below this.
CUT_RATIO = 1e-10
#: LR-onehot: a matrix's rows span "very low" dimension when k₉₀ of its one-hot limit is at most L / this (the L/8
#: of LR-sparse; the rule's text is RULES["LR-onehot"] of :mod:`attnlab.audit.spectrum`).
ONEHOT_LOW_DIVISOR = 8


@memoize
def rank_experiment(p: dict, seed: int):
    """Rank of QKᵀ, numerical rank of A and σ_{d+1}/σ_1 on the demo grid (Gaussian Q, K; n × d; ``trials`` draws)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in p["n"]:
        for d in p["d"]:
            for t in range(p["trials"]):
                Q, K = rng.standard_normal((n, d)), rng.standard_normal((n, d))
                sS = singular_values(Q @ K.T)
                s = singular_values(attention_matrix(Q, K))
                tol = s[0] * n * np.finfo(float).eps
                rows.append(dict(n=n, d=d, trial=t, rank_scores=int((sS > sS[0] * n * np.finfo(float).eps).sum()),
                                 rank_A=int((s > tol).sum()), ratio=float(s[d] / s[0]) if d < n else float("nan"),
                                 s=s.tolist()))
    return rows


@memoize
def energy_experiment(p: dict, seed: int, *, progress=False):
    """k90 (energy count at 90%) and power-law fits over kind (:data:`ENERGY_KINDS`) × n × d × b (``energy_trials``)."""
    rng = np.random.default_rng(seed)
    rows = []
    grid = [(k, n, d) for k in ENERGY_KINDS for n in p["energy_n"] for d in p["energy_d"]]
    for kind, n, d in tqdm(grid, desc="energy", disable=not progress, leave=False):
        for t in range(p["energy_trials"]):
            Q, K = make_inputs(kind, n, d, rng)
            for b in p["b"]:
                s = singular_values(attention_matrix(Q, K, beta=b / math.sqrt(d)))
                try:
                    fit = powerlaw_fit(s) if n >= 16 else None
                except ValueError:  # fewer than 3 singular values above rounding (a sharpened sink: rank ~1)
                    fit = None
                rows.append(dict(kind=kind, n=n, d=d, b=b, trial=t, k90=energy_count(s, 0.9),
                                 alpha=None if fit is None else fit.alpha, r2=None if fit is None else fit.r2))
    return rows


def check_lr_rank(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for LR-rank: rank(QKᵀ) never exceeds min(L, d) (n = L in the code) and equals it for Gaussian inputs."""
    p = preset(PRESETS, scale)
    rows = rank_experiment(p, seed) if data is None else data
    over = sum(r["rank_scores"] > min(r["n"], r["d"]) for r in rows)
    attained = sum(r["rank_scores"] == min(r["n"], r["d"]) for r in rows)
    return Verdict(
        "LR-rank", "verified" if over == 0 else "refuted",
        (f"rank(QKᵀ) ≤ min(L, d) held in all {len(rows)} draws of the demo grid and was attained in {attained}. "
         if over == 0 else f"rank(QKᵀ) exceeded min(L, d) in {over} of {len(rows)} draws of the demo grid. ")
        + "The bound is tight for generic inputs (the symbolic argument: QKᵀ is a sum of d rank-one terms).",
        numbers=dict(draws=len(rows), exceed=over, attained=attained),
        thresholds=dict(verified="no draw with numerical rank > min(L, d) (tolerance σ₁·L·machine eps)"),
        scale=p["scale"])


def check_lr_cutoff(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for LR-cutoff: do the singular values of softmax(QKᵀ/√d) vanish after the d-th when d < L?"""
    p = preset(PRESETS, scale)
    rows = rank_experiment(p, seed) if data is None else data
    low = [r for r in rows if r["d"] < r["n"]]
    cut = [r for r in low if r["ratio"] < CUT_RATIO]
    worst = min(low, key=lambda r: (r["n"], r["d"]))
    min_ratio = min(r["ratio"] for r in low)
    return Verdict(
        "LR-cutoff", "refuted" if len(cut) < len(low) else "verified",
        f"In {len(low) - len(cut)} of {len(low)} demo draws with d < L, A keeps singular values past the d-th "
        f"(σ_(d+1)/σ₁ ≥ {_num(min_ratio)})"
        + (": softmax does not keep the scores' rank. " if len(cut) < len(low) else ". ")
        + f"Its "
        f"numerical rank is L in {sum(r['rank_A'] == r['n'] for r in low)}; smallest demo case L = {worst['n']}, "
        f"d = {worst['d']}: σ_(d+1)/σ₁ = {worst['ratio']:.3f}, rank {worst['rank_A']}. Softmax acts entrywise and "
        f"does not preserve rank (exact counterexample L = 2, d = 1 in the chapter).",
        numbers=dict(draws_d_below_n=len(low), draws_cut=len(cut), min_ratio=min_ratio,
                     full_rank=sum(r["rank_A"] == r["n"] for r in low),
                     smallest=dict(n=worst["n"], d=worst["d"], ratio=worst["ratio"], rank=worst["rank_A"])),
        thresholds=dict(cut=f"σ_(d+1)/σ₁ < {_num(CUT_RATIO, 1)} counts as 'drops to zero'"),
        scale=p["scale"])


def energy_families(rows):
    """Per input family of the energy sweep (an illustration: LR-energy is decided on the real heads, chapter 12):
    k90 at d = 64 and the standard temperature (b = 1) per L, how many of those draws have k90 ≤ 10 (the claim's
    "5–10 suffice") and k₉₀ in [5, 10], and in how many of the family's matrices (every L, d) sharpening from b = 1
    to the largest b lowers or raises k₉₀."""
    b1, bmax = 1, max(r["b"] for r in rows)
    fam = {}
    for kind in [k for k in ENERGY_KINDS if any(r["kind"] == k for r in rows)]:
        g = [r for r in rows if r["kind"] == kind and r["d"] == 64 and r["b"] == b1]
        pairs = {}
        for r in rows:
            if r["kind"] == kind:
                pairs.setdefault((r["n"], r["d"], r["trial"]), {})[r["b"]] = r["k90"]
        fam[kind] = dict(draws=len(g), at_most_10=sum(r["k90"] <= 10 for r in g),
                         inside_5_10=sum(5 <= r["k90"] <= 10 for r in g), k90_by_n={r["n"]: r["k90"] for r in g},
                         sharpen_raised=sum(v[bmax] > v[b1] for v in pairs.values()),
                         sharpen_lowered=sum(v[bmax] < v[b1] for v in pairs.values()), matrices=len(pairs),
                         b_from=b1, b_to=bmax)
    return fam


# --------------------------------------------------------------------------- LR-onehot: one-hot rows and their span
def onehot_k90(counts, frac: float = 0.9) -> int:
    r"""k90 of a matrix whose rows are one-hot, from ``counts[j]``, the number of rows whose 1 is in column j.

    Its Gram matrix :math:`M^\top M = \mathrm{diag}(c_j)`, so its singular values are :math:`\sqrt{c_j}` and its rank is
    the number of distinct columns used: exact, no SVD (:func:`attnlab.energy_count` on the sorted :math:`\sqrt{c_j}`).

    Examples
    --------
    >>> from attnlab.audit.spectrum import onehot_k90
    >>> onehot_k90([1] * 10), onehot_k90([10, 0, 0])
    (9, 1)
    """
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    return energy_count(np.sqrt(c[c > 0]), frac)


@memoize
def onehot_experiment(p: dict, seed: int):
    r"""LR-onehot: per family of :data:`ENERGY_KINDS` (L = ``onehot_n``, d = ``onehot_d``), k₉₀ of
    :math:`A = \mathrm{rowsoftmax}(b\,QK^\top/\sqrt d)` and the mean largest entry of a row over the multipliers
    ``b``, and the one-hot limit :math:`b\to\infty` (each row the indicator of its argmax key): the number of
    distinct argmax keys (its rank) and its k90 (:func:`onehot_k90`); and a permutation matrix (one-hot rows, all
    singular values 1)."""
    rng = np.random.default_rng(seed)
    n, d = p["onehot_n"], p["onehot_d"]
    rows = []
    for kind in ENERGY_KINDS:
        Q, K = make_inputs(kind, n, d, rng)
        sweep = []
        for b in p["b"]:
            A = attention_matrix(Q, K, beta=b / math.sqrt(d))
            sweep.append(dict(b=b, k90=energy_count(singular_values(A), 0.9), row_max=float(A.max(axis=1).mean())))
        counts = np.bincount(np.argmax(Q @ K.T, axis=1), minlength=n)
        rows.append(dict(kind=kind, n=n, d=d, sweep=sweep, distinct=int((counts > 0).sum()),
                         k90_limit=onehot_k90(counts)))
    perm = np.eye(n)[rng.permutation(n)]
    s = singular_values(perm)
    rows.append(dict(kind="permutation", n=n, d=None, sweep=[], distinct=n, k90_limit=energy_count(s, 0.9),
                     rank=int((s > s[0] * n * np.finfo(float).eps).sum()), sigma_min=float(s[-1]),
                     sigma_max=float(s[0])))
    return rows


def check_lr_onehot(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for LR-onehot (rule: ``RULES["LR-onehot"]``): do rows close to one-hot span a space of very low
    dimension? Decided on the exact one-hot limit of each family and on a permutation matrix."""
    p = preset(PRESETS, scale)
    rows = onehot_experiment(p, seed) if data is None else data
    n = rows[0]["n"]
    high = [r for r in rows if r["k90_limit"] > r["n"] / ONEHOT_LOW_DIVISOR]
    if len(high) > len(rows) / 2:
        verdict = "refuted"
    elif not high:
        verdict = "verified"
    else:
        verdict = "corrected"
    low = [r["kind"] for r in rows if r not in high]
    g = next((r for r in rows if r["kind"] == "gaussian" and r["sweep"]), None)
    sweep = (f" Sharpening Gaussian Q, K (d = {g['d']}) raises k₉₀ "
             + " → ".join(str(x["k90"]) for x in g["sweep"]) + " as t goes "
             + " → ".join(f"{x['b']:g}" for x in g["sweep"]) + f" (mean row maximum up to "
             f"{max(x['row_max'] for x in g['sweep']):.2f}), towards the limit's {g['k90_limit']}." if g else "")
    return Verdict(
        "LR-onehot", verdict,
        f"{len(high)} of {len(rows)} matrices with exactly one-hot rows need k₉₀ > L/{ONEHOT_LOW_DIVISOR} = "
        f"{n / ONEHOT_LOW_DIVISOR:.0f} (L = {n}): "
        + ("one-hot rows span as many dimensions as the distinct keys they pick. " if verdict != "verified"
           else "their rows share a few keys. ")
        + "A permutation matrix has one-hot rows, full rank and every singular value 1 (k₉₀ = "
        + f"{next((r['k90_limit'] for r in rows if r['kind'] == 'permutation'), '–')}); in the one-hot limit "
        + "(t → ∞) the families pick " + ", ".join(f"{r['kind']} {r['distinct']}" for r in rows if r["sweep"])
        + f" distinct keys. Low only where the rows share few keys ({', '.join(low) or 'no case'})." + sweep,
        numbers=dict(n=n, cases=len(rows), high=len(high),
                     per_case={r["kind"]: dict(distinct=r["distinct"], k90_limit=r["k90_limit"]) for r in rows}),
        thresholds=dict(rule=RULES["LR-onehot"], low=f"k₉₀ of the one-hot limit ≤ L/{ONEHOT_LOW_DIVISOR}"),
        scale=p["scale"])


def plot_demo_spectra(rows, n: int):
    """Normalised singular values of A for the demo's d at one n (first draw), with the cut-off d marked."""
    from ..plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=2.5)
    data = {}
    for i, r in enumerate(x for x in rows if x["n"] == n and x["trial"] == 0):
        s = np.asarray(r["s"])
        col, mk, ls = OKABE_ITO[(1, 2, 3, 5, 6, 7)[i % 6]], "osD^vP"[i % 6], ("-", "--", "-.", ":")[i % 4]
        ax.semilogy(np.arange(1, len(s) + 1), s / s[0], marker=mk, ls=ls, ms=2.5, lw=1, color=col, label=f"$d = {r['d']}$")
        if r["d"] < n:
            ax.axvline(r["d"] + 0.5, color=col, ls=":", lw=1)
        data[f"d{r['d']}"] = s / s[0]
    ax.set_xlabel("index $k$")
    ax.set_ylabel(r"$\sigma_k/\sigma_1$ of $A$")
    _tidy_log_axes(ax)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0), title=f"$L = {n}$", title_fontsize=6)
    return fig, data


def plot_energy(rows, n: int):
    """k90 against the temperature multiplier b at one n (mean over draws): one panel per d, one curve per kind."""
    from ..plotting import OKABE_ITO, figure  # noqa: PLC0415

    import pandas as pd  # noqa: PLC0415

    df = pd.DataFrame(rows)
    df = df[df.n == n].groupby(["kind", "d", "b"], as_index=False).k90.mean()
    ds = sorted(df.d.unique())
    fig, axes = figure(ncols=len(ds), width=3.4, height=2.5, sharey=True, squeeze=False)
    for ax, d in zip(axes[0], ds):
        for i, kind in enumerate(k for k in ENERGY_KINDS if k in set(df.kind)):
            g = df[(df.kind == kind) & (df.d == d)]
            col, mk, ls = ((OKABE_ITO[1], "o", "-"), (OKABE_ITO[2], "s", "--"), (OKABE_ITO[3], "^", "-."),
                           (OKABE_ITO[6], "D", ":"))[i % 4]
            ax.loglog(g.b, g.k90, marker=mk, ls=ls, color=col, label=kind)
        ax.axhspan(5, 10, color="0.85", zorder=0, label="claimed 5–10")
        ax.set_xlabel(r"temperature multiplier $t$ (logits $t\,S$)")
        ax.set_title(f"$d = {d}$, $L = {n}$", fontsize=8)
        _tidy_log_axes(ax, xticks=sorted(df.b.unique()))
    axes[0][0].set_ylabel(r"$k_{90}$")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.legend(handles, labels, fontsize=6, loc="lower center", ncol=len(labels), bbox_to_anchor=(0.5, 0.0))
    return fig, {c: df[c].tolist() for c in df}
