"""Chapter 07, its section on the upper law (``notebooks/07-rank-upper-law.ipynb``): the statement of AR-upper and
AR-sphere-ball, the rules that decide them (:data:`RULES`, stated before the run), the proof step's arithmetic
(:func:`pinsker_step`) and the laws on materialised matrices (planted heads, the ball lattice, the spheres S^1 and
S^2), with the chapter's presets (:data:`attnlab.audit.rank_upper.PRESETS`): experiments (memoized), fits and figures.
The exact worst-case instances and the two checks are the next section's, :mod:`attnlab.audit.rank_upper_worst`.

The certificates and instances are the library's (:mod:`attnlab.rank.certificates`, :mod:`attnlab.rank.instances`);
the sphere-2 gap experiment is shared with chapter 08.
"""
from __future__ import annotations


import numpy as np

from .. import (chebyshev_radius, family_attention, lattice_instance, lower_certificate_margin, planted_head,
                rank_lower_certificate, rank_upper_certificate, visible_interaction_dim)
from ..core.logits import softmax
from ._rank_common import gap_experiment, svd_certificates
from .cache import memoize
from .rank_upper import PRESETS, _fit, _log_ticks, reader_number

__all__ = ["PRESETS", "RULES", "MIN_DECADES", "SLACK", "gap_experiment", "sphere_ball_experiment", "upper_law_experiment", "upper_law_fits",
           "sphere_ball_fits", "pinsker_step", "plot_upper_law", "plot_sphere_ball", "reader_number"]

#: Thresholds of AR-upper's and AR-sphere-ball's rules besides the preset's tol and window (stated before the run, used
#: by the checks and written into :data:`RULES`): the fewest decades of β a fit must span, and the slack for rounding
#: in a certificate's error ≤ ε.
MIN_DECADES, SLACK = 2, 1e-12

#: The decision rules of AR-upper and AR-sphere-ball (two-sided, stated before the run). tol = ``up_tol``.
RULES = {
    "AR-upper": (
        "Slopes against log(1 + Γ/ε²) (r/2 = the bound's exponent), implicit families on the top asym_decades "
        "decades of β. refuted if a lower certificate's 95% CI lies entirely above (1 + tol)·r/2; verified if the "
        "bound holds (every upper slope <= (1 + tol)·r/2: planted heads, spheres, balls whose upper certificate is "
        "not the row count) and is attained on a ball family (lower slope >= (1 − tol)·r/2 with a non-circular "
        f"upper certificate), over >= {MIN_DECADES} decades; loose if it holds but every such ball's upper CI lies below "
        "(1 − tol)·r/2; otherwise unverifiable-here. Upper certificates equal to the row count of an instance built "
        "with n ≍ Γ^(d/2) are circular and not counted for the upper side (the same rule as AR-sphere-ball); the "
        "materialised ball lattice is reported with its slopes against log γ. The verdict judges the statement; the "
        "proof step's Pinsker constant is reported with its own verdict (an arithmetic fact)."),
    "AR-sphere-ball": (
        "Slopes against log β on the same implicit instances, θ = (d−1)/2 on the sphere, d/2 on the ball, top "
        "asym_decades decades of β. Upper certificates equal to the row count throughout the window are circular "
        "(the same rule as AR-upper) and count for the lower side only. refuted if a lower certificate's 95% CI lies "
        "entirely above (1 + tol)θ or a non-circular upper certificate's entirely below (1 − tol)θ; verified if "
        "every family's lower slope is >= (1 − tol)θ, every non-circular upper slope <= (1 + tol)θ, and each "
        f"geometry (sphere, ball) has a family bracketed by a non-circular upper certificate, over >= {MIN_DECADES} "
        "decades; "
        "otherwise unverifiable-here."),
}


# --------------------------------------------------------------------------- experiments and fits
@memoize
def sphere_ball_experiment(p: dict, seed: int):
    """AR-sphere-ball: truncated-SVD upper and lower certificates on the same materialised sphere S^2 matrices.

    Queries and keys uniform on :math:`S^2` (``family_attention("sphere-3", ...)``), ``sb_n`` × ``sb_keys``,
    a fresh draw per β in ``sb_betas``, both certificates per ε in ``eps``. The ball :math:`B^3` is not
    materialised here: its lattice instance needs an SVD of a (2R+1)^3-column matrix (about a minute at γ = 6).
    """
    rng = np.random.default_rng(seed)
    out = []
    for beta in p["sb_betas"]:
        A = family_attention("sphere-3", p["sb_n"], p["sb_keys"], beta, rng=rng)
        for e, (rank, error) in zip(p["eps"], svd_certificates(A, p["eps"])):
            lc = rank_lower_certificate(A, e)
            out.append(dict(family="sphere d=3", d=3, beta=float(beta), eps=e, n=A.shape[0], L=A.shape[1],
                            upper=rank, lower=lc.bound, upper_error=error,
                            lower_margin=lower_certificate_margin(A, lc)))
    return out


