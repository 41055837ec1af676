"""Time every chapter page alone at each scale, from an empty cache, and write data/benchmarks/chapter-times.json.

    python scripts/time_chapters.py [--scale book] [--pages 02-softmax-chain 07] [--jobs 1] [--blas-threads 1]

Every ``.ipynb`` page of ``_toc.yml`` (a chapter page or one of its section pages; ``--pages`` takes page names such
as ``07-rank-upper-law`` or chapter numbers such as ``07``, which select all the pages of that chapter) runs, one
after another, in a kernel of its own with a fresh experiment cache (``ATTNLAB_CACHE_DIR`` in a new temporary
folder) and no Jupyter execution cache, so every experiment the page reads is computed inside that page's run:
what a reader who opens that page alone waits for. The file records, per page and scale, the wall time of the run
(kernel start included), the CPU time of the kernel (all its threads and the processes it waited for, read by a
cell appended after the page's last), the date and the load average (``os.getloadavg()``: 1, 5 and 15 minutes)
before and after, with the machine. On a loaded machine the wall times are long and the CPU times are the figure
to compare, except that BLAS threads waiting for a core count as busy: on a loaded machine ``--blas-threads 1``
(BLAS and OpenMP on one thread in the kernel, recorded with each entry) gives CPU times close to what the page
costs on a quiet machine. The Reproducibility page shows the table; the Colab edition's first cell quotes the wall times
(scripts/make_colab.py). Pages run one at a time (``--jobs 1``, the only value): two at once would share the cores
and time each other.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))
from attention import cpu_model  # noqa: E402  (benchmarks/attention.py: the machine's CPU, as the benchmarks record it)
from execute_pages import pages as toc_pages  # noqa: E402  (the .ipynb pages of _toc.yml, in its order)

OUT = ROOT / "data" / "benchmarks" / "chapter-times.json"
MARK = "ATTNLAB-KERNEL-CPU "

# Executes one page (argv[1]) in its folder (argv[2]) and prints the kernel's own CPU seconds, read by a last cell.
RUN_ONE = r'''
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], 4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import resource as _r\n"
    "_s, _c = _r.getrusage(_r.RUSAGE_SELF), _r.getrusage(_r.RUSAGE_CHILDREN)\n"
    "print(_s.ru_utime + _s.ru_stime + _c.ru_utime + _c.ru_stime)"))
NotebookClient(nb, timeout=3600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
print("''' + MARK + r'''" + nb.cells[-1].outputs[0]["text"].strip(), flush=True)
'''


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def time_page(path: Path, scale: str, blas_threads: int | None = None) -> dict:
    """Run one page at ``scale`` from an empty experiment cache; its wall and kernel CPU seconds and the load."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ATTNLAB_SCALE=scale, ATTNLAB_CACHE_DIR=str(Path(tmp) / "cache"),
                   ATTNLAB_FIGURE_DIR=str(Path(tmp) / "figures"))
        if blas_threads:
            env.update({v: str(blas_threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
        load_before = _load()
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-c", RUN_ONE, str(path), str(path.parent)], env=env, check=True,
                             capture_output=True, text=True)
        wall = time.perf_counter() - t0
    cpu = next(float(line[len(MARK):]) for line in run.stdout.splitlines() if line.startswith(MARK))
    return dict(wall_s=round(wall, 1), cpu_s=round(cpu, 1), load_before=load_before, load_after=_load(),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), blas_threads=blas_threads or "default")


def select(paths: list[Path], names) -> list[Path]:
    """The pages named (a page's file name without ``.ipynb``, or a chapter number for all its pages)."""
    if not names:
        return paths
    chosen = [p for p in paths if p.stem in names or p.name[:2] in names]
    unknown = [n for n in names if not any(p.stem == n or p.name[:2] == n for p in paths)]
    if unknown:
        raise SystemExit(f"no such page or chapter: {', '.join(unknown)}")
    return chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", nargs="+", default=["book"], choices=["smoke", "book", "paper"])
    ap.add_argument("--pages", nargs="+", help="pages or chapter numbers (default: every page)")
    ap.add_argument("--jobs", type=int, default=1, choices=[1], help="pages at once (1: one at a time)")
    ap.add_argument("--blas-threads", type=int, help="BLAS and OpenMP threads in the kernel (default: theirs)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    paths = select(toc_pages(), args.pages)
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    detail = {stem: {s: r for s, r in scales.items() if "date" in r}  # entries of this script: dated, one page each
              for stem, scales in data.get("detail", {}).items()}
    data = dict(machine=f"{cpu_model()}, {os.cpu_count()} cores",
                note="wall seconds of one page run alone (kernel start included) and CPU seconds of its kernel (all "
                     "threads, and the processes it waited for), from an empty experiment cache and no Jupyter "
                     "cache; load averages (1, 5, 15 min) before and after each run")
    for path in paths:
        for scale in args.scale:
            r = time_page(path, scale, args.blas_threads)
            detail.setdefault(path.stem, {})[scale] = r
            print(f"{path.stem:30s} {scale:6s} wall {r['wall_s']:7.1f} s  cpu {r['cpu_s']:7.1f} s  "
                  f"load {r['load_before'][0]:.2f} -> {r['load_after'][0]:.2f}", flush=True)
            dates = sorted(x["date"] for scales in detail.values() for x in scales.values())
            out = dict(data, date=dates[-1][:10], first_date=dates[0][:10],
                       **{stem: {s: x["wall_s"] for s, x in scales.items()} for stem, scales in detail.items()
                          if scales}, detail={stem: scales for stem, scales in detail.items() if scales})
            args.out.write_text(json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
