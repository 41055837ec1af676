"""The evidence of a section page (``notebooks/06-hardness-lowrank.ipynb``, claims AT-lowrank and AT-temp): the
low-rank reduction of the hardness section, one-sided and as printed, and temperature as an entry bound; moved as they
were from :mod:`attnlab.audit.hardness_parity`. :mod:`attnlab.audit.hardness` keeps the chapter's presets, rules and
shared helpers and re-exports these names.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.exact import attention
from ..theory.hardness import one_sided_factorisation, temperature_absorbed
from .cache import memoize
from .hardness import LOWRANK_TOL, PRESETS, PRINTED_TOL, RULES, TEMP_TOL, _tidy
from .scale import preset
from .verdict import Verdict

__all__ = ["PRESETS", "printed_kprime_t", "lowrank_experiment", "temp_experiment", "check_at_lowrank",
           "check_at_temp"]


def printed_kprime_t(VQ, UK, VK):
    """The printed K'ᵀ = V_Qᵀ U_K V_Kᵀ: a matmul of (r_Q×d)(n×r_K)(r_K×d), where K = U_K V_Kᵀ.

    NumPy raises ValueError unless d = n; at d = n it multiplies, to an r_Q×d matrix of the right shape but not
    the right values (the product that exists is V_Qᵀ V_K U_Kᵀ = V_Qᵀ Kᵀ, see :func:`lowrank_experiment`)."""
    return VQ.T @ UK @ VK.T


@memoize
def lowrank_experiment(p, seed: int = 0):
    """Exactness of the one-sided factorisation for rank-r Q (and, symmetrically, rank-r K), and the printed shapes."""
    rng = np.random.default_rng(seed)
    n, d = p["lr_n"], p["lr_d"]
    rows = []
    for r in p["lr_r"]:
        Q = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
        K = rng.standard_normal((n, d))
        V = rng.standard_normal((n, d))
        Qp, Kp = one_sided_factorisation(Q, K)
        Kq, Qq = one_sided_factorisation(K, Q)            # K low rank instead: the symmetric form
        Ks = rng.standard_normal((n, r)) @ rng.standard_normal((r, d))
        Kq, Qq = one_sided_factorisation(Ks, Q)
        S = Q @ K.T
        rows.append(dict(r=r, n=n, d=d, width=Qp.shape[1],
                         score_rel_err=float(np.abs(Qp @ Kp.T - S).max() / np.abs(S).max()),
                         sym_rel_err=float(np.abs(Qq @ Kq.T - Q @ Ks.T).max() / np.abs(Q @ Ks.T).max()),
                         output_rel_err=float(np.abs(attention(Qp, Kp, V, beta=1 / math.sqrt(d))
                                                     - attention(Q, K, V, beta=1 / math.sqrt(d))).max()),
                         value_width=V.shape[1]))
    # the printed K'ᵀ = V_Qᵀ U_K V_Kᵀ with both sides factored at rank 2
    r = 2
    VQ = rng.standard_normal((d, r)); UK = rng.standard_normal((n, r)); VK = rng.standard_normal((d, r))
    try:
        printed_kprime_t(VQ, UK, VK)
        printed_error = None
    except ValueError:   # NumPy's message names matmul's internal axes; say what is wrong in words
        printed_error = f"undefined product: V_Qᵀ is {r}×{d} and U_K is {n}×{r}, so the inner sizes {d} and {n} differ"
    shapes = dict(VQ_T=[r, d], UK=[n, r], VK_T=[r, d], printed_multiplies=printed_error is None,
                  printed_error=printed_error, corrected_shape=list((VQ.T @ VK @ UK.T).shape))
    # n = d: the printed product multiplies; compare its values with the product that exists, V_Qᵀ V_K U_Kᵀ
    m = 3 * r
    VQs, UKs, VKs = (rng.standard_normal((m, r)) for _ in range(3))
    right = VQs.T @ VKs @ UKs.T
    square = dict(n=m, d=m, r=r, printed_multiplies=True,
                  printed_rel_err=float(np.linalg.norm(printed_kprime_t(VQs, UKs, VKs) - right) / np.linalg.norm(right)))
    return dict(rows=rows, shapes=shapes, square=square)


@memoize
def temp_experiment(p, seed: int = 0):
    """softmax(QKᵀ/T)V directly (beta = 1/T) and with Q/√T, K/√T; the entry bound against max(B, B/√T)."""
    rng = np.random.default_rng(seed)
    n, d, B = 64, 8, 2.0
    Q, K, V = (rng.uniform(-B, B, (n, d)) for _ in range(3))
    rows = []
    for T in p["T"]:
        direct, absorbed = temperature_absorbed(Q, K, V, T)
        entry = max(float(np.abs(Q).max()), float(np.abs(K).max())) / math.sqrt(T)
        entry = max(entry, float(np.abs(V).max()))
        rows.append(dict(T=T, max_abs_diff=float(np.abs(direct - absorbed).max()), max_entry=entry,
                         B_T=max(B, B / math.sqrt(T)), B=B))
    return rows


def check_at_lowrank(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-lowrank (rule: ``RULES["AT-lowrank"]``): the one-sided factorisation is exact; the printed
    K'ᵀ does not multiply at n ≠ d and gives the wrong matrix at n = d. The time bound is not measured here."""
    p = preset(PRESETS, scale)
    out = lowrank_experiment(p, seed) if data is None else data
    err = max(max(r["score_rel_err"], r["sym_rel_err"]) for r in out["rows"])
    ok = err <= LOWRANK_TOL and all(r["width"] == r["r"] for r in out["rows"])
    sh, sq = out["shapes"], out["square"]
    printed_bad = (not sh["printed_multiplies"]) or sq["printed_rel_err"] > PRINTED_TOL
    verdict = ("corrected" if printed_bad else "verified") if ok else "refuted"
    ranks = [r["r"] for r in out["rows"]]
    rank_text = f"{ranks[0]}–{ranks[-1]}" if len(ranks) > 1 else f"{ranks[0]}"
    (rq, dq), (nk, rk) = sh["VQ_T"], sh["UK"]
    if not ok:
        head = (f"The one-sided factorisation Q' = U_Q, K' = K V_Q is not exact here: relative score error {err:.1e} "
                f"(limit 1e−10) or a width other than r.")
    elif printed_bad:
        head = (f"The one-sided factorisation Q' = U_Q, K' = K V_Q is exact (relative error {err:.1e} at ranks "
                f"{rank_text}); the printed K'ᵀ = V_Qᵀ U_K V_Kᵀ is not.")
    else:
        head = (f"Both the one-sided factorisation (relative error {err:.1e}) and the printed K'ᵀ = V_Qᵀ U_K V_Kᵀ "
                f"reproduce QKᵀ.")
    printed = ("The printed K'ᵀ multiplies here" if sh["printed_multiplies"] else
               f"The printed K'ᵀ would multiply a {rq}×{dq} matrix by a {nk}×{rk} one, a product that exists only "
               f"when n = d")
    summary = (
        f"{head} The factorisation has width r. {printed}; at n = d = {sq['n']}, where it exists, it is off by "
        f"{sq['printed_rel_err']:.2f} (relative) from V_Qᵀ Kᵀ. Not checked here: the time "
        f"bound Õ(nd + n^(2−1/r)) (it rests on the fixed-dimension algorithm, AT-fixed-d) and the proof's step "
        f"O(nd·max(r_Q, r_K)) = O(nd), which needs both ranks O(1) (the one-sided factorisation avoids it); the value "
        f"matrix keeps width d = {out['rows'][0]['value_width']}, a cost the reduction does not remove.")
    return Verdict(
        "AT-lowrank", verdict, _tidy(summary),
        numbers=dict(max_rel_err=err, ranks=ranks, printed_error=sh["printed_error"],
                     corrected_shape=sh["corrected_shape"], printed_square_rel_err=sq["printed_rel_err"]),
        thresholds=dict(rule=RULES["AT-lowrank"], exact=f"max relative score error <= {LOWRANK_TOL:g} and reduced width = r",
                        corrected=f"the printed K'ᵀ raises a shape error at n ≠ d, or is off by > {PRINTED_TOL:g} at n = d"),
        scale=p["scale"])


