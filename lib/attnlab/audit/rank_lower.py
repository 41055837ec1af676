"""Chapter 08 (``notebooks/08-rank-lower.ipynb``): the evidence for AR-lower and AR-synthetic: the chapter's presets,
experiments (memoized), slope tables, checks and figures.

The certificates and instances are the library's (:mod:`attnlab.rank_certificates`, :mod:`attnlab.rank_instances`,
:mod:`attnlab.rank_lattice`); the sphere-2 gap experiment is shared with chapter 07 (:mod:`attnlab.audit.rank_upper`).
"""
from __future__ import annotations

import numpy as np

import math

from .. import (LowerCertificate, cell_half_width, chebyshev_radius, lattice_beta, lattice_lower_count,
                lattice_materialised, lattice_query_radius, lower_certificate_margin, rank_lower_certificate,
                row_l1_error, sphere_gv_lower, sphere_lower_count, visible_interaction_dim)
from ..logits import softmax
from ._rank_common import SHARED, gap_experiment
from .cache import memoize
from .scale import SCALES, preset
from .stats import fit_slope
from .verdict import Verdict

__all__ = ["PRESETS", "PARAMETER_LABELS", "RULES", "gap_experiment", "lattice_experiment", "slopes_table", "lower_law_table", "candidates_experiment",
           "check_ar_lower", "check_ar_synthetic",
           "plot_lower_laws", "plot_gap", "embedded_lattice_head", "rlower_embedding", "rlower_fits", "sphere_rlower",
           "check_ar_rlower", "count_factor", "count_experiment", "count_cube", "check_ar_count"]

#: Sizes per scale (with ``SHARED``: ``eps``, ``lat_*``, ``gap_*``): ``lat_check_gamma`` the materialised lattice
#: check, ``sph_*`` the cap packings on the sphere, ``sph_check_factor`` the larger candidate pool of
#: :func:`candidates_experiment`.
_OWN = {
    "smoke": dict(lat_check_gamma=8.0, sph_d=[2, 3], sph_betas={2: [1e2, 1e3, 1e4], 3: [1e2, 3e2, 1e3]},
                  sph_candidates=20_000, sph_check_factor=5),
    "book": dict(lat_check_gamma=20.0, sph_d=[2, 3, 4], sph_betas={2: [1e2, 3e2, 1e3, 3e3, 1e4],
                                                                   3: [1e2, 2e2, 5e2, 1e3, 2e3],
                                                                   4: [3e1, 6e1, 1e2, 2e2, 3e2]},
                 sph_candidates=30_000, sph_check_factor=10),
    "paper": dict(lat_check_gamma=40.0, sph_d=[2, 3, 4],
                  sph_betas={2: [1e2, 1e3, 1e4, 1e5], 3: [1e2, 3e2, 1e3, 3e3, 1e4], 4: [3e1, 1e2, 3e2, 1e3]},
                  sph_candidates=2_000_000, sph_check_factor=2),
}
#: AR-rlower/AR-count: ``emb_*`` the embedded instances, ``rl_*`` tolerance and window, ``count_d``.
_RL = dict(emb_r=[1, 2, 3], emb_gamma=3.0, rl_tol=0.10, rl_decades=2, count_d=[2, 3, 4, 6])
PRESETS = {s: {**SHARED[s], **_OWN[s], **_RL} for s in SCALES}

#: What each preset entry is, in words (the chapter's collapsed parameters box).
PARAMETER_LABELS = {
    "eps": "tolerances ε (row-ℓ1 error)",
    "lat_d": "dimensions d of the lattice ball",
    "lat_betas": "nominal inverse temperatures β of the lattice ball",
    "gap_n": "queries of the materialised S¹ family",
    "gap_keys": "keys of the materialised S¹ family",
    "gap_betas": "inverse temperatures β of the S¹ family",
    "lat_check_gamma": "lattice scale γ of the materialised check (d = 2)",
    "sph_d": "dimensions d of the sphere packings",
    "sph_betas": "inverse temperatures β of the sphere packings, per d",
    "sph_candidates": "random candidates screened per sphere packing",
    "sph_check_factor": "candidate pool multiplier of the robustness run (d = 3)",
    "emb_r": "interaction dimensions r of the embedded instances",
    "emb_gamma": "lattice scale γ of the embedded instances",
    "rl_tol": "tolerance of the slope rules",
    "rl_decades": "decades of β in the slope window (AR-rlower)",
    "count_d": "dimensions d of the count check (AR-count)",
}

