r"""Chapter 05, section "The precision the oracle needs" (notebooks/05-gradient-precision.ipynb): the evidence for claim
AT-precision.

Bounded and extremal instances, the first-order amplification of an oracle error through the d + 2 attention calls
and its measured value under adversarial and random oracle errors, the sweeps over L, d and B; the ``check_*``
verdict and the figure. The presets are those of :mod:`attnlab.audit.gradient` (the chapter page).
"""
from __future__ import annotations


import numpy as np

from ..core._validate import positive_int
from ..core.exact import attention
from ..theory.gradient import attention_loss_grad_via_attention
from ..core.logits import softmax
from .stats import fit_slope
from .cache import memoize
from .scale import preset
from .present import fmt_number
from .verdict import Verdict, number_text
from .gradient import PRESETS, _no_minor_labels

__all__ = [
    "bounded_instance",
    "extremal_instance",
    "amplification_bound",
    "first_order_amplification",
    "measured_amplification",
    "precision_experiment",
    "check_at_precision",
    "plot_precision",
]


# --------------------------------------------------------------------------- AT-precision
def bounded_instance(n: int, d: int, B: float, rng, x_scale: float = 1.0):
    """A₁, A₂, A₃, E, Y with entries uniform in [−B, B] and X uniform in [−x_scale·B, x_scale·B] (X is not bounded
    by the theorem: ``x_scale`` > 1 shows what a large X does)."""
    n, d = positive_int(n, "n"), positive_int(d, "d")
    A1, A2, A3, E = (rng.uniform(-B, B, (n, d)) for _ in range(4))
    Y = rng.uniform(-B, B, (d, d))
    X = rng.uniform(-x_scale * B, x_scale * B, (d, d))
    return dict(A1=A1, A2=A2, A3=A3, X=X, Y=Y, E=E)


def extremal_instance(n: int, d: int, B: float):
    """Every entry of A₁, A₂, A₃, Y equal to B, E = −B, X = 0: H = dB² and diag(H_{:,p})A₂ = dB³ everywhere (the
    two norm bounds attained), and the amplification of the oracle's error is ≍ n d³ B⁵."""
    n, d = positive_int(n, "n"), positive_int(d, "d")
    full = np.full((n, d), float(B))
    return dict(A1=full.copy(), A2=full.copy(), A3=full.copy(), X=np.zeros((d, d)), Y=np.full((d, d), float(B)),
                E=-full)


def amplification_bound(n: int, d: int, B: float) -> float:
    """Upper bound on the first-order amplification κ = max_ab |δ∇_ab| / δ when every entry of A₁, A₂, A₃, Y, E is
    at most B and each of the d + 2 outputs has entrywise error δ (triangle inequality; X is free because F is
    row-stochastic): with h = dB², κ ≤ nB·[d(h + B) + d·h(h + B) + d(hB + (2h + B)B)] ≍ n d³ B⁵."""
    h = d * B * B
    return n * B * (d * (h + B) + d * h * (h + B) + d * (h * B + (2 * h + B) * B))


def _pieces(inst):
    Q = inst["A1"] @ inst["X"]
    F = softmax(Q @ inst["A2"].T, axis=-1)
    H = inst["A3"] @ inst["Y"]
    Z, U = F @ H, F @ inst["A2"]
    T = np.stack([F @ (H[:, p:p + 1] * inst["A2"]) for p in range(H.shape[1])])     # (d, n, d)
    C = Z - inst["E"]
    r = (C * Z).sum(1)
    return Q, H, Z, U, T, C, r


def first_order_amplification(inst):
    """The first-order amplification κ_ab of an entrywise oracle error in gradient entry (a, b), its maximum and
    where it is attained: δ∇_ab = Σ_i A₁[i,a](Σ_p C_ip δT_p[i,b] − r_i δU[i,b] + Σ_p δZ_ip(T_p[i,b] − (Z+C)_ip U[i,b]))."""
    _, H, Z, U, T, C, r = _pieces(inst)
    s = np.abs(C).sum(1)[:, None] + np.abs(r)[:, None] \
        + np.abs(T - (Z + C).T[:, :, None] * U[None]).sum(0)            # (n, d): per row i and column b
    kappa = np.abs(inst["A1"]).T @ s                                       # (d, d)
    a, b = np.unravel_index(int(np.argmax(kappa)), kappa.shape)
    return float(kappa[a, b]), (int(a), int(b))


