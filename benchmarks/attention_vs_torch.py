"""Benchmark attnlab's exact attention beside PyTorch's scaled_dot_product_attention on this CPU, in one run.

    PYTHONPATH=lib python benchmarks/attention_vs_torch.py [--full] [--out data/benchmarks/attention-vs-torch.json]

Needs torch (CPU wheel) in the running Python; attnlab does not depend on it. Measures, for d = 64, float32 and
float64, causal and not, L = 1024, 2048, ..., 16,384 by default (about 2 minutes on a quiet 2-core machine; ``--full``
goes on to 65,536, about 20 minutes):

- ``attnlab.attention_blocked(Q, K, V, causal=...)`` on (L, d) NumPy arrays and
  ``torch.nn.functional.scaled_dot_product_attention`` on the same data as (1, 1, L, d) tensors (no copy), called
  alternately (one attnlab call, one torch call, repeated), so that a change of load hits both; the median wall
  time and the median CPU time (all threads) of each, and their ratios attnlab / torch;
- the machine's GEMM rate (float32 and float64, 4096 x 4096 x 4096, all cores) for reference;
- where the time of one blocked tile goes, on one core: the two GEMMs of a block x block tile (d = 64) against
  NumPy's exp on the tile and the other element-wise passes (max, subtraction, row sum), so that one can see what
  NumPy's exp costs next to the products; and, per row, the "GEMM floor": the CPU time of those two products alone
  over all the tiles of the call (half for causal), against which both libraries' CPU times are set.

torch's CPU wheel runs its threads under GNU OpenMP (libgomp), whose worker threads, by libgomp's default, keep
spinning for a long while after a call ends: a call started next shares the cores, and the CPU time of the process,
with them, and in this alternation that next call is always attnlab's. The run therefore sets ``GOMP_SPINCOUNT`` to
``--spincount`` (default 10,000; unless the environment sets it) before torch starts, so torch's threads still spin
between the parallel regions of one call but go to sleep soon after it. The effect is measured once, in a child
process with libgomp's default (L = 4096, float32): each library timed right after a torch call and right after one
of its own (``spin_check`` in the JSON file, beside the same measurement in the run itself).

Records the date, the commit, os.getloadavg() before and after, the CPU count and the thread counts of torch and of
the BLAS (threadpoolctl) in the JSON file that the book's Performance page reads. The machine should be quiet: the
load average says whether it was.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

import attnlab
from attnlab._build_info import build_info



def cpu_model():
    """The CPU's model name (as benchmarks/attention.py, which needs matplotlib: torch's venv may not have it)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _clock(fn):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def alternate(fa, fb, repeats):
    """Median (wall, cpu) of fa and of fb, called alternately after one warm-up call each."""
    fa(), fb()
    a, b = [], []
    for _ in range(repeats):
        a.append(_clock(fa))
        b.append(_clock(fb))
    med = lambda xs, k: float(np.median([x[k] for x in xs]))  # noqa: E731
    return (med(a, 0), med(a, 1)), (med(b, 0), med(b, 1))


def best(fn, repeats):
    fn()
    return min(_clock(fn)[0] for _ in range(repeats))


def gemm_rate(dtype, rng, n=4096):
    A = rng.standard_normal((n, n)).astype(dtype)
    return 2 * n**3 / best(lambda: A @ A, 3) / 1e9


def tile_profile(dtype, rng, block=1024, d=64, repeats=10):
    """Seconds of each pass over one block x block tile on one core (BLAS limited to one thread)."""
    Q, K, V = (rng.standard_normal((block, d)).astype(dtype) for _ in range(3))
    S = Q @ K.T
    out = np.empty_like(S)
    m = S.max(axis=1, keepdims=True)
    with threadpool_limits(1, user_api="blas"):
        t = dict(gemm_scores=best(lambda: np.matmul(Q, K.T, out=out), repeats),
                 gemm_values=best(lambda: S @ V, repeats),
                 exp=best(lambda: np.exp(S, out=out), repeats),
                 row_max=best(lambda: S.max(axis=1), repeats),
                 subtract=best(lambda: np.subtract(S, m, out=out), repeats),
                 row_sum=best(lambda: S.sum(axis=1), repeats))
    return dict(dtype=np.dtype(dtype).name, block=block, d=d, seconds=t,
                exp_over_gemms=t["exp"] / (t["gemm_scores"] + t["gemm_values"]))


