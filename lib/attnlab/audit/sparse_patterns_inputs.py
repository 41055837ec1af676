"""The evidence of a section page (``notebooks/11-sparse-patterns-inputs.ipynb``, claim SP-tight): whether a measured d
far below the proof's bound shows that the theory is tight, against the packing lower bound for inputs of bounded norm
and the moment curve for unbounded ones; moved as it was from :mod:`attnlab.audit.sparse_patterns`, which keeps the
presets, the experiments (the moment-curve runs included: the chapter page's SP-approx and SP-causal read them) and
the shared helpers, and re-exports this check.
"""
from __future__ import annotations

import math

import numpy as np

from ..theory.sparse_patterns import packing_dimension_bound
from .scale import preset
from .stats import fit_slope
from .verdict import Verdict
from .sparse_patterns import GAP, PRESETS, _bound, fmt_num, growth_laws, moment_experiment, scaling_experiment

__all__ = ["check_sp_tight"]


def check_sp_tight(scale=None, seed: int = 0, data=None) -> Verdict:
    """SP-tight. A measured d far below an upper bound shows the bound's slack; it cannot show tightness (that needs a
    matching lower bound: the packing bound, for inputs of bounded norm). Rule: measured d above the bound anywhere,
    or below the packing lower bound at the random projection's own norms (an inconsistency): refuted; bound/d > GAP
    at every L: the bound is loose (not tight even within a factor GAP), so the inference to tightness is wrong and
    the corrected statement is "the bound is loose by at least that factor; O(log L) is tight for norm-bounded
    inputs by packing, and not needed for unbounded ones": corrected; 1 <= bound/d <= GAP somewhere: the premise
    "far below" fails: refuted."""
    p = preset(PRESETS, scale)
    sc, mom = (scaling_experiment(p, seed), moment_experiment(p, seed)) if data is None else data
    rows = [r for part in ("full", "causal") for r in sc[part] if math.isfinite(r["dmin"][1])]
    ratios = [r["bound"] / r["dmin"][1] for r in rows]
    lo, hi = min(ratios), max(ratios)
    law = growth_laws(sc["full"])["fits"]["log L"]
    Ls = np.array(sorted({r["L"] for r in sc["full"]}), float)
    bslope = fit_slope(np.log(Ls), [_bound(p, L, p["k"], p["gamma"]) for L in Ls]).slope if Ls.size >= 3 else math.nan
    R_jl = max(r["R_jl"] for r in mom)
    pack = {int(r["L"]): packing_dimension_bound(int(r["L"]), R_jl, p["eps2"]) for r in mom}
    below_packing = sum(1 for r in rows if r["dmin"][1] < packing_dimension_bound(int(r["L"]), R_jl, p["eps2"]))
    m_d = sorted({r["d"] for r in mom if r["success"]})
    if lo < 1 or below_packing:
        verdict = "refuted"
    elif lo > GAP:
        verdict = "corrected"
    else:
        verdict = "refuted"
    return Verdict(
        "SP-tight", verdict,
        f"The proof's bound exceeds the smallest working d by {lo:.3g}× to {hi:.3g}×: a gap to an upper bound measures "
        f"the bound's slack and cannot show that it is tight. "
        f"The bound's slope in log L ({bslope:.3g}) is {bslope / law['slope']:.3g}× the measured one "
        f"({law['slope']:.3g}); what holds is that the bound is loose by that factor. Tightness of O(log L) depends "
        f"on the inputs: with norm-bounded inputs the packing bound d ≥ log L / log(1 + 2R/log(1/ε₂)) "
        f"(R ≈ {fmt_num(R_jl, 3)} for the random projection: d ≥ {min(pack.values())} to {max(pack.values())}, below "
        f"every measured d) makes it tight up to a constant; with unbounded inputs the moment curve needs only "
        f"d = {', '.join(map(str, m_d)) or '–'} at every L, so log L is not even the right order.",
        numbers=dict(min_bound_over_d=lo, max_bound_over_d=hi, bound_log_slope=bslope, measured_log_slope=law["slope"],
                     slope_ratio=bslope / law["slope"], packing_R=R_jl,
                     packing_bound=[min(pack.values()), max(pack.values())],
                     below_packing=below_packing, moment_d=m_d),
        thresholds=dict(refuted=f"bound/d < 1 anywhere (bound fails), d below the packing bound (inconsistent), or "
                                f"bound/d <= {GAP} somewhere (not far below)",
                        corrected=f"bound/d > {GAP} everywhere: below the bound by more than a factor {GAP}, "
                                  "hence loose, not tight"),
        scale=p["scale"])