#: Decision rules, stated before the run.
RULES = {
    "AR-lower": (
        "refuted unless the materialised certificate has margin > 0 (and the generic search finds at least the "
        "message rows) and every implicit instance's own-cell mass exceeds (1 + ε)/2; otherwise verified if, for "
        "every (d, ε), the slope of log M against log γ is within rl_tol of d and M at the largest γ is within "
        "rl_tol of the volume count V_d(γ/ℓ)^d (both free of how β is parametrised; β/(√d γ²) → 1 is algebra), "
        "else refuted. The slope against log β within 10% of d/2 is not used: it measures the margin of the "
        "parametrisation (it would fail for a correct bound on β in [1e2, 1e4])."),
    "AR-synthetic": (
        "The seed's slopes come from its own decoder, which is not published: the verdict is unverifiable-here "
        "whatever this book measures; the summary reports the book's own certificates' slopes against "
        "(d−1)/2 (sphere) and d/2 (ball), and whether each lies within the seed's 8%."),
}


# --------------------------------------------------------------------------- experiments
@memoize
def lattice_experiment(p: dict, seed: int):
    """AR-lower/AR-synthetic: lattice certificates (ball) and cap packings (sphere) against β, per d and ε."""
    rng = np.random.default_rng(seed)
    ball = [lattice_lower_count(d, b, e) for e in p["eps"] for d in p["lat_d"] for b in p["lat_betas"]]
    sphere = [sphere_lower_count(d, b, e, p["sph_candidates"], rng=rng) for e in p["eps"] for d in p["sph_d"]
              for b in p["sph_betas"][d]]
    return dict(ball=ball, sphere=sphere)


def slopes_table(rows, theory):
    """Per (d, ε): the fitted slope of log M against log β with its 95% interval and the theory exponent."""
    out = []
    for e in sorted({r["eps"] for r in rows}):
        for d in sorted({r["d"] for r in rows}):
            pts = [(r["beta"], r["M"]) for r in rows if r["d"] == d and r["eps"] == e and r["M"] > 0]
            if len(pts) < 3:
                continue
            f = fit_slope(np.log([b for b, _ in pts]), np.log([m for _, m in pts]))
            th = theory(d)
            out.append(dict(d=d, eps=e, slope=f.slope, lo=f.slope_lo, hi=f.slope_hi, theory=th,
                            rel_dev=abs(f.slope / th - 1), M_min=min(m for _, m in pts), M_max=max(m for _, m in pts)))
    return out


# --------------------------------------------------------------------------- verdicts
def _sci(x: float) -> str:
    """x to 3 significant digits, as 2.17·10^13 beyond 10^6 (plain text, one way everywhere)."""
    if abs(x) < 1e6:
        return f"{float(f'{x:.3g}'):,.0f}" if abs(x) >= 100 else f"{x:.3g}"
    m, e = f"{x:.2e}".split("e")
    return f"{m}·10^{int(e)}"


def _span_text(xs, fmt=".2f"):
    lo, hi = format(min(xs), fmt), format(max(xs), fmt)
    return lo if lo == hi else f"{lo}–{hi}"


def lower_law_table(rows, tol: float = 0.10):
    """Per (d, ε) of the lattice construction: the exponent of the message count M in the lattice scale γ (theory
    d, 95% interval), the size-free ratio M / (V_d (γ/ℓ)^d) at the largest γ (→ 1: lattice points in the ball of
    radius γ/ℓ), the instance's β/(√d γ²) there (→ 1 as γ → ∞: β^(d/2) ≍ γ^d), and, for comparison, the slope
    against log β, whose finite-window value depends on how β is parametrised (the margin)."""
    out = []
    for e in sorted({r["eps"] for r in rows}):
        for d in sorted({r["d"] for r in rows}):
            rs = sorted((r for r in rows if r["d"] == d and r["eps"] == e and r["M"] > 0), key=lambda r: r["gamma"])
            if len(rs) < 3:
                continue
            fg = fit_slope(np.log([r["gamma"] for r in rs]), np.log([r["M"] for r in rs]))
            fb = fit_slope(np.log([r["beta"] for r in rs]), np.log([r["M"] for r in rs]))
            top = rs[-1]
            vol = math.pi ** (d / 2) / math.gamma(d / 2 + 1) * (top["gamma"] / top["ell"]) ** d
            out.append(dict(d=d, eps=e, gamma_slope=fg.slope, gamma_lo=fg.slope_lo, gamma_hi=fg.slope_hi,
                            gamma_rel_dev=abs(fg.slope / d - 1), volume_ratio=top["M"] / vol,
                            beta_over_gamma2=top["beta"] / (math.sqrt(d) * top["gamma"] ** 2),
                            beta_slope=fb.slope, beta_rel_dev=fb.slope / (d / 2) - 1,
                            law=bool(abs(fg.slope / d - 1) <= tol and abs(top["M"] / vol - 1) <= tol),
                            M_max=top["M"], gamma_max=top["gamma"]))
    return out