def check_at_temp(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-temp: temperature moves into the inputs, entries bounded by max(B, B/√T)."""
    p = preset(PRESETS, scale)
    rows = temp_experiment(p, seed) if data is None else data
    diff = max(r["max_abs_diff"] for r in rows)
    bound_ok = all(r["max_entry"] <= r["B_T"] * (1 + TEMP_TOL) for r in rows)
    ok = diff <= TEMP_TOL and bound_ok
    head = ("Temperature is only a rescaling of the inputs" if ok else "Absorbing the temperature into the inputs fails")
    summary = (
        f"{head}: softmax(QKᵀ/T)V and the same with Q/√T, K/√T differ by at most {diff:.1e} for T from "
        f"{rows[0]['T']:g} to {rows[-1]['T']:g}. Every entry of the rescaled inputs "
        f"{'stays' if bound_ok else 'does not stay'} within B_T = max(B, B/√T).")
    return Verdict(
        "AT-temp", "verified" if ok else "refuted", _tidy(summary),
        numbers=dict(T=[r["T"] for r in rows], max_abs_diff=diff, max_entry=[r["max_entry"] for r in rows],
                     B_T=[r["B_T"] for r in rows]),
        thresholds=dict(equal=f"max |direct − absorbed| <= {TEMP_TOL:g}", bound="max entry <= max(B, B/√T)"),
        scale=p["scale"])