@memoize
def upper_law_experiment(p: dict, seed: int):
    """AR-upper/AR-sphere-ball: upper certificates against β at fixed ε.

    ``planted``: heads in d = ``planted_d`` with visible dimension r (no key-only offset), n × L, one
    head per r (queries and keys fixed, β varied), Γ = β·ρ_Q·ρ_K from the
    visible coordinates. Truncated-SVD certificates (the greedy cover is far weaker on these smooth families). ``lattice``: the lattice instance (ball, d = 2) with every integer query, the
    upper certificates and the lattice lower certificate on the same matrix, at the same ε.
    """
    rng = np.random.default_rng(seed)
    eps = p["up_eps"]
    planted = []
    for r in p["up_r"]:
        Q, K = planted_head(p["up_n"], p["up_keys"], p["planted_d"], r, rng=rng, offset=0.0)
        vi = visible_interaction_dim(Q, K)
        rho_q, rho_k = chebyshev_radius(vi.a), chebyshev_radius(vi.b)
        logits = Q @ K.T
        for beta in p["up_betas"]:
            A = softmax(beta * logits)
            c = rank_upper_certificate(A, eps, "svd")
            planted.append(dict(family=f"planted r={r}", r=r, r_visible=vi.r, d=Q.shape[1], n=A.shape[0], L=A.shape[1],
                                beta=float(beta), eps=eps, rho_Q=rho_q, rho_K=rho_k, Gamma=float(beta * rho_q * rho_k),
                                upper=c.bound, method=c.method, error=c.error))
    lattice = []
    for e in [eps]:
        for gamma in p["up_gammas"]:
            A, msg, _, info = lattice_instance(2, gamma, e)
            c = rank_upper_certificate(A, e, "svd")
            lattice.append(dict(info._asdict(), family="ball d=2 (lattice)", r=2, eps=e, n=A.shape[0], L=A.shape[1],
                                Gamma=float(info.beta * info.rho_Q * info.rho_K), upper=c.bound,
                                method=c.method, error=c.error, lower=int(msg.size),
                                lower_valid=bool(info.min_own_mass > (1 + e) / 2)))
    return dict(planted=planted, lattice=lattice)


def upper_law_fits(res, tol: float = 0.10):
    """Per family (and ε): slope of log(upper certificate) against log(1 + Γ/ε²), 95% interval, theory r/2.

    Points whose certificate reaches half of min(n, L) are dropped (saturation by the finite matrix).
    ``consistent``: the interval's lower end is ≤ (1 + tol)·r/2, i.e. the data do not show growth faster than
    the bound allows. ``faster_lower``: for the lattice instance, the lower certificate's interval lies above it.
    """
    out = []
    rows = res["planted"] + res["lattice"]
    keys = sorted({(r["family"], r["eps"]) for r in rows})
    for fam, e in keys:
        rs = [r for r in rows if r["family"] == fam and r["eps"] == e and r["upper"] < min(r["n"], r["L"]) / 2]
        if len(rs) < 3:
            continue
        x = np.array([1 + r["Gamma"] / e**2 for r in rs])
        up = _fit(x, [r["upper"] for r in rs])
        th = rs[0]["r"] / 2
        row = dict(family=fam, eps=e, r=rs[0]["r"], theory=th, **up, beta_min=min(r["beta"] for r in rs),
                   beta_max=max(r["beta"] for r in rs), upper_max=max(r["upper"] for r in rs),
                   consistent=bool(up["lo"] <= (1 + tol) * th), margin=th - up["slope"])
        if "lower" in rs[0]:
            lw = [r for r in rs if r["lower"] > 0]
            lo = _fit([1 + r["Gamma"] / e**2 for r in lw], [r["lower"] for r in lw]) if len(lw) >= 3 else None
            row["lower_slope"] = None if lo is None else lo["slope"]
            row["faster_lower"] = bool(lo is not None and lo["lo"] > (1 + tol) * th)
        else:
            row["lower_slope"], row["faster_lower"] = None, False
        out.append(row)
    return out