def check_ar_lower(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AR-lower (rule: ``RULES["AR-lower"]``): the lattice certificate is valid on materialised instances
    and its message count grows as γ^d ≍ β^(d/2), judged on quantities free of how β is parametrised."""
    p = preset(PRESETS, scale)
    res = lattice_experiment(p, seed) if data is None else data
    eps = p["eps"][0]
    A, cells = lattice_materialised(2, p["lat_check_gamma"], eps)
    own = np.array([A[i, c].sum() for i, c in enumerate(cells)])
    cert = LowerCertificate(len(cells), eps, list(range(len(cells))), cells, own.tolist())
    margin = lower_certificate_margin(A, cert)
    generic = rank_lower_certificate(A, eps)
    tab = lower_law_table(res["ball"], p["rl_tol"])
    valid = margin > 0 and generic.M >= len(cells) and all(r["margin_ok"] for r in res["ball"])
    ok = valid and bool(tab) and all(t["law"] for t in tab)
    gdev = max(t["gamma_rel_dev"] for t in tab)
    vdev = max(abs(t["volume_ratio"] - 1) for t in tab)
    bdev = [t["beta_rel_dev"] for t in tab]
    Mmax = max(r["M"] for r in res["ball"])
    ds = ", ".join(str(d) for d in p["lat_d"])
    if ok:
        head = (f"M ≍ β^(d/2) holds for the lattice: the slope of log M against log γ is within {gdev:.2%} of d, "
                f"and M within {vdev:.2%} of the volume count (d = {ds}).")
    elif not valid:
        head = (f"The lattice certificate fails on its own instances: margin 2m − 1 − ε = {margin:.3g} on the "
                f"materialised d = 2 matrix, or an implicit cell holds too little mass.")
    else:
        head = (f"The lattice message count does not follow M ≍ γ^d: the slope against log γ deviates from d by up to "
                f"{gdev:.1%} and M from the volume count by up to {vdev:.1%} (tolerance {p['rl_tol']:.0%}).")
    return Verdict("AR-lower", "verified" if ok else "refuted",
                   f"{head} The largest certificate is M = {_sci(Mmax)}. Materialised (d = 2, γ = {p['lat_check_gamma']:g}), the {len(cells)} message rows put "
                   f"their mass on their own cells with margin 2m − 1 − ε ≥ {margin:.3f} (the generic search finds "
                   f"{generic.M}). Since β = γ√d(⌈γ⌉ + margin) ~ √d·γ² (β/(√d·γ²) = "
                   f"{_span_text([t['beta_over_gamma2'] for t in tab], '.3f')} at the largest γ), M ≍ γ^d is "
                   f"M ≍ β^(d/2). The slope against log β itself ({_span_text([100 * b for b in bdev], '+.1f')}% "
                   "from d/2) measures the margin of β's parametrisation, not the bound; a rule on it would give "
                   f"{'the same' if bool(valid and max(abs(b) for b in bdev) <= 0.1) == ok else 'another'} verdict here.",
                   numbers=dict(materialised_messages=len(cells), margin=margin, generic_M=generic.M, laws=tab,
                                max_gamma_rel_dev=gdev, max_volume_dev=vdev, beta_slope_rel_dev=bdev,
                                old_rule_verified=bool(valid and max(abs(b) for b in bdev) <= 0.1)),
                   thresholds=dict(rule=RULES["AR-lower"], tol=p["rl_tol"]), scale=p["scale"])


@memoize
def candidates_experiment(p: dict, seed: int):
    """The sphere packing's dependence on its fixed pool of random candidates: d = 3, first ε, the β grid of
    ``sph_betas[3]``, with ``sph_candidates`` and ``sph_check_factor`` times as many candidates (fresh draws)."""
    rng = np.random.default_rng(seed + 1)
    e, betas = p["eps"][0], p["sph_betas"][3]
    out = []
    for c in (p["sph_candidates"], p["sph_check_factor"] * p["sph_candidates"]):
        rows = [sphere_lower_count(3, b, e, c, rng=rng) for b in betas]
        f = fit_slope(np.log(betas), np.log([r["M"] for r in rows]))
        out.append(dict(candidates=c, M=[r["M"] for r in rows], slope=f.slope, lo=f.slope_lo, hi=f.slope_hi,
                        candidates_per_message=c / rows[-1]["M"]))
    return dict(d=3, eps=e, betas=list(betas), theory=1.0, runs=out)


def check_ar_synthetic(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AR-synthetic (rule: ``RULES["AR-synthetic"]``): the seed's slopes come from its own decoder,
    which this book cannot rerun, so the verdict is unverifiable-here; the summary gives what was measured instead
    (the book's own certificates' slopes against (d−1)/2 and d/2) and whether each is within the seed's 8%."""
    p = preset(PRESETS, scale)
    res = lattice_experiment(p, seed) if data is None else data
    ball = slopes_table(res["ball"], lambda d: d / 2)
    sph = slopes_table(res["sphere"], lambda d: (d - 1) / 2)
    devs = {f"ball, d = {t['d']}, ε = {t['eps']:g}": t["rel_dev"] for t in ball}
    devs.update({f"sphere, d = {t['d']}, ε = {t['eps']:g}": t["rel_dev"] for t in sph})
    worst = max(devs.values())
    within = sum(v <= 0.08 for v in devs.values())
    return Verdict("AR-synthetic", "unverifiable-here",
                   f"The seed's slopes cannot be rerun (its decoder is unpublished); the book's own certificates "
                   f"put {within} of {len(devs)} within the seed's 8% of theory (worst {worst:.1%}). Measured with the lattice on the ball and cap packings screened from a fixed pool "
                   f"of random candidates on the sphere, against (d − 1)/2 and d/2; the largest deviation is at "
                   f"{max(devs, key=devs.get)}.",
                   numbers=dict(ball=ball, sphere=sph, deviations=devs, worst=worst, within_8pct=within),
                   thresholds=dict(rule=RULES["AR-synthetic"], seed_band=0.08), scale=p["scale"])


# --------------------------------------------------------------------------- figures
def _log_ticks(ax):
    """Major tick labels only on log axes (minor labels such as 3×10² collide with their neighbours)."""
    from matplotlib.ticker import NullFormatter  # noqa: PLC0415

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())


