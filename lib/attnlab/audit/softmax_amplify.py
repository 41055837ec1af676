r"""Chapter 02, section "Does the exponential amplify the error?" (notebooks/02-softmax-amplify.ipynb): the evidence for
claim PDA-amplify.

The exact worst case of a bounded logit error over subsets of keys, at every logit scale, beside Gaussian rows and the
projection's own error (memoized); the ``check_*`` verdict and the figure. The presets are those of
:mod:`attnlab.audit.softmax_stability` (the chapter page).
"""
from __future__ import annotations

import math

import numpy as np

from ..approx.projection import gaussian_projection, projected_logits
from ..core.logits import softmax
from ..theory.perturbation import l1_change
from .cache import memoize
from .verdict import Verdict
from .softmax_stability import PRESETS  # noqa: F401 (the page reads them from this module)
from .softmax_stability import _log_axis, _positive, _scale_p

__all__ = [
    "subset_gain",
    "worst_l1_over_h",
    "worst_l1_over_osc",
    "worst_instance",
    "worst_relative_change",
    "amplify_experiment",
    "AMPLIFY_RULE",
    "check_pda_amplify",
    "plot_amplify",
]


# --------------------------------------------------------------------------- PDA-amplify
def _subsets(L, dtype):
    """The 2^L − 2 proper non-empty subsets of range(L) as rows of a 0/1 matrix."""
    idx = np.arange(1, 2**L - 1)
    return ((idx[:, None] >> np.arange(L)) & 1).astype(dtype)


def subset_gain(a, c, eps):
    r"""The largest gain :math:`p'(A) - p(A)` of a set of mass :math:`a = p(A)`, :math:`c = 1 - a`, under :math:`\|h\|_\infty\le\epsilon`.

    With :math:`h = \epsilon` on :math:`A` and :math:`-\epsilon` off it (the worst :math:`h` for that set),
    :math:`p'(A) = ae^{2\epsilon}/(ae^{2\epsilon}+c)`, and the gain is :math:`ac\,(e^{2\epsilon}-1)/(ae^{2\epsilon}+c)`
    (``c`` passed separately so that :math:`1 - a` is never formed by cancellation).

    Examples
    --------
    >>> eps = 0.3; a = 1 / (1 + math.exp(eps))          # the best mass: the gain is tanh(eps/2)
    >>> bool(np.isclose(subset_gain(a, 1 - a, eps), math.tanh(eps / 2)))
    True
    """
    e = math.expm1(2 * eps)
    return a * c * e / (a * e + a + c)


def worst_l1_over_h(x, eps):
    r"""Exact :math:`\max_{\|h\|_\infty\le\epsilon}\|\mathrm{softmax}(x+h)-\mathrm{softmax}(x)\|_1` per row of ``x``.

    :math:`\tfrac12\|p'-p\|_1 = \max_A (p'(A)-p(A))`, and for each set :math:`A` the worst :math:`h` is
    :math:`\pm\epsilon` (:func:`subset_gain`); so the maximum over all :math:`2^L-2` proper subsets (brute force,
    vectorised; ``x`` of shape (n, L) with :math:`2\le L\le 16`) is exact. Computed in the dtype of ``x``
    (float32 or float64). Returns ``(worst, best_sets)``: the (n,) values and the (n, L) 0/1 indicator of a
    maximising set.

    Examples
    --------
    >>> w, A = worst_l1_over_h(np.array([[0.0, 0.0]]), 0.5)    # two equal logits: tanh(eps)
    >>> bool(np.isclose(w[0], math.tanh(0.5))), int(A[0].sum())
    (True, 1)
    """
    x = np.asarray(x)
    L = x.shape[1]
    if not 2 <= L <= 16:
        raise ValueError(f"x must have 2 to 16 columns, got {L}")
    p = softmax(x, axis=-1)
    B = _subsets(L, p.dtype)
    a, c = p @ B.T, p @ (1 - B).T                       # (n, 2^L - 2): p(A) and p(A^c)
    g = subset_gain(a, c, eps).astype(p.dtype, copy=False)
    j = g.argmax(axis=1)
    return 2 * g[np.arange(len(g)), j], B[j]