def sphere_ball_fits(gap, up, tol: float = 0.10, sphere3=None):
    """Upper and lower certificate slopes against log β on the same matrices: sphere S^1 (``gap_experiment``),
    the ball B^2 lattice instance (``upper_law_experiment``) and, if given, sphere S^2
    (``sphere_ball_experiment``), per ε, with theory (d−1)/2 = 1/2, d/2 = 1 and (d−1)/2 = 1. ``bracket``: the
    two-sided rule of :func:`implicit_fits` (lower slope ≥ (1 − tol)θ and upper slope ≤ (1 + tol)θ)."""
    out = []
    fams = [("sphere d=2", 0.5, gap, "upper", "lower"), ("ball d=2", 1.0, up["lattice"], "upper", "lower")]
    if sphere3:
        fams.append(("sphere d=3", 1.0, sphere3, "upper", "lower"))
    for fam, th, rows, ku, kl in fams:
        for e in sorted({r["eps"] for r in rows}):
            rs = [r for r in rows if r["eps"] == e]
            ru = [r for r in rs if r[ku] < min(r.get("n", np.inf), r.get("L", np.inf)) / 2]
            rl = [r for r in rs if r[kl] > 0]
            if len(ru) < 3 or len(rl) < 3:
                continue
            u = _fit([r["beta"] for r in ru], [r[ku] for r in ru])
            lo = _fit([r["beta"] for r in rl], [r[kl] for r in rl])
            out.append(dict(family=fam, eps=e, theory=th, upper_slope=u["slope"], upper_lo=u["lo"], upper_hi=u["hi"],
                            lower_slope=lo["slope"], lower_lo=lo["lo"], lower_hi=lo["hi"],
                            beta_min=min(r["beta"] for r in rs), beta_max=max(r["beta"] for r in rs),
                            gap=u["slope"] - lo["slope"], ratio_at_max=rs[-1][ku] / max(rs[-1][kl], 1),
                            bracket=bool(lo["slope"] >= (1 - tol) * th and u["slope"] <= (1 + tol) * th),
                            lower_too_fast=bool(lo["lo"] > (1 + tol) * th),
                            upper_too_slow=bool(u["hi"] < (1 - tol) * th)))
    return out


def _materialised_lattice_reason(res, e):
    """Why the materialised ball lattice's slope against log(1 + Γ/ε²) exceeds r/2: slopes of both certificates and
    of Γ against log γ on its rows (Γ grows like γ(⌈γ⌉ + margin), i.e. slower than γ² at small γ)."""
    rs = [r for r in res["lattice"] if r["eps"] == e and r["upper"] < min(r["n"], r["L"]) / 2 and r["lower"] > 0]
    if len(rs) < 3:
        return None
    g = [r["gamma"] for r in rs]
    return dict(eps=e, gamma_max=max(g), upper_vs_gamma=_fit(g, [r["upper"] for r in rs])["slope"],
                lower_vs_gamma=_fit(g, [r["lower"] for r in rs])["slope"], Gamma_vs_gamma=_fit(g, [r["Gamma"] for r in rs])["slope"])


def pinsker_step():
    r"""AR-upper's proof step (SymPy): Pinsker :math:`\|p-q\|_1\le\sqrt{2\,\mathrm{KL}}` with the support-gap
    bound KL ≤ γt, at the printed t = ε²/γ and at t = ε²/(2γ); the factor the correction puts on the covering
    number :math:`C_m t^{-(m-1)/2}` with m = r + 1; and the step's verdict (an arithmetic fact: ``corrected`` if the
    printed t gives more than ε and the corrected one ε, ``verified`` if the printed one already gives ε)."""
    import sympy as sp  # noqa: PLC0415

    e, g, r = sp.symbols("epsilon gamma r", positive=True)
    l1 = lambda t: sp.sqrt(2 * g * t)  # noqa: E731
    printed, fixed = sp.simplify(l1(e**2 / g)), sp.simplify(l1(e**2 / (2 * g)))
    factor = sp.simplify(printed / e)
    cover = lambda t: t ** (-r / 2)  # noqa: E731
    c_factor = sp.simplify(cover(e**2 / (2 * g)) / cover(e**2 / g))
    ok_fixed = sp.simplify(fixed - e) == 0
    step = "verified" if factor == 1 else "corrected" if ok_fixed else "refuted"
    return dict(printed_l1=str(printed), printed_factor=float(factor), corrected_l1=str(fixed),
                C_r_factor=str(c_factor), step_verdict=step)