def _adversarial_oracle(inst, delta: float):
    """An oracle whose every output entry is off by ±δ, signs chosen (in the order of the d + 2 calls) to push the
    gradient entry of largest first-order amplification up."""
    _, H, Z, U, T, C, r = _pieces(inst)
    _, (a, b) = first_order_amplification(inst)
    w = inst["A1"][:, a]
    n, d = H.shape
    signs = [np.sign(w[:, None] * (T[:, :, b].T - (Z + C) * U[:, b:b + 1]))]          # call 1: V = H
    sU = np.zeros((n, d)); sU[:, b] = np.sign(-w * r)
    signs.append(sU)                                                                  # call 2: V = A2
    for p in range(d):                                                                # calls 3..d+2: T_p
        sT = np.zeros((n, d)); sT[:, b] = np.sign(w * C[:, p])
        signs.append(sT)
    calls = iter(signs)

    def oracle(Q, K, V):
        return attention(Q, K, V, beta=1.0) + delta * next(calls)

    return oracle, (a, b)


def measured_amplification(inst, delta: float, mode: str, rng=None) -> float:
    """max |∇_δ − ∇| / δ for the gradient from the d + 2 calls made by an oracle with entrywise error δ:
    ``mode="adversarial"`` (signs against the worst entry) or ``"random"`` (uniform in [−δ, δ])."""
    g = attention_loss_grad_via_attention(**inst)
    if mode == "adversarial":
        oracle, _ = _adversarial_oracle(inst, delta)
    else:
        oracle = lambda Q, K, V: attention(Q, K, V, beta=1.0) + delta * rng.uniform(-1, 1, (Q.shape[0], V.shape[1]))  # noqa: E731
    return float(np.abs(attention_loss_grad_via_attention(**inst, oracle=oracle) - g).max() / delta)


@memoize
def precision_experiment(p, seed: int = 0):
    """The d + 2 calls fed an oracle with entrywise error δ: measured amplification on the extremal instance and
    on random bounded ones, one variable (n, d, B) at a time around ``prec_base``; the norms of H and
    diag(H_{:,p})A₂ against dB² and dB³; and a growing X (``prec_X``)."""
    rng = np.random.default_rng(seed)
    n0, d0, B0 = p["prec_base"]
    delta = p["prec_delta"]
    rows = []
    for var, values in (("n", p["prec_n"]), ("d", p["prec_d"]), ("B", p["prec_B"])):
        for v in values:
            n, d, B = (int(v) if var == "n" else n0), (int(v) if var == "d" else d0), (float(v) if var == "B" else B0)
            ext = extremal_instance(n, d, B)
            k_ext = measured_amplification(ext, delta, "adversarial")
            rnd_adv, rnd_rand, h_ratio, t_ratio = [], [], [], []
            for _ in range(p["prec_reps"]):
                inst = bounded_instance(n, d, B, rng)
                rnd_adv.append(measured_amplification(inst, delta, "adversarial"))
                rnd_rand.append(measured_amplification(inst, delta, "random", rng))
                H = inst["A3"] @ inst["Y"]
                h_ratio.append(float(np.abs(H).max() / (d * B * B)))
                t_ratio.append(float(max(np.abs(H[:, q:q + 1] * inst["A2"]).max() for q in range(d)) / (d * B ** 3)))
            H = ext["A3"] @ ext["Y"]
            rows.append(dict(sweep=var, n=n, d=d, B=B, delta=delta, kappa_extremal=k_ext,
                             kappa_extremal_first_order=first_order_amplification(ext)[0],
                             kappa_random_adv=float(np.max(rnd_adv)), kappa_random_rand=float(np.max(rnd_rand)),
                             bound=amplification_bound(n, d, B), claimed_ndB3=n * d * B ** 3,
                             H_over_dB2_random=float(np.max(h_ratio)), T_over_dB3_random=float(np.max(t_ratio)),
                             H_over_dB2_extremal=float(np.abs(H).max() / (d * B * B)),
                             T_over_dB3_extremal=float(np.abs(H[:, :1] * ext["A2"]).max() / (d * B ** 3))))
    xrows = []
    for xs in p["prec_X"]:
        inst = bounded_instance(n0, d0, B0, rng, x_scale=float(xs))
        xrows.append(dict(x_scale=float(xs), max_abs_Q=float(np.abs(inst["A1"] @ inst["X"]).max()),
                          kappa_adv=measured_amplification(inst, delta, "adversarial"),
                          bound=amplification_bound(n0, d0, B0)))
    # linearity in δ on the base extremal instance
    ext = extremal_instance(n0, d0, B0)
    deltas = [10.0 ** -k for k in range(10, 2, -1)]
    lin = [measured_amplification(ext, dl, "adversarial") * dl for dl in deltas]
    return dict(rows=rows, x=xrows, deltas=deltas, errors=lin, base=[n0, d0, B0])