def plot_lower_laws(res, eps):
    """Lower certificates against β on log–log axes, ball (lattice) and sphere (caps), with theory slopes."""
    from ..plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, (a1, a2) = figure(ncols=2, width=3.4, height=2.6)
    for ax, key, th in ((a1, "sphere", lambda d: (d - 1) / 2), (a2, "ball", lambda d: d / 2)):
        rows = [r for r in res[key] if r["eps"] == eps and r["M"] > 0]  # a zero has no place on a log axis
        for i, d in enumerate(sorted({r["d"] for r in rows})):
            rs = [r for r in rows if r["d"] == d]
            b = np.array([r["beta"] for r in rs])
            M = np.array([r["M"] for r in rs], float)
            c = OKABE_ITO[(1, 5, 3, 6, 7)[i % 5]]  # the palette without its yellow
            ax.loglog(b, M, "o-", color=c, ms=3, label=f"$d = {d}$")
            ax.loglog(b, M[-1] * (b / b[-1]) ** th(d), ":", color=c, lw=1)
        ax.set_xlabel(r"inverse temperature $\beta$")
        _log_ticks(ax)
        ax.legend(fontsize=7, loc="upper left", title="sphere $S^{d-1}$" if key == "sphere" else "ball $B^d$",
                  title_fontsize=7)
    a1.set_ylabel(r"lower certificate $M$")
    fig.tight_layout()
    data = {f"{k}_{c}": [r[c] for r in res[k] if r["eps"] == eps] for k in ("sphere", "ball") for c in ("d", "beta", "M")}
    return fig, data


def plot_gap(rows, eps):
    """Upper (greedy, SVD) and lower certificates of the sphere-2 family against β, with slope (d−1)/2."""
    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    rs = [r for r in rows if r["eps"] == eps]
    b = np.array([r["beta"] for r in rs], float)
    for key, label in (("greedy", "greedy cover (upper)"), ("svd", "truncated SVD (upper)"),
                       ("lower", "lower certificate")):
        y = np.array([r[key] for r in rs], float)
        ax.loglog(b[y > 0], y[y > 0], "o-", ms=3, label=label)  # a zero has no place on a log axis
    ax.loglog(b, rs[-1]["lower"] * (b / b[-1]) ** 0.5, "k:", lw=1, label="slope 1/2")
    ax.set_xlabel(r"inverse temperature $\beta$")
    ax.set_ylabel(r"rank certificate at $\varepsilon = %g$" % eps)
    _log_ticks(ax)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig, {k: [r[k] for r in rs] for k in rs[0]}


# --------------------------------------------------------------------------- AR-rlower, AR-count
def embedded_lattice_head(r: int, gamma: float, *, margin: int = 8):
    r"""The lattice instance of dimension r embedded in :math:`\mathbb R^{r+1}` (the approximation-rank notes, l. 96): queries
    :math:`(c/\gamma, 1)`, keys :math:`(u/(\sqrt rR), -\|u\|^2/(2\beta))`, so that
    :math:`\beta\langle q,k\rangle=\langle c,u\rangle-\|u\|^2/2`: the log-multiplicities become a key-only coordinate.
    Returns Q, K, β and the direct logits ⟨c, u⟩ − ‖u‖²/2."""
    R = math.ceil(gamma) + margin
    beta = lattice_beta(r, gamma, margin)
    g = math.floor(gamma)
    grid = np.stack(np.meshgrid(*[np.arange(-g, g + 1)] * r, indexing="ij"), -1).reshape(-1, r).astype(float)
    C = grid[(grid**2).sum(1) <= gamma**2 + 1e-9]
    U = np.stack(np.meshgrid(*[np.arange(-R, R + 1)] * r, indexing="ij"), -1).reshape(-1, r).astype(float)
    Q = np.hstack([C / gamma, np.ones((len(C), 1))])
    K = np.hstack([U / (math.sqrt(r) * R), -(U**2).sum(1, keepdims=True) / (2 * beta)])
    return Q, K, beta, C @ U.T - (U**2).sum(1)[None, :] / 2


