"""Benchmark exact attention on this machine: blocked (online softmax) against dense, and against the GEMM rate.

    python benchmarks/attention.py [--out data/benchmarks/attention-cpu.json] [--max-L 65536]

Measures, in one run:
- the machine's float32 GEMM rate (best of several 4096³ products, all cores);
- ``attention_blocked`` (float32, d = 64) over L, as attention FLOP/s (4·L²·d per call) and as a fraction
  of the GEMM rate; its peak traced memory (tracemalloc, NumPy's allocations) at every L;
- dense ``attention`` where its L×L matrix fits (L <= 16,384), the same way;
- the maximum resident memory of a fresh process that makes one blocked call at the largest L;
- the load average (os.getloadavg()) at the start and at the end: timings from a shared machine are noisy.
Writes a JSON file that the book's performance page reads.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

import attnlab
from attnlab.plotting import provenance


def best_time(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def peak_bytes(fn):
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="data/benchmarks/attention-cpu.json")
    ap.add_argument("--max-L", type=int, default=65_536)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    d = args.d
    load_start = os.getloadavg()

    n = 4096
    A = rng.standard_normal((n, n), dtype=np.float32)
    A @ A  # warm-up
    gemm = 2 * n**3 / best_time(lambda: A @ A, 5)
    A = None  # free the matrix (the timed lambda is done with it)
    print(f"GEMM float32: {gemm / 1e9:.1f} GFLOP/s")

    rows = []
    L = 1024
    while L <= args.max_L:
        Q, K, V = (rng.standard_normal((L, d), dtype=np.float32) for _ in range(3))
        flops = 4 * L * L * d
        reps = 5 if L <= 8192 else (2 if L <= 32768 else 1)
        attnlab.attention_blocked(Q[:1024], K[:1024], V[:1024])  # warm-up (thread pool, BLAS)
        for kind, fn in (("blocked", lambda: attnlab.attention_blocked(Q, K, V)),
                         ("blocked-causal", lambda: attnlab.attention_blocked(Q, K, V, causal=True)),
                         ("dense", lambda: attnlab.attention(Q, K, V))):
            if kind == "dense" and L > 16_384:
                continue
            if kind == "blocked-causal" and L not in (8192, args.max_L):
                continue
            t = best_time(fn, reps)
            work = flops / 2 if kind.endswith("causal") else flops
            row = dict(kind=kind, L=L, d=d, seconds=t, gflops=work / t / 1e9, fraction_of_gemm=work / t / gemm,
                       peak_bytes=peak_bytes(fn))
            rows.append(row)
            print(f"{kind:>15} L={L:>6}: {t:8.3f} s  {row['gflops']:7.1f} GFLOP/s  "
                  f"{row['fraction_of_gemm']:.0%} of GEMM  peak {row['peak_bytes'] / 2**20:8.1f} MiB")
        L *= 2

    # resident memory of a fresh process that makes one blocked call at the largest L (inputs included)
    # (VmHWM of /proc/self/status: unlike ru_maxrss it is not inherited from the forking parent)
    probe = ("import re, numpy as np, attnlab; L = %d; rng = np.random.default_rng(0); "
             "Q, K, V = (rng.standard_normal((L, %d), dtype=np.float32) for _ in range(3)); "
             "attnlab.attention_blocked(Q, K, V); "
             "print(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))") % (args.max_L, d)
    rss_kib = int(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    print(f"max resident memory of a process making one blocked call at L={args.max_L}: {rss_kib / 2**10:.0f} MiB")
    blas = [{k: v for k, v in i.items() if k in ("internal_api", "version", "num_threads", "architecture")}
            for i in threadpool_info()]
    out = dict(provenance(dict(d=d, seed=args.seed, max_L=args.max_L, dtype="float32", block=1024)),
               cpu=cpu_model(), cores=len(os.sched_getaffinity(0)), blas=blas, gemm_gflops=gemm / 1e9,
               max_rss_bytes_blocked_at_max_L=rss_kib * 1024,
               date=time.strftime("%Y-%m-%d"), loadavg_start=list(load_start), loadavg_end=list(os.getloadavg()),
               rows=rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