def worst_l1_over_osc(s, L, eps):
    r"""Exact :math:`\sup\{\|\mathrm{softmax}(x+h)-\mathrm{softmax}(x)\|_1 : \mathrm{osc}(x) = s,\ \|h\|_\infty\le\epsilon\}`.

    For a set :math:`A` of :math:`k` keys the masses :math:`p(A)` reachable with :math:`\mathrm{osc}(x) = s` form the
    interval :math:`[k/(k+(L-k)e^{s}),\ k/(k+(L-k)e^{-s})]` when :math:`L\ge3` (the set
    :math:`\{\mathrm{osc} = s\}` modulo shifts is connected and :math:`p(A)` is monotone in each logit), and only its
    two end points when :math:`L = 2`. The gain (:func:`subset_gain`) is unimodal in the mass with its peak at
    :math:`1/(1+e^\epsilon)`, so the supremum is 2 × the gain at the peak clipped into the interval, maximised over k.
    """
    from scipy.special import expit  # noqa: PLC0415

    k = np.arange(1, L)
    lo, hi = np.log(k / (L - k)) - s, np.log(k / (L - k)) + s      # logits of the two end masses
    if L == 2:
        cand = np.array([lo, hi]).ravel()
    else:
        peak = -eps                                                    # logit of 1/(1 + e^eps)
        cand = np.clip(peak, lo, hi)
    return float(2 * subset_gain(expit(cand), expit(-cand), eps).max())


def worst_instance(s, L, eps, dtype="float64"):
    r"""Logits with :math:`\mathrm{osc}(x) = s` built to attain :func:`worst_l1_over_osc` (:math:`L\ge3`), evaluated.

    For each k = 1 … L − 2: k keys at a common logit α, one key at 0 and the others at s, with α ∈ [0, s] solving
    :math:`p(A) = 1/(1+e^\epsilon)` (clipped). Each x is evaluated by brute force (:func:`worst_l1_over_h`) and by
    the literal change :func:`attnlab.l1_change` at its worst :math:`h = \pm\epsilon`. Returns a dict with ``worst``
    (brute force, the best k), ``direct`` (l1_change at that x and h) and ``osc`` (of that x).
    """
    if L < 3:
        raise ValueError(f"L must be at least 3, got {L}")
    xs = []
    for k in range(1, L - 1):
        # k e^α / (k e^α + 1 + (L-k-1) e^s) = 1/(1+e^eps)  =>  α = log((1 + (L-k-1)e^s)/k) - eps
        alpha = np.clip(np.logaddexp(0.0, math.log(L - k - 1) + s) - math.log(k) - eps, 0.0, s)
        xs.append(np.r_[np.full(k, alpha), 0.0, np.full(L - k - 1, s)])
    X = np.array(xs, dtype=dtype)
    w, A = worst_l1_over_h(X, eps)
    i = int(w.argmax())
    h = (eps * (2 * A[i] - 1)).astype(dtype)
    return dict(worst=float(w[i]), direct=float(l1_change(X[i], h)), osc=float(X[i].max() - X[i].min()))


def worst_relative_change(x, eps):
    r"""Exact :math:`\max_i\max_{\|h\|_\infty\le\epsilon} |p'_i/p_i - 1|` per row of ``x`` (logits of any size).

    For key i the worst :math:`h` is :math:`+\epsilon` on i and :math:`-\epsilon` elsewhere (or the reverse), giving
    :math:`p'_i/p_i - 1 = (1-p_i)(e^{2\epsilon}-1)/(p_i(e^{2\epsilon}-1)+1)`, largest at the smallest :math:`p_i`
    and below :math:`e^{2\epsilon}-1` whatever x; :math:`p_i` comes from the log-softmax, so an underflowed
    :math:`p_i` gives the limit :math:`e^{2\epsilon}-1` exactly.
    """
    from scipy.special import log_softmax  # noqa: PLC0415

    pmin = np.exp(log_softmax(np.asarray(x, float), axis=-1).min(axis=-1))
    up = (1 - pmin) * math.expm1(2 * eps) / (pmin * math.expm1(2 * eps) + 1)
    down = (1 - pmin) * -math.expm1(-2 * eps) / (pmin * math.expm1(-2 * eps) + 1)
    return np.maximum(up, down)


def _projection_errors(s_grid, q, rng):
    """Logits S = s·S0 (S0 = QKᵀ/√d scaled to unit std) and the projection's S̃: error sizes against s."""
    L, d, m, trials = q["L"], q["d"], q["m"], q["trials"]
    Q, K = rng.standard_normal((L, d)), rng.standard_normal((L, d))
    S0 = Q @ K.T / math.sqrt(d)
    Q = Q / S0.std()
    Ps = [gaussian_projection(d, m, rng=rng) for _ in range(trials)]
    out = dict(s=list(s_grid), h_inf=[], row_l1=[], ratio=[])
    for s in s_grid:
        S = s * Q @ K.T / math.sqrt(d)
        hs, l1s = [], []
        for P in Ps:
            h = projected_logits(s * Q, K, P) - S
            hs.append(np.abs(h).max(axis=1))
            l1s.append(np.abs(softmax(S + h, axis=-1) - softmax(S, axis=-1)).sum(axis=1))
        hs, l1s = np.concatenate(hs), np.concatenate(l1s)
        out["h_inf"].append(float(np.median(hs)))
        out["row_l1"].append(float(np.median(l1s)))
        out["ratio"].append(float((l1s / hs).max()))
    return out