@memoize
def rlower_embedding(p: dict, seed: int):
    """AR-rlower: the embedded instances for r in ``emb_r`` at γ = ``emb_gamma``: visible dimension, Γ/β from the
    visible coordinates' Chebyshev radii, and the row-ℓ1 distance of softmax(βQKᵀ) to the direct lattice rows."""
    out = []
    for r in p["emb_r"]:
        Q, K, beta, direct = embedded_lattice_head(r, p["emb_gamma"])
        vi = visible_interaction_dim(Q, K)
        G = beta * chebyshev_radius(vi.a) * chebyshev_radius(vi.b)
        out.append(dict(r=r, ambient=Q.shape[1], visible=vi.r, n=Q.shape[0], L=K.shape[0], beta=beta,
                        Gamma_over_beta=G / beta,
                        embed_error=row_l1_error(softmax(beta * (Q @ K.T)), softmax(direct))))
    return out


def rlower_fits(ball, tol: float = 0.10, decades: float = 2.0):
    r"""Per (d, ε) of the lattice rows: the slope of log M (lower certificate) against log(1 + Γ/ε²), Γ = β ρ_Q
    (ρ_K = 1), over β ≥ β_max/10^decades, with its 95% interval, against r/2 = d/2; and Γ/β over the window."""
    out = []
    for e in sorted({x["eps"] for x in ball}):
        for d in sorted({x["d"] for x in ball}):
            rs = sorted((x for x in ball if x["d"] == d and x["eps"] == e and x["M"] > 0), key=lambda x: x["beta"])
            if not rs:
                continue
            bmax = rs[-1]["beta_nominal"]
            w = [x for x in rs if x["beta_nominal"] >= bmax / 10**decades * (1 - 1e-12)]
            if len(w) < 3:
                continue
            gb = [lattice_query_radius(d, x["gamma"]) for x in w]
            f = fit_slope(np.log([1 + x["beta"] * g / e**2 for x, g in zip(w, gb)]), np.log([x["M"] for x in w]))
            th = d / 2
            out.append(dict(r=d, eps=e, theory=th, slope=f.slope, lo=f.slope_lo, hi=f.slope_hi, points=len(w),
                            beta_min=w[0]["beta"], beta_max=w[-1]["beta"], Gamma_over_beta_min=min(gb),
                            Gamma_over_beta_max=max(gb), reaches=bool(f.slope >= (1 - tol) * th),
                            too_fast=bool(f.slope_lo > (1 + tol) * th)))
    return out


@memoize
def sphere_rlower(p: dict, seed: int):
    """AR-rlower, the sphere: the packing lower certificate of the continuum sphere (``sphere_gv_lower``) for d in
    ``sph_d`` and β in ``sph_betas`` (deterministic)."""
    return [dict(d=d, eps=e, beta=float(b), beta_nominal=float(b), M=sphere_gv_lower(d, b, e)["M"])
            for e in p["eps"] for d in p["sph_d"] for b in p["sph_betas"][d]]


