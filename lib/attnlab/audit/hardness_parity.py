"""The evidence of a section page (``notebooks/06-hardness-parity.ipynb``, claims AT-log2 and AT-parity): parity at
the entry bound log 2 and a random half of the keys; moved as they were from :mod:`attnlab.audit.hardness`, which
keeps the presets, the rules and the shared helpers and re-exports these names. The low-rank reduction and
temperature (AT-lowrank, AT-temp) are :mod:`attnlab.audit.hardness_lowrank`.
"""
from __future__ import annotations

import itertools
import math
import numpy as np

from ..core.exact import attention
from ..theory.hardness import (parity_decode, parity_instance, sentinel_attention, sentinel_instance)
from .cache import memoize
from .scale import preset
from .stats import clopper_pearson
from .verdict import Verdict
from .hardness import (EXACT_TOL, LOG2_TOL, PARITY_CI_WIDTH, PARITY_SEARCH_MAX, PARITY_STRATUM_MIN, PRESETS, RULES,
                       _tidy, _tol, random_ov_sets)

__all__ = [
    "parity_counterexample",
    "log2_experiment",
    "check_at_log2",
    "odd_probability_exact",
    "parity_mc_experiment",
    "check_at_parity",
    "plot_parity",
]


def parity_counterexample(scale: float, max_n: int = PARITY_SEARCH_MAX, max_d: int = PARITY_SEARCH_MAX,
                          copies: int = 1):
    """Smallest instance (smallest n·d, then smallest d) of 0/1 vectors, one query a and n keys, on which the parity of
    round(Σ_j e^{copies·scale²·a·b_j}) differs from the parity of the number of orthogonal keys (``copies``
    repeats of every coordinate, as in :func:`attnlab.parity_instance`). None if none exists."""
    best = None
    for size in range(1, max_n * max_d + 1):
        for d in range(1, max_d + 1):
            if size % d or size // d > max_n:
                continue
            n = size // d
            vecs = list(itertools.product((0, 1), repeat=d))
            for a in vecs:
                for keys in itertools.combinations_with_replacement(vecs, n):
                    ip = np.array([np.dot(a, b) for b in keys])
                    S = float(np.exp(copies * scale * scale * ip).sum())
                    if int(np.rint(S)) % 2 != int((ip == 0).sum()) % 2:
                        best = dict(n=n, d=d, a=list(a), keys=[list(b) for b in keys], S=S,
                                    inner_products=ip.tolist(), orthogonal=int((ip == 0).sum()))
                        return best
    return best


@memoize
def log2_experiment(p, seed: int = 0):
    """e^{(log 2)²} vs 2, the entry bounds, and parity decoding on planted/unplanted sets with three instances: the
    printed scaling (log 2 on both sides), √(log 2) on both sides (exact, entries above log 2), and the repair
    within the bound: every coordinate twice, √(log 2 / 2) ≈ 0.589 on both sides (exact, width 2d)."""
    rng = np.random.default_rng(seed)
    n, d = p["par_n"], p["par_d"]
    s_dup = math.sqrt(math.log(2) / 2)
    out = dict(e_log2_sq=math.exp(math.log(2) ** 2), B_printed=math.log(2), B_sqrt=math.sqrt(math.log(2)),
               B_dup=s_dup, d=d, d_dup=2 * d, e_dup=math.exp(2 * s_dup ** 2),
               counterexample=parity_counterexample(math.log(2)),
               counterexample_sqrt=parity_counterexample(math.sqrt(math.log(2))),
               counterexample_dup=parity_counterexample(s_dup, copies=2))
    for name, s, copies in (("printed", math.log(2), 1), ("sqrt", math.sqrt(math.log(2)), 1), ("dup", s_dup, 2)):
        errs, total, fp, fn = 0, 0, 0, 0
        for rep in range(p["par_reps"]):
            A, Bv = random_ov_sets(n, d, rng, planted=rep % 3)
            truth = ((A @ Bv.T) == 0).any(1)
            found = parity_decode(A, Bv, s, p["par_rounds"], rng=rng, copies=copies)
            errs += int((found != truth).sum())
            fp += int((found & ~truth).sum())
            fn += int((~found & truth).sum())
            total += n
        out[name] = dict(errors=errs, false_pos=fp, false_neg=fn, total=total)
    # values within the bound: value entries log 2 instead of 1 (the sentinel at c = 1 has score 0, its key is 0);
    # the output is read as o/log 2, so the oracle's error must be log 2 times smaller (absorbed by ε = n^(−C))
    diff, agree, total = 0.0, 0, 0
    for rep in range(p["par_reps"]):
        A, Bv = random_ov_sets(n, d, rng, planted=rep % 3)
        Q, K = parity_instance(A, Bv, s_dup, copies=2)
        Qs, Ks, Vs = sentinel_instance(Q, K, np.zeros(n))
        o = attention(Qs, Ks, Vs, beta=1.0)[:, 0]
        o_v = attention(Qs, Ks, math.log(2) * Vs, beta=1.0)[:, 0] / math.log(2)
        diff = max(diff, float(np.abs(o_v - o).max()))
        par = lambda x: np.rint(x / (1 - x)).astype(np.int64) % 2  # noqa: E731
        agree += int((par(o_v) == par(o)).sum())
        total += n
    out["values"] = dict(entry=math.log(2), max_diff=diff, parity_agree=agree, total=total,
                         max_entry_QKV=max(s_dup, math.log(2)))
    return out