def _window_slope(rows, var, key):
    rs = sorted((r for r in rows if r["sweep"] == var), key=lambda r: r[var])
    xs = np.log2([r[var] for r in rs])
    keep = xs >= np.median(xs)                      # the upper half of the sweep, fixed before the run
    if keep.sum() < 3:
        keep = np.ones_like(xs, bool)
    return fit_slope(xs[keep], np.log2([r[key] for r in rs])[keep])


#: AT-precision: the exponents (n, d, B) of the claim's ε/Θ(ndB³) and of the derived bound, the relative tolerance
#: of the bracket around them, the rounding allowed over the derived bound and over the norm bounds.
CLAIMED_EXPONENTS = dict(n=1.0, d=1.0, B=3.0)
DERIVED_EXPONENTS = dict(n=1.0, d=3.0, B=5.0)
PRECISION_TOL = 0.2
PRECISION_BOUND_TOL = 1e-9
PRECISION_NORM_TOL = 1e-12


def _exponents(theta: dict) -> str:
    return "(" + ", ".join(number_text(v) for v in theta.values()) + ")"


def check_at_precision(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-precision: does an oracle error ε/Θ(ndB³) suffice, and do ‖H‖ ≤ dB², ‖diag(H_p)A₂‖ ≤ dB³ hold?

    Rule (stated before the run): the exponents of the measured worst-case amplification κ (extremal instance,
    adversarial oracle) in n, d and B, fitted on the upper half of each one-variable sweep, are bracketed against
    the claim's :data:`CLAIMED_EXPONENTS` with tol = :data:`PRECISION_TOL`: all inside → verified; some above (1 +
    tol)·θ → the printed precision is too coarse: corrected when every measured κ (random, extremal, any X) stays
    within the derived bound κ ≤ nB·[d(h+B) + dh(h+B) + d(hB + (2h+B)B)], h = dB², and the extremal exponents lie
    within tol of that bound's (:data:`DERIVED_EXPONENTS`); refuted otherwise; all at or below, some below (1 −
    tol)·θ → loose. A norm bound exceeded on any instance (ratio > 1 + :data:`PRECISION_NORM_TOL`) → refuted.
    """
    p = preset(PRESETS, scale)
    out = precision_experiment(p, seed) if data is None else data
    rows, xrows = out["rows"], out["x"]
    tol, claimed, derived = PRECISION_TOL, CLAIMED_EXPONENTS, DERIVED_EXPONENTS
    fits = {v: _window_slope(rows, v, "kappa_extremal") for v in claimed}
    slopes = {v: f.slope for v, f in fits.items()}
    rnd = {v: _window_slope(rows, v, "kappa_random_adv").slope for v in claimed}
    norm_max = max(max(r["H_over_dB2_random"], r["H_over_dB2_extremal"]) for r in rows)
    tnorm_max = max(max(r["T_over_dB3_random"], r["T_over_dB3_extremal"]) for r in rows)
    attained = min(min(r["H_over_dB2_extremal"], r["T_over_dB3_extremal"]) for r in rows)
    within = max(max(r["kappa_extremal"], r["kappa_random_adv"], r["kappa_random_rand"]) / r["bound"] for r in rows)
    within_x = max(r["kappa_adv"] / r["bound"] for r in xrows)
    above = [v for v in claimed if slopes[v] > (1 + tol) * claimed[v]]
    below = [v for v in claimed if slopes[v] < (1 - tol) * claimed[v]]
    bound_ok = within <= 1 + PRECISION_BOUND_TOL and within_x <= 1 + PRECISION_BOUND_TOL
    derived_ok = all((1 - tol) * derived[v] <= slopes[v] <= (1 + tol) * derived[v] for v in derived)
    if norm_max > 1 + PRECISION_NORM_TOL or tnorm_max > 1 + PRECISION_NORM_TOL:
        verdict = "refuted"
    elif above:
        verdict = "corrected" if (bound_ok and derived_ok) else "refuted"
    elif below:
        verdict = "loose"
    else:
        verdict = "verified"
    base = next(r for r in rows if r["sweep"] == "B" and r["B"] == max(rr["B"] for rr in rows if rr["sweep"] == "B"))
    x_first, x_last = xrows[0], xrows[-1]
    growth = f"L to the power {slopes['n']:.2f}, d to {slopes['d']:.2f} and B to {slopes['B']:.2f}"
    if verdict == "corrected":
        head = (f"The printed oracle precision ε/Θ(LdB³) is too coarse: the error amplification grows like {growth}, "
                f"within the derived Ld³B⁵.")
    elif verdict == "verified":
        head = f"The printed oracle precision ε/Θ(LdB³) suffices: the error amplification grows like {growth}."
    elif verdict == "loose":
        head = (f"The printed oracle precision ε/Θ(LdB³) is more than enough: the error amplification grows like "
                f"{growth}, below LdB³.")
    else:
        head = (f"Neither the printed precision nor the derived bound accounts for the error: the amplification grows "
                f"like {growth} (largest ratio to the bound {within:.3g}).")
    summary = (
        f"{head} At L = {base['n']}, d = {base['d']}, B = {base['B']:g} it reaches "
        f"{fmt_number(base['kappa_extremal'] / base['claimed_ndB3'])}× LdB³; every measured amplification is within "
        f"{within:.3f}× the derived bound. ‖H‖ ≤ dB² and ‖diag(H_p)A₂‖ ≤ dB³ hold and are attained (largest ratios "
        f"{norm_max:.3f} and {tnorm_max:.3f}); scaling X {x_last['x_scale'] / x_first['x_scale']:,.0f}-fold moves "
        f"max|A₁X| from {fmt_number(x_first['max_abs_Q'])} to {fmt_number(x_last['max_abs_Q'])} while the amplification stays within "
        f"{within_x:.3f}× the same bound.")
    return Verdict(
        "AT-precision", verdict, summary,
        numbers=dict(slopes_extremal=slopes, slope_ci={v: [fits[v].slope_lo, fits[v].slope_hi] for v in fits},
                     slopes_random_adversarial=rnd, max_over_bound=within, max_over_bound_large_X=within_x,
                     max_H_over_dB2=norm_max, max_T_over_dB3=tnorm_max, min_attained_ratio=attained,
                     worst_over_ndB3=base["kappa_extremal"] / base["claimed_ndB3"],
                     x_scales=[r["x_scale"] for r in xrows], max_abs_Q=[r["max_abs_Q"] for r in xrows],
                     kappa_large_X=[r["kappa_adv"] for r in xrows]),
        thresholds=dict(bracket=f"exponent in [(1 − {tol})θ, (1 + {tol})θ], θ = {_exponents(claimed)} for (n, d, B), "
                                "upper half of each sweep, extremal instance, adversarial oracle",
                        corrected="some exponent above (1 + tol)θ, every κ ≤ derived bound "
                                  f"(1 + {number_text(PRECISION_BOUND_TOL)}), extremal exponents within tol of "
                                  f"{_exponents(derived)}",
                        loose="none above, some below (1 − tol)θ",
                        norms=f"max|H|/dB² and max|diag(H_p)A₂|/dB³ <= 1 + {number_text(PRECISION_NORM_TOL)}"),
        scale=p["scale"])


def plot_precision(out):
    """Measured amplification of the oracle's error against d and against B (extremal and random instances), with
    the claimed LdB³ and the derived bound."""
    from ..plotting import figure  # noqa: PLC0415

    fig, axes = figure(ncols=2, width=3.2, height=2.5)
    data = {}
    for ax, var in zip(axes, ("d", "B")):
        rs = sorted((r for r in out["rows"] if r["sweep"] == var), key=lambda r: r[var])
        x = [r[var] for r in rs]
        ax.loglog(x, [r["kappa_extremal"] for r in rs], "o-", ms=3, label="extremal, adversarial")
        ax.loglog(x, [r["kappa_random_adv"] for r in rs], "s-", ms=3, label="random, adversarial")
        ax.loglog(x, [r["kappa_random_rand"] for r in rs], "^-", ms=3, label="random, random error")
        ax.loglog(x, [r["bound"] for r in rs], "k--", lw=1, label="derived bound $\\asymp Ld^3B^5$")
        ax.loglog(x, [r["claimed_ndB3"] for r in rs], "k:", lw=1, label="claimed $LdB^3$")
        ax.set_xlabel(f"${var}$")
        ax.set_xticks(x, [f"{v:g}" for v in x])
        _no_minor_labels(ax)
        data[var] = {k: [r[k] for r in rs] for k in rs[0]}
    axes[0].set_ylabel("gradient error / oracle error")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    return fig, data