def check_ar_rlower(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AR-rlower: the lattice construction embedded in R^(r+1) has visible dimension r and Γ ≍ β, and its
    lower certificate grows as (1 + Γ/ε²)^(r/2); the sphere's packing certificate grows as β^((d−1)/2).

    Rule (fixed before the run; window the top ``rl_decades`` decades of each β grid, tol ``rl_tol``): ``refuted`` if an
    embedded instance has visible dimension ≠ r or differs from the lattice rows (> 1e-12), or a lower slope's 95%
    interval lies entirely above (1 + tol)·theory (a lower bound faster than the upper law); ``verified`` if every
    lower slope is ≥ (1 − tol)·theory (the bracket's lower side; the upper side is the upper law's own exponent)
    and Γ/β stays within a factor 2; otherwise ``unverifiable-here``."""
    p = preset(PRESETS, scale)
    if data is None:
        data = dict(lattice=lattice_experiment(p, seed), embedding=rlower_embedding(p, seed),
                    sphere=sphere_rlower(p, seed))
    tol, dec = p["rl_tol"], p["rl_decades"]
    emb = data["embedding"]
    ball = rlower_fits(data["lattice"]["ball"], tol, dec)
    sph = [dict(t, r=t["d"], reaches=bool(t["slope"] >= (1 - tol) * t["theory"]),
                too_fast=bool(t["lo"] > (1 + tol) * t["theory"]))
           for t in slopes_table([x for x in data["sphere"]
                                  if x["beta"] >= max(y["beta"] for y in data["sphere"] if y["d"] == x["d"]) / 10**dec
                                  * (1 - 1e-12)], lambda d: (d - 1) / 2)]
    emb_ok = all(x["visible"] == x["r"] and x["embed_error"] <= 1e-12 for x in emb)
    gb = [x["Gamma_over_beta"] for x in emb] + [t["Gamma_over_beta_min"] for t in ball] + \
        [t["Gamma_over_beta_max"] for t in ball]
    fits = ball + sph
    if not emb_ok or any(t["too_fast"] for t in fits):
        verdict = "refuted"
    elif fits and all(t["reaches"] for t in fits) and max(gb) <= 2 * min(gb) and ball:
        verdict = "verified"
    else:
        verdict = "unverifiable-here"
    bd = "; ".join(f"r = {t['r']}, ε = {t['eps']:g}: {t['slope']:.3f} [{t['lo']:.3f}, {t['hi']:.3f}] against "
                   f"{t['theory']:g}" for t in ball)
    sd = "; ".join(f"S^{t['r'] - 1}, ε = {t['eps']:g}: {t['slope']:.3f} against {t['theory']:g}" for t in sph)
    low = min((t["slope"] / t["theory"] for t in fits), default=float("nan"))
    rs = ", ".join(str(x["r"]) for x in emb)
    if verdict == "verified":
        head = (f"β^(r/2) is sharp in the interaction dimension r: every lower-certificate slope reaches at least "
                f"{low:.3f}·(r/2), where the rule asks for {1 - tol:g}·(r/2).")
    elif verdict == "refuted":
        head = ("The embedded lattice construction contradicts the claim: an instance's visible dimension differs "
                "from r, it differs from the lattice rows, or a lower slope exceeds the upper law's r/2.")
    else:
        head = (f"The lower certificates do not reach the bound β^(r/2) on this grid: the smallest slope is "
                f"{low:.3f}·(r/2), below the rule's {1 - tol:g}·(r/2), or Γ/β drifts by more than a factor 2.")
    return Verdict("AR-rlower", verdict,
                   f"{head} Embedded in R^(r+1) (γ = {p['emb_gamma']:g}), the lattice instances for r = {rs} have "
                   f"visible dimension {', '.join(str(x['visible']) for x in emb)}, reproduce the lattice rows to "
                   f"{max(x['embed_error'] for x in emb):.1e}, and Γ/β lies in [{min(gb):.3f}, {max(gb):.3f}]. "
                   f"Lower-certificate slopes against log(1 + Γ/ε²) over the top {dec:g} decades of β: {bd}; sphere "
                   f"packing certificates against log β: {sd}. The upper side of the bracket is the upper law's "
                   "exponent r/2 itself (AR-upper).",
                   numbers=dict(embedding=emb, ball=ball, sphere=sph, Gamma_over_beta=[min(gb), max(gb)]),
                   thresholds=dict(window=f"β >= β_max/10^{dec:g}, >= 3 points", reaches=f"slope >= (1 − {tol})·theory",
                                   refuted=f"visible dim != r, embedding error > 1e-12, or slope CI > (1 + {tol})·theory",
                                   asymp="max Γ/β <= 2·min Γ/β"), scale=p["scale"])


SEED_STATES, SEED_LOG10_TOKENS = 17_850_625, 88_946


def count_factor(states: int = SEED_STATES, dims=(2, 3, 4, 6)):
    """AR-count: the prime factorisation of the seed's state count (SymPy) and, per d, whether it is a perfect d-th
    power (a cubic grid with that many points per side)."""
    import sympy as sp  # noqa: PLC0415

    fac = {int(k): int(v) for k, v in sp.factorint(states).items()}
    grid = {}
    for d in dims:
        root, exact = sp.integer_nthroot(states, d)
        grid[int(d)] = int(root) if exact else None
    return dict(states=states, factors=fac, grid_side=grid)


@memoize
def count_experiment(p: dict, seed: int):
    r"""AR-count: for d in ``count_d`` and each ε, the book's lattice construction at the smallest β (bisection in
    log β, :func:`~attnlab.lattice_lower_count`) with M ≥ the seed's 17,850,625 message states: its β, γ, ℓ and the
    base-10 log of its token count; for d = 2 (a radius near 2400, too large to count here) the volume estimate
    :math:`M\approx V_d(\gamma/\ell)^d`. Also M/(γ/ℓ)^d and M/γ^d at the grid's largest β: the two centre-count
    formulas (b√β/L)^d and (b√β)^d with γ ≍ √β."""
    out = []
    for e in p["eps"]:
        for d in p["count_d"]:
            h = cell_half_width(d, e)
            if h is None:
                continue
            ell = 2 * h + 1
            vol = math.pi ** (d / 2) / math.gamma(d / 2 + 1)
            if d <= 2:
                gamma = ell * (SEED_STATES / vol) ** (1 / d)
                R = math.ceil(gamma) + 8
                t = np.arange(-R, R + 1, dtype=float)
                row = dict(d=d, eps=e, ell=ell, gamma=gamma, beta=lattice_beta(d, gamma), M=SEED_STATES, exact=False,
                           log10_tokens=float(d * (R**2 / 2 + np.log(np.exp(-t**2 / 2).sum())) / math.log(10)))
            else:
                lo, hi = math.log(10.0), math.log(1e12)
                for _ in range(60):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if lattice_lower_count(d, math.exp(mid), e)["M"] < SEED_STATES else (lo, mid)
                x = lattice_lower_count(d, math.exp(hi), e)
                row = dict(d=d, eps=e, ell=ell, gamma=x["gamma"], beta=x["beta"], M=x["M"], exact=True,
                           log10_tokens=x["log10_tokens"])
            big = lattice_lower_count(d, max(p["lat_betas"]), e)
            row.update(per_message_volume=big["M"] / (big["gamma"] / ell) ** d, per_point=big["M"] / big["gamma"] ** d,
                       unit_ball=vol, ell_d=ell**d)
            out.append(row)
    return out


def count_cube(states: int = SEED_STATES, log10_tokens: float = SEED_LOG10_TOKENS, dims=(2, 3, 4, 6),
               eps=(0.25,)):
    r"""AR-count, the cube reading: per d, whether ``states`` is a cubic grid s^d of message centres with s = 2m + 1
    odd, and if so the spacing ℓ* at which that grid, with keys every integer of :math:`[-m\ell, m\ell]^d` and
    multiplicities :math:`e^{-\|u\|^2/2}` normalised to 1 at the corners, holds exactly 10^``log10_tokens``
    tokens: :math:`\log_{10}T = (dR^2/2 + d\log\sum_{|t|\le R}e^{-t^2/2})/\ln 10` with R = mℓ (log-sum-exp,
    SciPy; the Gaussian sum is √(2π) to 1e-8 for R ≥ 5, so ℓ* is solved with that constant). Also the nearest
    integer spacing ℓ (centres on Z^d), the exact token exponent there, and ℓ_min, the smallest spacing whose cells
    hold mass > (1 + ε)/2 (:func:`~attnlab.cell_half_width`) for the least demanding ε in ``eps``."""
    import sympy as sp  # noqa: PLC0415
    from scipy.special import logsumexp  # noqa: PLC0415

    def exponent(d, R):
        t = np.arange(-R, R + 1, dtype=float)
        return float((d * R * R / 2 + d * logsumexp(-t**2 / 2)) / math.log(10))

    c = math.log(math.sqrt(2 * math.pi))
    out = []
    for d in dims:
        side, exact = sp.integer_nthroot(states, d)
        hs = [cell_half_width(d, e) for e in eps]
        ell_min = min((2 * h + 1 for h in hs if h is not None), default=None)
        row = dict(d=int(d), side=int(side) if exact else None, m=None, R_star=None, ell_star=None, ell=None,
                   log10_tokens=None, ell_min=ell_min, off_integer=None)
        if exact and side % 2 == 1 and side > 1:
            m = (int(side) - 1) // 2
            R_star = math.sqrt(max(2 * (log10_tokens * math.log(10) - d * c) / d, 0.0))
            ell_star = R_star / m
            ell = round(ell_star)
            row.update(m=m, R_star=R_star, ell_star=ell_star, ell=ell, off_integer=abs(ell_star - ell),
                       log10_tokens=exponent(d, m * ell) if ell >= 1 else None)
        out.append(row)
    return out


#: AR-count: how close to an integer the spacing ℓ* must be (in lattice units) for a cube reading to fit.
COUNT_INTEGER_TOL = 0.01


def check_ar_count(scale=None, seed: int = 0, data=None) -> Verdict:
    r"""Verdict for AR-count: whether the seed's 17,850,625 states and 10^88,946 tokens describe one construction,
    in which d, and whether its two centre counts differ in more than the unspecified constant.

    Rule (fixed before the run). *Cube reading* (:func:`count_cube`): d fits if 17,850,625 = (2m + 1)^d for an
    integer m and the spacing ℓ* that gives exactly 10^88,946 tokens lies within ``COUNT_INTEGER_TOL`` of an integer
    ℓ ≥ ℓ_min (centres on Z^d whose cells are valid lower-certificate cells). The count's additive conventions
    (normalisation, the factor (Σ_t e^{−t²/2})^d worth d·log₁₀√(2π) ≈ 0.4d in the exponent) move ℓ* by about 10⁻⁵,
    and the neighbouring spacings ℓ ± 1 move the exponent by ≈ 2/ℓ, so a fit is neither an accident of the
    tolerance nor of a grid. *Loose reading*: the book's own construction (ball
    of centres, ℓ = ℓ_min, margin 8) with at least that many messages has a token exponent within a factor 2 of
    88,946. *Centre counts*: (b√β)^d and (b√β/L)^d have one exponent if M/(γ/ℓ)^d is within a factor 2 of V_d at
    the grid's largest β (ℓ does not grow with β), so they differ by the constant ℓ^d that b absorbs.
    ``verified`` if some d of the test (2, 3, 4, 6) fits the cube reading and the centre counts have one exponent;
    ``corrected`` if a d fits but the centre counts differ in exponent; ``unverifiable-here`` if no d fits the cube
    reading but one fits the loose one (plausible, but the seed's construction is not pinned down); ``refuted`` if
    no d fits either."""
    p = preset(PRESETS, scale)
    if data is None:
        data = dict(factor=count_factor(), rows=count_experiment(p, seed), cube=count_cube(eps=tuple(p["eps"])))
    fac, rows, cube = data["factor"], data["rows"], data["cube"]
    fit = sorted({r["d"] for r in rows if 0.5 <= r["log10_tokens"] / SEED_LOG10_TOKENS <= 2})
    ratio = {f"d={r['d']} ε={r['eps']}": r["log10_tokens"] / SEED_LOG10_TOKENS for r in rows}
    ell_d = min(r["ell_d"] for r in rows)
    cube_fit = [c for c in cube if c["ell_star"] is not None and c["off_integer"] <= COUNT_INTEGER_TOL
                and c["ell_min"] is not None and c["ell"] >= c["ell_min"]]
    vol = [r["per_message_volume"] / r["unit_ball"] for r in rows]
    one_exponent = bool(vol) and all(0.5 <= v <= 2 for v in vol)
    if cube_fit and one_exponent:
        verdict = "verified"
    elif cube_fit:
        verdict = "corrected"
    elif fit:
        verdict = "unverifiable-here"
    else:
        verdict = "refuted"
    grids = {d: g for d, g in fac["grid_side"].items() if g}

    def _ds(ds):
        return ", ".join(str(d) for d in ds) if ds else "none"

    fac_txt = " · ".join(f"{k}^{v}" for k, v in fac["factors"].items())
    cdesc = "; ".join(
        (f"d = {c['d']}: {c['side']:,} per side, ℓ* = {c['ell_star']:.5f}"
         + (f" (integer ℓ = {c['ell']}, 10^{c['log10_tokens']:,.1f} tokens, ℓ_min = {c['ell_min']})"
            if c["log10_tokens"] is not None else " (below one lattice unit)"))
        if c["ell_star"] is not None else f"d = {c['d']}: not a cubic grid with an odd side" for c in cube)
    if verdict in ("verified", "corrected"):
        c = cube_fit[0]
        head = (f"The seed's counts are one construction at d = {c['d']}: 17,850,625 = {c['side']}^{c['d']} centres "
                f"spaced ℓ = {c['ell']} apart give 10^{c['log10_tokens']:,.1f} tokens (exactly 10^88,946 at "
                f"ℓ* = {c['ell_star']:.5f}).")
    elif verdict == "unverifiable-here":
        head = (f"No cubic grid of the test's dimensions reproduces both counts with an integer spacing; the book's "
                f"construction matches the token exponent within a factor 2 only at d = {_ds(fit)}.")
    else:
        head = "No dimension of the test (2, 3, 4, 6) reproduces the seed's state and token counts together."
    if one_exponent:
        ctext = (f"The two centre counts have one exponent: M/(γ/ℓ)^d is {_span_text(vol)} times V_d at "
                 f"the grid's largest β, so (b√β)^d and (b√β/L)^d differ by the constant ℓ^d ≥ {ell_d}, which the "
                 "unspecified b absorbs: wording, not a correction.")
    else:
        ctext = (f"The two centre counts differ in exponent: M/(γ/ℓ)^d is {_span_text(vol) if vol else 'not measured'} times V_d, "
                 "so the spacing grows with β and only (b√β/L)^d counts the centres.")
    rd = "; ".join(f"d = {r['d']} (ε = {r['eps']:g}, ℓ = {r['ell']}): β ≈ {_sci(r['beta'])}, "
                   f"10^{r['log10_tokens']:,.0f} tokens" for r in rows)
    return Verdict("AR-count", verdict,
                   f"{head} {ctext} Cube reading (17,850,625 = {fac_txt}; keys every integer of [−mℓ, mℓ]^d with "
                   f"multiplicity e^(−‖u‖²/2) normalised to 1 at the corners): {cdesc}. The book's own construction "
                   f"(ball of centres, ℓ = ℓ_min, margin 8) with that many messages: {rd}; within a factor 2 of "
                   f"88,946 at d = {_ds(fit)}. The seed names no d for its largest test; its state count is a cubic "
                   f"grid only at d = {_ds(sorted(grids))}.",
                   headline=head,
                   numbers=dict(factor=fac, rows=rows, cube=cube, cube_fit=[c["d"] for c in cube_fit],
                                fitting_d=fit, grid_and_tokens_d=sorted(set(fit) & set(grids)), token_ratio=ratio,
                                min_ell_d=ell_d, volume_ratio=[min(vol, default=float("nan")),
                                                               max(vol, default=float("nan"))],
                                one_exponent=one_exponent),
                   thresholds=dict(cube=f"17,850,625 = (2m+1)^d and |ℓ* − ℓ| <= {COUNT_INTEGER_TOL} with integer "
                                        "ℓ >= ℓ_min", loose="0.5 <= log10 tokens / 88946 <= 2 (book's construction)",
                                   centres="0.5 <= M/(γ/ℓ)^d / V_d <= 2 at the grid's largest β"),
                   scale=p["scale"])