def plot_upper_law(up):
    """Upper certificates (circles) against 1 + Γ/ε² on log–log axes for the planted heads and the materialised
    ball lattice, the slope r/2 through each family's first point (dotted), and the lattice's lower certificate on
    the same matrices (squares)."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=2.6)
    rows = up["planted"] + up["lattice"]
    handles = []
    for i, fam in enumerate(sorted({r["family"] for r in rows})):
        rs = [r for r in rows if r["family"] == fam]
        x = np.array([1 + r["Gamma"] / r["eps"] ** 2 for r in rs])
        y = np.array([r["upper"] for r in rs], float)
        ax.loglog(x, y, "o-", color=f"C{i}", ms=3)
        ax.loglog(x, y[0] * (x / x[0]) ** (rs[0]["r"] / 2), ":", color=f"C{i}", lw=1)
        if "lower" in rs[0]:
            lo = np.array([r["lower"] for r in rs], float)
            ax.loglog(x, np.where(lo > 0, lo, np.nan), "s--", color=f"C{i}", ms=3)
        name = fam.replace("planted r=", "planted head, r = ").replace("ball d=2 (lattice)", "ball lattice, d = 2")
        handles.append(Line2D([], [], color=f"C{i}", marker="o", ms=3, label=name))
    handles += [Line2D([], [], color="k", ls="--", marker="s", ms=3, label="lower certificate"),
                Line2D([], [], color="k", ls=":", lw=1, label="slope r/2")]
    ax.set_xlabel(r"$1 + \Gamma/\varepsilon^2$")
    ax.set_ylabel(r"rank certificate")
    _log_ticks(ax)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=6.5, frameon=False)
    return fig, {k: [r[k] for r in rows] for k in ("family", "beta", "Gamma", "upper")}


def plot_sphere_ball(gap, up, sphere3, eps):
    """Upper (circles) and lower (squares) certificates against β for S^1, B^2 (lattice) and S^2 at ``eps`` (a
    family measured without it: at its largest ε), with the theory slope through the last lower point (dotted)."""
    from matplotlib.lines import Line2D  # noqa: PLC0415

    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure(width=3.4, height=2.6)
    fams = (("sphere d=2", "circle $S^1$", 0.5, gap), ("ball d=2", "ball lattice $B^2$", 1.0, up["lattice"]),
            ("sphere d=3", "sphere $S^2$", 1.0, sphere3))
    data, handles = {}, []
    for i, (fam, name, th, rows) in enumerate(fams):
        if not rows:
            continue
        e = eps if any(r["eps"] == eps for r in rows) else max(r["eps"] for r in rows)
        rs = [r for r in rows if r["eps"] == e]
        b = np.array([r["beta"] for r in rs], float)
        lo = np.array([r["lower"] for r in rs], float)
        ax.loglog(b, [r["upper"] for r in rs], "o-", color=f"C{i}", ms=3)
        ax.loglog(b, np.where(lo > 0, lo, np.nan), "s--", color=f"C{i}", ms=3)
        ax.loglog(b, lo[-1] * (b / b[-1]) ** th, ":", color=f"C{i}", lw=1)
        handles.append(Line2D([], [], color=f"C{i}", lw=2, label=f"{name}, ε = {e:g}"))
        data.update({f"{fam}_beta": b.tolist(), f"{fam}_upper": [r["upper"] for r in rs], f"{fam}_lower": lo.tolist()})
    handles += [Line2D([], [], color="k", marker="o", ms=3, label="upper certificate"),
                Line2D([], [], color="k", ls="--", marker="s", ms=3, label="lower certificate"),
                Line2D([], [], color="k", ls=":", lw=1, label="theory slope")]
    ax.set_xlabel(r"inverse temperature $\beta$")
    ax.set_ylabel("rank certificate")
    _log_ticks(ax)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=6.5, frameon=False)
    return fig, data


#: What moved to :mod:`attnlab.audit.rank_upper_worst` (the section on the worst-case instances): still reachable
#: from here (with a DeprecationWarning).
_MOVED_TO = dict.fromkeys(("implicit_law_experiment", "implicit_checks", "implicit_fits", "upper_side",
                           "check_ar_upper", "check_ar_sphere_ball", "plot_implicit"), "rank_upper_worst")


def __getattr__(name):
    if name in _MOVED_TO:
        import importlib  # noqa: PLC0415
        import warnings  # noqa: PLC0415

        warnings.warn(f"attnlab.audit.rank_upper_law.{name} is attnlab.audit.{_MOVED_TO[name]}.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(f"{__package__}.{_MOVED_TO[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
