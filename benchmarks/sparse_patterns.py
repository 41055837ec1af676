"""The sparse-pattern construction at long sequence lengths, once, for chapter 11 (claims SP-exp and SP-causal).

    python benchmarks/sparse_patterns.py [--out data/benchmarks/sparse-patterns-long.json] [--max-L 32768]

Runs the chapter's search for the smallest working projection dimension (``attnlab.audit.sparse_patterns.
search_dimension``: doubling pilot, then a geometric grid of d on ``draws`` Gaussian projections) on random targets
(k = 2, γ = 2, precision (ε₁, ε₂) = (2, 1/2), the chapter's book preset) for L = 512 … max_L in doubling steps,
full and causal targets, with the targets held as sparse arrays and the logits formed in row blocks, so memory stays
O(L·d) although L² logits are evaluated per draw. Two targets per length up to L = 8192, one beyond.

The rule that reads the record (fixed before the run, the chapter's own): each law d = a + b·f(L),
f ∈ {log L, √L, L}, is fitted to the per-draw first-success dimensions; a lack-of-fit F test against the pure error
of the replicates rejects a law at p < 0.01; the data decide for the best law if it is kept and both others are
rejected (``growth_laws``). The chapter never reruns this: it reads the JSON.

``--budget-s``: a length is not started when the run would pass this much wall time by the time it ends (4.5 times
the previous length's time predicted; the record says where it stopped). The load average at the start and the end,
the wall time per length and the versions are recorded.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from attnlab.audit import sparse_patterns as sp
from attnlab.plotting import provenance


def loadavg():
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return [float("nan")] * 3


def _clean(x):
    """JSON without Infinity: inf becomes None (the loader turns it back)."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="data/benchmarks/sparse-patterns-long.json")
    ap.add_argument("--max-L", type=int, default=32768)
    ap.add_argument("--min-L", type=int, default=512)
    ap.add_argument("--budget-s", type=float, default=1200.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    p = dict(sp.PRESETS["book"])
    p.update(scale="benchmark")
    Ls = [L for L in (2 ** e for e in range(9, 20)) if args.min_L <= L <= args.max_L]
    targets = {L: (2 if L <= 8192 else 1) for L in Ls}
    start_load, t0 = loadavg(), time.perf_counter()
    out = {"full": [], "causal": []}
    per_L, stopped = [], None
    for L in Ls:
        # a length costs about 4x the previous one (L^2 logits, d growing slowly): not started if it would end
        # past the budget
        guess = 4.5 * per_L[-1]["seconds"] * targets[L] / per_L[-1]["targets"] if per_L else 0.0
        if time.perf_counter() - t0 + guess > args.budget_s:
            stopped = L
            break
        tL = time.perf_counter()
        for causal in (False, True):
            part = "causal" if causal else "full"
            rng = np.random.default_rng([args.seed, L, int(causal)])
            prev = [r["d_hi"] for r in out[part]]
            start = max(16, prev[-1] // 2) if prev else 16
            for _ in range(targets[L]):
                A = sp.random_sparse_target(L, p["k"], p["gamma"], rng, causal=causal, as_sparse=True)
                r = sp.search_dimension(A, p, rng, causal=causal, start=start)
                r["bound"] = sp._bound(p, L, p["k"], p["gamma"], causal)
                out[part].append(r)
                start = max(16, r["d_hi"] // 2)
        per_L.append(dict(L=L, seconds=time.perf_counter() - tL, loadavg=loadavg(), targets=targets[L]))
        print(f"L = {L}: {per_L[-1]['seconds']:.1f} s, load {per_L[-1]['loadavg']}", file=sys.stderr, flush=True)
    rec = dict(provenance(dict(seed=args.seed, lengths=Ls, targets=targets, k=p["k"], gamma=p["gamma"],
                                eps1=p["eps1"], eps2=p["eps2"], draws=p["draws"], grid=p["grid"], Q=p["Q"],
                                projection="gaussian", dtype="float32", budget_s=args.budget_s)),
               cpu=(os.uname().machine), cores=os.cpu_count(), date=time.strftime("%Y-%m-%d"),
               loadavg_start=start_load, loadavg_end=loadavg(), wall_seconds=time.perf_counter() - t0,
               per_length=per_L, stopped_before=stopped,
               note="the verdicts read only the dimensions, which do not depend on the load, never the times",
               rows=out)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(_clean(rec), indent=1) + "\n")


if __name__ == "__main__":
    main()