@memoize
def amplify_experiment(p, seed):
    """PDA-amplify: exact worst cases over x with osc(x) = s, typical x = s·z (float64 and float32), relative changes
    and the projection's errors, over the scale grid ``amp_s`` and tolerances ``amp_eps``."""
    rng = np.random.default_rng([seed, 4])
    s_grid, eps_grid = p["amp_s"], p["amp_eps"]
    Z = rng.standard_normal((p["amp_typ_n"], p["amp_typ_L"]))
    rows = []
    for eps in eps_grid:
        for s in s_grid:
            sup = {L: worst_l1_over_osc(s, L, eps) for L in p["amp_L"]}
            inst = [worst_instance(s, L, eps) for L in p["amp_L"] if L >= 3]
            inst32 = [worst_instance(s, L, eps, "float32") for L in p["amp_L"] if L >= 3]
            typ64 = worst_l1_over_h(s * Z, eps)[0]
            typ32 = worst_l1_over_h((s * Z).astype(np.float32), eps)[0]
            rows.append(dict(eps=eps, s=s, sup=max(sup.values()), sup_per_L={str(k): v for k, v in sup.items()},
                             attained=max(r["worst"] for r in inst), direct=max(r["direct"] for r in inst),
                             attained32=max(r["worst"] for r in inst32),
                             typical=float(typ64.mean()), typical_max=float(typ64.max()),
                             typical32=float(typ32.astype(float).mean()),
                             f32_diff=float(np.abs(typ32.astype(float) - typ64).max()),
                             rel_typical=float(worst_relative_change(s * Z, eps).max()),
                             rel_bound=math.expm1(2 * eps), tanh=2 * math.tanh(eps / 2)))
    proj = _projection_errors(s_grid, p["amp_proj"], rng)
    return dict(rows=rows, projection=proj, s_min=min(s_grid), s_max=max(s_grid), L=p["amp_L"])


#: The rule of PDA-amplify, stated before the run. R(s, ε) = (worst-case ℓ1 change over x with osc(x) = s and
#: ‖h‖∞ ≤ ε) / ε, the most pessimistic of the exact supremum and the attained instances.
AMPLIFY_RULE = dict(
    tol=0.05,
    amplification="max over the grid of R(s, ε) > 1 + tol",
    especially_large="for some ε, worst case at s_max > (1 + tol) × worst case at s_min",
    verified="both", corrected="exactly one", refuted="neither")


