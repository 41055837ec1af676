"""Measure how long each chapter takes at each scale, from an empty cache, and write data/benchmarks/chapter-times.json.

    python scripts/time_chapters.py --scale smoke book [--chapters 01 09]

Each page of a chapter (`notebooks/NN-*.ipynb`: the chapter page and its sub-pages, such as 07-rank-upper-law; a
chapter number in --chapters selects them all) runs in its own kernel with a fresh experiment cache; the file
records the wall time and the CPU time of the kernel (all its threads), the machine and its load average. The Colab edition's first cell quotes these
times (scripts/make_colab.py), so a reader knows what a run costs before starting it.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from attention import cpu_model  # noqa: E402  (benchmarks/attention.py: the machine's CPU, as the benchmarks record it)
OUT = ROOT / "data" / "benchmarks" / "chapter-times.json"

RUN_ONE = r'''
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], 4)
NotebookClient(nb, timeout=3600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
'''


def time_chapter(path: Path, scale: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ATTNLAB_SCALE=scale, ATTNLAB_CACHE_DIR=str(Path(tmp) / "cache"),
                   ATTNLAB_FIGURE_DIR=str(Path(tmp) / "figures"))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", RUN_ONE, str(path), str(path.parent)], env=env, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dict(wall_s=round(wall, 1), cpu_s=round(cpu, 1), load_after=round(os.getloadavg()[0], 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", nargs="+", default=["smoke", "book"], choices=["smoke", "book", "paper"])
    ap.add_argument("--chapters", nargs="*", help="chapter numbers (default: all)")
    args = ap.parse_args(argv)
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    data.update(machine=f"{cpu_model()}, {os.cpu_count()} cores", date=time.strftime("%Y-%m-%d"),
                note="wall and CPU seconds of one chapter from an empty cache; CPU counts all threads")
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if args.chapters:
        paths = [p for p in paths if p.name[:2] in args.chapters]
    for path in paths:
        for scale in args.scale:
            r = time_chapter(path, scale)
            data.setdefault(path.stem, {})[scale] = r["wall_s"]
            data.setdefault("detail", {}).setdefault(path.stem, {})[scale] = r
            print(f"{path.stem:28s} {scale:6s} wall {r['wall_s']:7.1f} s  cpu {r['cpu_s']:7.1f} s  "
                  f"load {r['load_after']}", flush=True)
            OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
