"""Profile every memoized experiment at one scale from an empty cache: data/benchmarks/experiment-profile.json.

    python scripts/profile_experiments.py [--scale book] [--blas-threads 1] [--out data/benchmarks/experiment-profile.json]
    python scripts/profile_experiments.py --from-build _build/.attnlab-cache/precompute/profile.json --load 12.3

One process, a fresh experiment cache, BLAS at its default threads (``--blas-threads 1``: on one thread, as each of
the build's precompute processes runs it; on a loaded machine BLAS threads that wait for a core inflate the CPU
times). Every claim's check runs in registry order
(through ``evaluate``), then every experiment a chapter calls directly (``attnlab.audit.precompute.page_calls``);
each memoized call that computes (a cache miss) is recorded with its wall time and its CPU time (the whole
process, all threads), inclusive and without the memoized calls it makes itself, with the claim or page that
first needed it and every claim that uses it. The file records the date, the commit, the machine and its load
average (``os.getloadavg()``) before and after: on a loaded machine the wall times are long and the CPU times
are the comparable figure. The Reproducibility page shows the table; ``python -m attnlab.audit.precompute``
balances its processes by these costs. ``--from-build`` writes the same file from what a cold build's precompute
step recorded instead (two processes, BLAS on one thread each, every experiment computed once).
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
from attention import cpu_model  # noqa: E402  (benchmarks/attention.py: the machine's CPU, as the benchmarks record it)

OUT = ROOT / "data" / "benchmarks" / "experiment-profile.json"


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "lib"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + ("+" if dirty else "")
    except OSError:
        return "unknown"


def profile(scale: str, seed: int = 0, save=None, ids=None, pages_first=False) -> dict:
    from attnlab.audit import cache
    from attnlab.audit.claims import CLAIMS, evaluate
    from attnlab.audit.precompute import page_calls

    experiments: dict[str, dict] = {}
    current: dict = {}

    def record(ev):
        k = f"{ev['name']}#{ev['key']}"
        current.setdefault("uses", set()).add(k)
        if ev["hit"]:
            return
        module, qualname = ev["name"].split(":")
        experiments[k] = dict(key=k, module=module.rsplit(".", 1)[-1], experiment=qualname,
                              wall_s=round(ev["wall_s"], 2), cpu_s=round(ev["cpu_s"], 2),
                              self_wall_s=round(ev["self_wall_s"], 2), self_cpu_s=round(ev["self_cpu_s"], 2),
                              nested=ev["depth"] > 0, first_needed_by=current["who"])

    stop = cache.observe(record)
    claims, pages = [], []
    t0, c0 = time.perf_counter(), time.process_time()
    import importlib

    def run_pages():
        for call in page_calls(scale, seed):
            current.clear()
            current["who"] = call["page"]
            w, u = time.perf_counter(), time.process_time()
            getattr(importlib.import_module(call["module"]), call["qualname"])(*call["args"], **call["kwargs"])
            pages.append(dict(page=call["page"], experiment=call["name"], wall_s=round(time.perf_counter() - w, 2),
                              cpu_s=round(time.process_time() - u, 2)))
        if save:
            save(_result(claims, pages, experiments, t0, c0), partial=True)

    if pages_first:
        run_pages()
    order = [c for c in CLAIMS if c.check]
    if ids:
        rank = {i.casefold(): k for k, i in enumerate(ids)}
        order.sort(key=lambda c: rank.get(c.id.casefold(), len(rank)))
    for c in order:
        current.clear()
        current["who"] = c.id
        w, u = time.perf_counter(), time.process_time()
        v = evaluate(c.id, scale, seed=seed, cache=True)
        claims.append(dict(id=c.id, check=c.check, verdict=v.verdict, wall_s=round(time.perf_counter() - w, 2),
                           cpu_s=round(time.process_time() - u, 2), uses=sorted(current.get("uses", ()))))
        print(f"{c.id:18s} {claims[-1]['wall_s']:7.1f} s wall {claims[-1]['cpu_s']:7.1f} s CPU", flush=True)
        if save:  # after every claim, so a run stopped early leaves what it measured (marked partial)
            save(_result(claims, pages, experiments, t0, c0), partial=True)
    if not pages_first:
        run_pages()
    stop()
    return _result(claims, pages, experiments, t0, c0)


def _result(claims, pages, experiments, t0, c0) -> dict:
    for e in experiments.values():
        e["used_by"] = sorted(c["id"] for c in claims if e["key"] in c["uses"])
    return dict(claims=claims, page_calls=pages,
                experiments=sorted(experiments.values(), key=lambda e: -e["self_wall_s"]),
                total_wall_s=round(time.perf_counter() - t0, 1), total_cpu_s=round(time.process_time() - c0, 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="book", choices=["smoke", "book", "paper"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--ids", nargs="+", help="run these claims first, in this order (the others follow)")
    ap.add_argument("--pages-first", action="store_true", help="the chapters' own experiments before the claims")
    ap.add_argument("--blas-threads", type=int, help="limit BLAS (and OpenMP) to this many threads")
    ap.add_argument("--from-build", type=Path, help="a build's precompute/profile.json to convert instead of running")
    ap.add_argument("--load", type=float, nargs=3, help="with --from-build: the load averages during that build")
    ap.add_argument("--commit", help="with --from-build: the commit that build ran")
    ap.add_argument("--load-after", type=float, nargs=3, help="with --from-build: the load averages at its end")
    ap.add_argument("--partial", action="store_true", help="with --from-build: the precompute step was stopped early")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()

    def save(result, partial=False):
        out = dict(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit=_commit(),
                   machine=f"{cpu_model()}, {os.cpu_count()} cores", scale=args.scale, seed=args.seed,
                   load_before=[round(x, 2) for x in load_before],
                   load_after=[round(x, 2) for x in os.getloadavg()], partial=partial,
                   method="one process, " + (f"BLAS on {args.blas_threads} thread{'s' * (args.blas_threads > 1)}"
                                             if args.blas_threads else "BLAS at its default threads"),
                   note="wall and CPU seconds of each memoized experiment computed from an empty cache, one process; "
                        "CPU counts all threads of the process; self_* exclude the memoized calls an experiment "
                        "makes; on a loaded machine compare CPU times", **result)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
        return out

    if args.from_build:
        rows, seen = [], set()
        for e in json.loads(args.from_build.read_text()):  # an experiment two processes both computed: once
            if e["key"] not in seen:
                seen.add(e["key"])
                rows.append(e)
        exps = [dict(key=e["key"], module=e["experiment"].split(":")[0].rsplit(".", 1)[-1],
                     experiment=e["experiment"].split(":")[1], wall_s=e["wall_s"], cpu_s=e["cpu_s"],
                     self_wall_s=e["self_wall_s"], self_cpu_s=e["self_cpu_s"],
                     first_needed_by=(e.get("used_by") or [f"precompute process {e['worker'] + 1}"])[0],
                     used_by=e.get("used_by", [])) for e in rows]
        load = args.load or [round(x, 2) for x in os.getloadavg()]
        load_after = args.load_after or load
        out = dict(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(args.from_build.stat().st_mtime)),
                   commit=args.commit or _commit(), machine=f"{cpu_model()}, {os.cpu_count()} cores",
                   scale=args.scale, seed=args.seed, load_before=load, load_after=load_after, partial=args.partial,
                   method="a cold build's precompute step: two processes at once, BLAS on one thread each",
                   note="wall and CPU seconds of each memoized experiment computed from an empty cache; CPU counts "
                        "all threads of the process; self_* exclude the memoized calls an experiment makes; on a "
                        "loaded machine compare CPU times",
                   claims=[dict(id=c, uses=sorted(e["key"] for e in rows if c in e.get("used_by", ())))
                           for c in sorted({c for e in rows for c in e.get("used_by", ())})], page_calls=[],
                   experiments=sorted(exps, key=lambda e: -e["self_cpu_s"]),
                   total_wall_s=round(sum(e["self_wall_s"] for e in exps), 1),
                   total_cpu_s=round(sum(e["self_cpu_s"] for e in exps), 1))
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
        print(f"{len(exps)} experiments from {args.from_build}: {args.out}")
        return 0
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(args.blas_threads):  # None: no limit
        os.environ["ATTNLAB_CACHE_DIR"] = str(Path(tmp) / "cache")  # from an empty cache
        out = save(profile(args.scale, args.seed, save, args.ids, args.pages_first))
    print(f"{len(out['experiments'])} experiments, {out['total_wall_s']} s wall, {out['total_cpu_s']} s CPU, "
          f"load {out['load_before'][0]:.2f} -> {out['load_after'][0]:.2f}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