def spin_check(rng, d, block, L=4096, repeats=9):
    """Median wall and CPU seconds of each library's call at L, float32: right after a torch call (the two
    alternate) and right after a call of its own (each repeated alone), with ``GOMP_SPINCOUNT`` as the process has
    it."""
    import torch  # noqa: PLC0415
    import torch.nn.functional as F  # noqa: PLC0415

    Q, K, V = (rng.standard_normal((L, d)).astype(np.float32) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(a)[None, None] for a in (Q, K, V))
    fa = lambda: attnlab.attention_blocked(Q, K, V, block=block)  # noqa: E731
    ft = lambda: F.scaled_dot_product_attention(tq, tk, tv)  # noqa: E731
    (aw, ac), (tw, tc) = alternate(fa, ft, repeats)
    (aw1, ac1), _ = alternate(fa, fa, repeats)
    (tw1, tc1), _ = alternate(ft, ft, repeats)
    return dict(L=L, dtype="float32", repeats=repeats, gomp_spincount=os.environ.get("GOMP_SPINCOUNT"),
                attnlab_after_torch_seconds=aw, attnlab_after_torch_cpu_seconds=ac,
                attnlab_after_attnlab_seconds=aw1, attnlab_after_attnlab_cpu_seconds=ac1,
                torch_after_attnlab_seconds=tw, torch_after_attnlab_cpu_seconds=tc,
                torch_after_torch_seconds=tw1, torch_after_torch_cpu_seconds=tc1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="data/benchmarks/attention-vs-torch.json")
    ap.add_argument("--full", action="store_true", help="L up to 65,536 (about 20 minutes) instead of 16,384")
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--block", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--spincount", type=int, default=10_000,
                    help="GOMP_SPINCOUNT for torch's OpenMP threads, unless the environment sets it")
    ap.add_argument("--spin-check-only", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args(argv)
    if args.spin_check_only:
        print(json.dumps(spin_check(np.random.default_rng(args.seed), args.d, args.block)))
        return
    # the child first, with libgomp's default spinning; then this process's own setting, before torch starts
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    child = subprocess.run([sys.executable, __file__, "--spin-check-only", "--d", str(args.d), "--block",
                            str(args.block), "--seed", str(args.seed)], env=env, check=True, capture_output=True,
                           text=True)
    spin_default = json.loads(child.stdout.strip().splitlines()[-1])
    os.environ.setdefault("GOMP_SPINCOUNT", str(args.spincount))
    import torch  # noqa: PLC0415
    import torch.nn.functional as F  # noqa: PLC0415

    rng = np.random.default_rng(args.seed)
    load_start, date = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    t_start = time.perf_counter()
    d, max_L = args.d, 65_536 if args.full else 16_384
    gemm = {dt.__name__: gemm_rate(dt, rng) for dt in (np.float32, np.float64)}
    print("GEMM GFLOP/s:", {k: round(v, 1) for k, v in gemm.items()}, flush=True)
    profile = [tile_profile(dt, rng, args.block, d) for dt in (np.float32, np.float64)]
    for p in profile:
        print(f"tile {p['dtype']}: " + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in p["seconds"].items())
              + f"; exp / GEMMs = {p['exp_over_gemms']:.2f}", flush=True)
    gemms = {p["dtype"]: p["seconds"]["gemm_scores"] + p["seconds"]["gemm_values"] for p in profile}
    spin = dict(default=spin_default, run=spin_check(rng, d, args.block))
    for k, v in spin.items():
        print(f"spin check ({k}, GOMP_SPINCOUNT={v['gomp_spincount']}): "
              + ", ".join(f"{n} {x * 1e3:.1f} ms" for n, x in v.items() if n.endswith("seconds")), flush=True)
    rows = []
    for dtype in (np.float32, np.float64):
        L = 1024
        while L <= max_L:
            Q, K, V = (rng.standard_normal((L, d)).astype(dtype) for _ in range(3))
            tq, tk, tv = (torch.from_numpy(a)[None, None] for a in (Q, K, V))
            repeats = 7 if L <= 4096 else (3 if L <= 16_384 else 1)
            for causal in (False, True):
                (aw, ac), (tw, tc) = alternate(
                    lambda: attnlab.attention_blocked(Q, K, V, causal=causal, block=args.block),
                    lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal), repeats)
                flops = 4 * L * L * d / (2 if causal else 1)
                row = dict(dtype=np.dtype(dtype).name, L=L, d=d, causal=causal, repeats=repeats,
                           attnlab_seconds=aw, torch_seconds=tw, attnlab_cpu_seconds=ac, torch_cpu_seconds=tc,
                           ratio=aw / tw, cpu_ratio=ac / tc, attnlab_gflops=flops / aw / 1e9,
                           torch_gflops=flops / tw / 1e9, load=os.getloadavg()[0],
                           # the CPU time of the two matrix products alone, one-core tile rate x number of tiles:
                           # no implementation built on these GEMMs can use less CPU time
                           gemm_floor_cpu_seconds=gemms[np.dtype(dtype).name] * (L / args.block) ** 2
                           / (2 if causal else 1))
                row["torch_cpu_over_gemm_floor"] = tc / row["gemm_floor_cpu_seconds"]
                row["attnlab_cpu_over_gemm_floor"] = ac / row["gemm_floor_cpu_seconds"]
                rows.append(row)
                print(f"{row['dtype']} L={L:>6} causal={causal!s:>5}: attnlab {aw:8.4f} s, torch {tw:8.4f} s, "
                      f"ratio {row['ratio']:.2f} (CPU time {row['cpu_ratio']:.2f}), CPU / GEMM floor: attnlab "
                      f"{row['attnlab_cpu_over_gemm_floor']:.2f}, torch {row['torch_cpu_over_gemm_floor']:.2f}, "
                      f"load {row['load']:.2f}",
                      flush=True)
            L *= 2
    info = build_info()
    blas = [{k: v for k, v in i.items() if k in ("internal_api", "version", "num_threads", "architecture")}
            for i in threadpool_info()]
    out = dict(attnlab=info["version"], git_commit=info["git_commit"], git_dirty=info["git_dirty"],
               python=platform.python_version(), numpy=np.__version__, torch=torch.__version__,
               machine=platform.machine(), cpu=cpu_model(), cores=len(os.sched_getaffinity(0)),
               torch_threads=torch.get_num_threads(), blas=blas,
               parameters=dict(d=d, seed=args.seed, max_L=max_L, block=args.block, full=args.full),
               date=date, loadavg_start=list(load_start),
               loadavg_end=list(os.getloadavg()), wall_seconds=time.perf_counter() - t_start,
               gomp_spincount=os.environ.get("GOMP_SPINCOUNT"), omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"),
               gemm_gflops=gemm, tile_profile=profile,
               spin_check=spin, rows=rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out} in {out['wall_seconds']:.0f} s")


if __name__ == "__main__":
    main()