def check_pda_amplify(scale=None, seed=0, data=None) -> Verdict:
    """PDA-amplify by :data:`AMPLIFY_RULE`: does softmax amplify an additive logit error, more so at large logits?"""
    p = _scale_p(scale)
    data = amplify_experiment(p, seed) if data is None else data
    rows, tol = data["rows"], AMPLIFY_RULE["tol"]
    worst = {(r["eps"], r["s"]): max(r["sup"], r["attained"], r["direct"]) for r in rows}
    ratio = max(w / e for (e, _), w in worst.items())
    eps_list = sorted({e for e, _ in worst})
    growth = {e: worst[(e, data["s_max"])] / worst[(e, data["s_min"])] for e in eps_list}
    amp, grows = ratio > 1 + tol, max(growth.values()) > 1 + tol
    verdict = "verified" if amp and grows else "corrected" if amp or grows else "refuted"
    typ = {e: [r["typical"] for r in rows if r["eps"] == e] for e in eps_list}
    e_mid = eps_list[len(eps_list) // 2]
    proj = data["projection"]
    rel = max(r["rel_typical"] / r["rel_bound"] for r in rows)
    g = max(growth.values())
    if verdict == "refuted":
        moves = (f"by less than ‖h‖∞ (ratio 1 − {1 - ratio:.2g})" if ratio < 1 else
                 f"by at most {ratio:.4f} times ‖h‖∞")
        head = (f"Softmax does not amplify an additive logit error: a row moves in ℓ1 {moves}, no more at large "
                f"logits (factor {g:.3f}).")
    elif verdict == "verified":
        head = (f"Softmax amplifies an additive logit error, more at large logits: up to {ratio:.3f} times ‖h‖∞ in "
                f"ℓ1, growing {g:.3f}-fold with the logits.")
    elif amp:
        head = (f"Softmax amplifies an additive logit error (a row moves in ℓ1 by up to {ratio:.3f} times ‖h‖∞), but "
                f"not more at large logits (factor {g:.3f}).")
    else:
        head = (f"Softmax does not amplify an additive logit error (at most {ratio:.4f} times ‖h‖∞), but its worst "
                f"case grows by a factor {g:.3f} at large logits.")
    typ_moves = "falls" if typ[e_mid][-1] < typ[e_mid][0] else "does not fall"
    proj_moves = "grows" if proj["h_inf"][-1] > proj["h_inf"][0] else "does not grow"
    return Verdict(
        "PDA-amplify", verdict,
        f"{head} The grid covers osc(x) = {data['s_min']:g}–{data['s_max']:g} and ε = {eps_list[0]:g}–"
        f"{eps_list[-1]:g}. For Gaussian logits s·z at ε = {e_mid:g} the change per unit of ε {typ_moves} from "
        f"{typ[e_mid][0]:.3g} to {typ[e_mid][-1]:.3g}. Relative changes of single probabilities reach at most "
        f"{rel:.4f} of exp(2ε) − 1. The projection's own error ‖S̃ − S‖∞ {proj_moves} with the logits (median "
        f"{proj['h_inf'][0]:.3g} at s = {proj['s'][0]:g}, {proj['h_inf'][-1]:.3g} at s = {proj['s'][-1]:g}).",
        numbers=dict(max_ratio=ratio, growth_smax_over_smin={str(e): g for e, g in growth.items()},
                     eps=eps_list, s_min=data["s_min"], s_max=data["s_max"], L=data["L"],
                     typical_at_smin={str(e): v[0] for e, v in typ.items()},
                     typical_at_smax={str(e): v[-1] for e, v in typ.items()},
                     max_rel_over_bound=rel,
                     max_f32_diff=max(r["f32_diff"] for r in rows),
                     projection_h_inf_median=[proj["h_inf"][0], proj["h_inf"][-1]],
                     projection_row_l1_median=[proj["row_l1"][0], proj["row_l1"][-1]]),
        thresholds=AMPLIFY_RULE, scale=p["scale"])


def plot_amplify(amp):
    """Worst and typical ℓ1 change per unit ‖h‖∞ against the logit scale s, for the middle and the largest ε (left);
    the projection's errors against s (right). Returns (fig, data); the data hold every ε."""
    from ..plotting import OKABE_ITO, figure  # noqa: PLC0415

    fig, (a, b) = figure(2, 1, width=3.4, height=2.7)
    rows = amp["rows"]
    data = {}
    eps_list = sorted({r["eps"] for r in rows})
    shown = sorted({eps_list[len(eps_list) // 2], eps_list[-1]})
    for e in eps_list:
        sel = [r for r in rows if r["eps"] == e]
        data["s"] = [r["s"] for r in sel]
        data[f"worst_eps{e:g}"] = [max(r["sup"], r["attained"]) / e for r in sel]
        data[f"typical_eps{e:g}"] = [r["typical"] / e for r in sel]
    for i, e in enumerate(shown):
        col, mk = OKABE_ITO[(1, 5)[i % 2]], "os"[i % 2]
        a.plot(data["s"], _positive(data[f"worst_eps{e:g}"]), "-", marker=mk, ms=3, color=col, label=rf"worst, $\varepsilon = {e:g}$")
        a.plot(data["s"], _positive(data[f"typical_eps{e:g}"]), "--", marker=mk, ms=3, mfc="white", color=col,
               label=rf"Gaussian $x$, $\varepsilon = {e:g}$")
    a.axhline(1, color="k", ls=":", lw=1.5, label="ratio 1")
    a.set(xscale="log", yscale="log", ylim=(1e-4, 3), xlabel=r"logit scale $s$ ($\mathrm{osc}(x)$, or $x = s z$)",
          ylabel=r"$\|\Delta\,\mathrm{softmax}\|_1 / \|h\|_\infty$")
    a.legend(loc="lower left")
    pr = amp["projection"]
    b.plot(pr["s"], _positive(pr["h_inf"]), "o-", label=r"$\|\tilde S_i - S_i\|_\infty$ (median row)")
    b.plot(pr["s"], _positive(pr["row_l1"]), "s-", label=r"row $\ell_1$ error of $\tilde A$ (median)")
    b.plot(pr["s"], _positive(pr["ratio"]), "^--", label=r"largest $\ell_1 / \|h\|_\infty$")
    b.set(xscale="log", yscale="log", xlabel="logit scale $s$", ylabel="error")
    b.legend(loc="lower left")
    for ax in (a, b):
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis)
    fig.tight_layout()
    data.update({f"proj_{k}": v for k, v in pr.items()})
    return fig, data