def check_at_log2(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-log2 (rule: ``RULES["AT-log2"]``): the printed scaling gives e^{(log 2)²}, not 2; a repair
    within the entry bound log 2 (every coordinate twice, √(log 2 / 2) on both sides) keeps the theorem's B."""
    p = preset(PRESETS, scale)
    out = log2_experiment(p, seed) if data is None else data
    ce = out["counterexample"]
    wrong = abs(out["e_log2_sq"] - 2) > LOG2_TOL and ce is not None
    exact = lambda name: out[name]["errors"] == 0 and out[f"counterexample_{name}"] is None  # noqa: E731
    vals = out.get("values")
    vals_ok = vals is None or (vals["max_diff"] <= EXACT_TOL and vals["parity_agree"] == vals["total"]
                               and vals["max_entry_QKV"] <= out["B_printed"] + 1e-15)
    dup_ok = exact("dup") and abs(out["e_dup"] - 2) <= EXACT_TOL and out["B_dup"] <= out["B_printed"] and vals_ok
    sqrt_ok = exact("sqrt")
    pr = out["printed"]
    if not wrong:
        verdict = "verified"
        head = (f"The printed scaling decodes every parity: exp((log 2)²) is within {_tol(LOG2_TOL)} of 2 or no "
                "counterexample exists.")
        how = ""
    elif dup_ok:
        verdict = "corrected"
        head = (f"As printed the parity gadget fails (exp((log 2)²) = {out['e_log2_sq']:.4f}, not 2; "
                f"{pr['errors']}/{pr['total']} rows misdecided); writing every coordinate twice fixes it, "
                f"so B = log 2 stands.")
        how = (f"The repair within the bound, every coordinate twice with entries √(log 2 / 2) = {out['B_dup']:.4f} "
               f"< log 2 (width {out['d']} → {out['d_dup']}), gives exp(QKᵀ) = 2^(ABᵀ) exactly and misdecides "
               f"{out['dup']['errors']}/{out['dup']['total']} rows, with no counterexample up to n, d ≤ 3.")
        vals = out.get("values")
        if vals:
            how += (f" The values 1 also exceed log 2 (the notes say so, l. 143): values log 2 with the output read as "
                    f"o/log 2 change it by {vals['max_diff']:.1e} and no parity ({vals['parity_agree']:,}/"
                    f"{vals['total']:,} agree), so every entry of Q, K and V is at most log 2 and the oracle's error "
                    f"must be log 2 times smaller, a constant that ε = n^(−C) absorbs.")
    elif sqrt_ok:
        verdict = "corrected"
        head = (f"As printed the parity gadget fails (exp((log 2)²) = {out['e_log2_sq']:.4f}, not 2); only entries "
                f"√(log 2) = {out['B_sqrt']:.4f} decode, so the theorem holds with B = √(log 2), not log 2.")
        how = (f"The √(log 2) scaling misdecides {out['sqrt']['errors']}/{out['sqrt']['total']} rows; the repair "
               f"within the bound misdecides {out['dup']['errors']}/{out['dup']['total']}.")
    else:
        verdict = "refuted"
        head = (f"As printed the parity gadget fails (exp((log 2)²) = {out['e_log2_sq']:.4f}, not 2), and no scaling "
                f"tried decodes the parity.")
        how = ""
    detail = (f"Smallest counterexample to the printed decoding: d = {ce['d']}, {ce['n']} key{'s' if ce['n'] > 1 else ''} with inner "
              f"products {', '.join(str(int(x)) for x in ce['inner_products'])}, S = {ce['S']:.4f}. " if ce else "")
    summary = " ".join(x for x in (head, detail.strip(), how) if x)
    return Verdict(
        "AT-log2", verdict, _tidy(summary),
        numbers=dict(e_log2_sq=out["e_log2_sq"], counterexample=ce, rows=out["printed"]["total"],
                     misdecided_printed=out["printed"]["errors"], misdecided_sqrt=out["sqrt"]["errors"],
                     misdecided_dup=out["dup"]["errors"], B_printed=out["B_printed"], B_sqrt=out["B_sqrt"],
                     B_dup=out["B_dup"], d=out["d"], d_dup=out["d_dup"], e_dup=out["e_dup"],
                     values_max_diff=vals["max_diff"] if vals else None),
        thresholds=dict(rule=RULES["AT-log2"],
                        wrong=f"|e^((log 2)²) − 2| > {_tol(LOG2_TOL)} and a parity counterexample exists"),
        scale=p["scale"])


def odd_probability_exact(t: int):
    """P(Binomial(t, 1/2) is odd) as an exact SymPy rational: Σ_{k odd} C(t, k) / 2^t."""
    import sympy as sp  # noqa: PLC0415

    t = int(t)
    return sp.Rational(sum(sp.binomial(t, k) for k in range(1, t + 1, 2)), 2 ** t)


@memoize
def parity_mc_experiment(p, seed: int = 0):
    """Lemma 5.8's random instance on random OV sets: each key kept with probability 1/2; per trial one row with
    at least one orthogonal key is drawn uniformly (independently of the keys kept) and the parity of its kept
    orthogonal keys recorded. The gadget's parity (round(S_i) from the sentinel at c = 1 with s = √(ln 2)) is
    compared with the count on every row, and rows without an orthogonal key are tallied separately."""
    rng = np.random.default_rng(seed)
    n, d = p["pmc_n"], p["pmc_d"]
    samples_t, samples_odd = [], []
    agree, readings, zero_rows, zero_odd = 0, 0, 0, 0
    s = math.sqrt(math.log(2))
    for inst in range(p["pmc_inst"]):
        A, Bv = random_ov_sets(n, d, rng, planted=1 + inst % 4)
        orth = (A @ Bv.T) == 0
        t = orth.sum(1)
        with_rows = np.flatnonzero(t >= 1)
        Q, K = parity_instance(A, Bv, s)
        for _ in range(p["pmc_trials"]):
            keep = rng.random(n) < 0.5
            count = orth[:, keep].sum(1)
            if keep.any():
                o = sentinel_attention(Q, K[keep], np.zeros(n))
                gadget = np.rint(o / (1 - o)).astype(np.int64) % 2
            else:
                gadget = np.zeros(n, np.int64)
            agree += int((gadget == count % 2).sum())
            readings += n
            zero_rows += int((t == 0).sum())
            zero_odd += int((count[t == 0] % 2).sum())
            i = rng.choice(with_rows)
            samples_t.append(int(t[i]))
            samples_odd.append(int(count[i] % 2))
    exact = {t: str(odd_probability_exact(t)) for t in range(p["pmc_T"] + 1)}
    return dict(t=samples_t, odd=samples_odd, gadget_agree=agree, readings=readings, zero_rows=zero_rows,
                zero_odd=zero_odd, exact=exact)


def check_at_parity(scale=None, seed: int = 0, data=None) -> Verdict:
    """Verdict for AT-parity: in a row with t ≥ 1 orthogonal keys, the kept count is odd with probability 1/2.

    Rule (stated before the run): the exact probability (SymPy) must be 1/2 for every t = 1..T; the pooled
    99% Clopper–Pearson interval of the sampled rows must contain 1/2 and be narrower than ``PARITY_CI_WIDTH``; every
    stratum t with at least ``PARITY_STRATUM_MIN`` samples must have a Bonferroni-adjusted 99% interval containing 1/2; the gadget's parity
    must equal the count's on every reading. Any failure → refuted; otherwise verified. (Rows with no orthogonal
    key read odd with probability 0: tallied and reported, not part of the claim.)
    """
    p = preset(PRESETS, scale)
    out = parity_mc_experiment(p, seed) if data is None else data
    import sympy as sp  # noqa: PLC0415

    exact = {int(t): sp.Rational(v) for t, v in out["exact"].items()}
    exact_ok = all(v == sp.Rational(1, 2) for t, v in exact.items() if t >= 1)
    t_arr, odd = np.asarray(out["t"]), np.asarray(out["odd"])
    N, k = int(odd.size), int(odd.sum())
    lo, hi = clopper_pearson(k, N, 0.99)
    pooled_ok = lo <= 0.5 <= hi and hi - lo < PARITY_CI_WIDTH
    strata = {int(t): (int(odd[t_arr == t].sum()), int((t_arr == t).sum())) for t in np.unique(t_arr)}
    big = {t: v for t, v in strata.items() if v[1] >= PARITY_STRATUM_MIN}
    conf = 1 - 0.01 / max(len(big), 1)
    ci = {t: [float(x) for x in clopper_pearson(kk, nn, conf)] for t, (kk, nn) in big.items()}
    strata_ok = all(c[0] <= 0.5 <= c[1] for c in ci.values())
    gadget_ok = out["gadget_agree"] == out["readings"]
    verdict = "verified" if (exact_ok and pooled_ok and strata_ok and gadget_ok) else "refuted"
    if verdict == "verified":
        head = (f"A random half of the keys leaves an odd number of orthogonal keys with probability 1/2: exactly for "
                f"t = 1..{max(exact)} (SymPy), and {k / N:.3f} over {N:,} sampled rows.")
    else:
        head = (f"The parity step fails: the odd fraction is {k / N:.3f} over {N:,} sampled rows (99% CI "
                f"{float(lo):.3f}–{float(hi):.3f}), or the exact probability or the gadget disagrees.")
    summary = (
        f"{head} The 99% interval of the sampled fraction is {float(lo):.3f}–{float(hi):.3f}; every value of t "
        f"with at least {PARITY_STRATUM_MIN} samples ({len(big)}) has an interval containing 1/2; the gadget's parity matched the count "
        f"in {out['gadget_agree']:,}/{out['readings']:,} readings, and rows without an orthogonal key read odd "
        f"{out['zero_odd']}/{out['zero_rows']:,} times (P(odd) = 0 for t = 0).")
    return Verdict(
        "AT-parity", verdict, _tidy(summary),
        numbers=dict(exact_half_up_to_t=max(exact), exact_all_half=exact_ok, samples=N, odd=k, fraction=k / N,
                     ci99=[float(lo), float(hi)], strata={str(t): list(v) for t, v in strata.items()},
                     strata_ci={str(t): c for t, c in ci.items()}, gadget_agree=out["gadget_agree"],
                     readings=out["readings"], zero_rows=out["zero_rows"], zero_odd=out["zero_odd"]),
        thresholds=dict(exact="P(odd) = 1/2 for t = 1..T (SymPy)",
                        pooled=f"99% Clopper–Pearson interval contains 1/2 and is narrower than {PARITY_CI_WIDTH:g}",
                        strata=f"Bonferroni-adjusted 99% interval contains 1/2 for every t with >= {PARITY_STRATUM_MIN} "
                               "samples",
                        gadget="gadget parity = count parity on every reading"),
        scale=p["scale"])


def plot_parity(check_numbers):
    """Fraction of odd kept counts per number t of orthogonal keys, with Clopper–Pearson intervals and 1/2."""
    from ..plotting import figure  # noqa: PLC0415

    fig, ax = figure()
    strata = {int(t): v for t, v in check_numbers["strata"].items()}
    ts = sorted(t for t, (_, nn) in strata.items() if nn >= PARITY_STRATUM_MIN)
    frac = [strata[t][0] / strata[t][1] for t in ts]
    ci = [check_numbers["strata_ci"][str(t)] for t in ts]
    ax.errorbar(ts, frac, yerr=[[f - c[0] for f, c in zip(frac, ci)], [c[1] - f for f, c in zip(frac, ci)]],
                fmt="o", ms=3, capsize=2, label="sampled rows (Bonferroni 99% CI)")
    ax.axhline(0.5, color="k", ls="--", lw=1, label="1/2")
    ax.set_ylim(0, 1)
    ax.set_xlabel("orthogonal keys $t$ in the row")
    ax.set_ylabel("fraction with an odd kept count")
    ax.legend(loc="lower right")
    return fig, dict(t=ts, fraction=frac, ci=ci)
