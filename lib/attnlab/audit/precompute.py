"""Compute every verdict and every experiment the book's pages read, in several processes, before the pages run.

``python -m attnlab.audit.precompute [--jobs 2] [--scale book] [--seed 0] [--profile FILE]``

The work is cut into independent units: each claim's check (through :func:`attnlab.audit.claims.evaluate`,
which stores the verdict and, through :func:`attnlab.audit.cache.memoize`, every experiment it runs) and each
experiment a chapter calls directly (found in the chapters' code cells, :func:`page_calls`), grouped by audit
module; groups that share an experiment are merged, so no experiment is computed twice; they are dealt to
``--jobs`` processes
longest first (their cost read from the experiment profile, ``data/benchmarks/experiment-profile.json``, written
by ``scripts/profile_experiments.py``), and each process runs BLAS on one thread. Results land in the disk
cache (``$ATTNLAB_CACHE_DIR``), so a page that needs them reads them back instead of computing them. Nothing
here changes a result: the units are the same function calls the pages make, with the same arguments.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["page_calls", "units", "partition", "run_units", "main"]

#: The book's sources: the working directory when it holds the chapters (the build runs there), else the checkout
#: this package lives in.
ROOT = Path.cwd() if (Path.cwd() / "notebooks").is_dir() else Path(__file__).resolve().parents[3]
PROFILE = ROOT / "data" / "benchmarks" / "experiment-profile.json"
_IMPORT = re.compile(r"from attnlab\.audit import (\w+) as (\w+)")
_PRESET = re.compile(r"^P = preset\((\w+)\.PRESETS, SCALE\)", re.M)


def _pages() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.ipynb"))


def _code(path: Path) -> str:
    nb = json.loads(path.read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


def _call_args(text: str, start: int) -> str | None:
    """The argument text of the call whose opening parenthesis is at ``start`` (balanced parentheses)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
    return None


def page_calls(scale: str = "book", seed: int = 0) -> list[dict]:
    """Every memoized experiment a chapter calls directly, as ``dict(page, name, module, qualname, args, kwargs)``.

    Read from the code cells: ``from attnlab.audit import M as alias``, ``P = preset(alias.PRESETS, SCALE)`` and
    calls ``alias.f(...)`` of a memoized ``f`` whose arguments are expressions of ``P`` and ``SEED`` (``seed``
    here). A call whose arguments need anything else is left to the page. Duplicates are dropped."""
    import importlib  # noqa: PLC0415

    from .cache import EXPERIMENTS  # noqa: PLC0415
    from .scale import preset  # noqa: PLC0415

    out, seen = [], set()
    for path in _pages():
        code = _code(path)
        aliases = {alias: mod for mod, alias in _IMPORT.findall(code)}
        m = _PRESET.search(code)
        if not aliases or not m or m.group(1) not in aliases:
            continue
        modules = {a: importlib.import_module(f"attnlab.audit.{mod}") for a, mod in aliases.items()}
        P = preset(modules[m.group(1)].PRESETS, scale)
        for alias, module in modules.items():
            for hit in re.finditer(rf"\b{alias}\.(\w+)\(", code):
                fn = getattr(getattr(module, hit.group(1), None), "__wrapped__", None)
                name = f"{fn.__module__}:{fn.__qualname__}" if fn is not None else ""
                if name not in EXPERIMENTS:
                    continue
                args = _call_args(code, hit.end() - 1)
                try:
                    a, k = eval(f"_f({args})", {"_f": lambda *a, **k: (a, k), "P": P, "SEED": seed})  # noqa: S307
                except Exception:  # noqa: BLE001  (arguments the page computes itself: left to the page)
                    continue
                k = {x: v for x, v in k.items() if x != "progress"}
                key = json.dumps([name, a, k], sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                out.append(dict(page=path.stem, name=name, module=fn.__module__, qualname=fn.__qualname__,
                                args=list(a), kwargs=k, key=_key(name, a, k)))
    return out


def _key(name: str, args, kwargs) -> str:
    module, qualname = name.split(":")
    key = json.dumps([module, qualname, list(args), kwargs], sort_keys=True)
    return f"{name}#{hashlib.sha256(key.encode()).hexdigest()[:24]}"


def units(scale: str = "book", seed: int = 0, profile: dict | None = None) -> list[dict]:
    """The independent pieces of work, each ``dict(claims=[IDs], calls=[keys of page calls], cost=seconds)``.

    One unit per audit module: its claims (by their check's module) and the experiments the pages call from it,
    since a chapter's claims and page share experiments; units that the profile shows reading a common experiment
    (by name, e.g. the sphere-2 gap of chapters 7 and 8) are merged too, so no experiment is computed by two
    processes. The cost is the profiled CPU time of the unit's experiments (by name: an experiment keeps its cost
    across scales and presets; one the profile does not know costs the median)."""
    from .claims import CLAIMS  # noqa: PLC0415

    profile = profile or {}
    name = lambda k: k.split("#")[0]  # noqa: E731  ("module:qualname#digest" -> "module:qualname")
    short = lambda k: name(k).split(":", 1)[-1]  # noqa: E731  (the qualname: survives a module split)
    uses = {c["id"]: {name(k) for k in c.get("uses", [])} for c in profile.get("claims", [])}
    cost: dict[str, float] = {}
    for e in profile.get("experiments", []):  # an experiment's own CPU time is what it costs a one-thread process
        cost[name(e["key"])] = cost.get(name(e["key"]), 0.0) + e.get("self_cpu_s", e.get("cpu_s", 0.0))
    by_short = {short(k): c for k, c in cost.items()}
    owner = {}  # an experiment of the profile -> its module, so a unit is charged for its module's experiments
    for e in profile.get("experiments", []):
        owner.setdefault(name(e["key"]).split(":")[0].rsplit(".", 1)[-1], set()).add(name(e["key"]))
    nodes = []
    for c in CLAIMS:
        if c.check:
            module = c.check.split(":")[0].rsplit(".", 1)[-1]
            nodes.append(dict(claims=[c.id], calls=[], uses=uses.get(c.id, set()) | {f"module {module}"}))
    for call in page_calls(scale, seed):
        module = call["module"].rsplit(".", 1)[-1]
        nodes.append(dict(claims=[], calls=[call["key"]], uses={call["name"], f"module {module}"}))
    merged: list[dict] = []
    for node in nodes:  # union of the nodes that share a module or an experiment
        overlapping = [u for u in merged if u["uses"] & node["uses"]]
        for u in overlapping:
            merged.remove(u)
            node = dict(claims=u["claims"] + node["claims"], calls=u["calls"] + node["calls"],
                        uses=u["uses"] | node["uses"])
        merged.append(node)
    known = sorted(cost.values())
    median = known[len(known) // 2] if known else 1.0
    for u in merged:
        mods = {k.split(" ", 1)[1] for k in u["uses"] if k.startswith("module ")}
        names = ({k for k in u["uses"] if not k.startswith("module ")}
                 | set().union(*(owner.get(m, set()) for m in mods)))
        u["cost"] = (sum(cost.get(k, by_short.get(short(k), 0.0)) for k in names)
                     or median * max(1, len(u["claims"]) + len(u["calls"])))
        u["uses"] = sorted(u["uses"])
    return merged


def partition(items: list[dict], jobs: int) -> list[list[dict]]:
    """Longest processing time first: each unit, most expensive first, to the process with the least work."""
    bins: list[list[dict]] = [[] for _ in range(jobs)]
    load = [0.0] * jobs
    for u in sorted(items, key=lambda u: -u["cost"]):
        i = load.index(min(load))
        bins[i].append(u)
        load[i] += u["cost"]
    return bins


def run_units(todo: list[dict], scale: str, seed: int, record: Path | None = None) -> list[dict]:
    """Run the units in this process: evaluate their claims and make their page calls (results go to the cache).

    Returns (and with ``record`` writes to that JSON file) every experiment this process computed, with its wall
    and CPU time (:func:`attnlab.audit.cache.observe`): each build's precompute step is also a profile."""
    import importlib  # noqa: PLC0415

    from .cache import observe  # noqa: PLC0415
    from .claims import evaluate  # noqa: PLC0415

    computed, uses = [], {}
    calls = {c["key"]: c for c in page_calls(scale, seed)}  # the arguments as the pages build them (not via JSON)
    who = [None]

    def note(ev):
        key = f"{ev['name']}#{ev['key']}"
        if who[0] is not None:
            uses.setdefault(who[0], set()).add(key)
        if not ev["hit"]:
            computed.append(dict(key=key, experiment=ev["name"],
                                 **{k: round(ev[k], 2) for k in ("wall_s", "cpu_s", "self_wall_s", "self_cpu_s")}))

    stop = observe(note)
    try:
        for u in todo:
            for key in u["calls"]:
                call = calls[key]
                fn = getattr(importlib.import_module(call["module"]), call["qualname"])
                fn(*call["args"], **call["kwargs"])
            for cid in u["claims"]:
                who[0] = cid
                evaluate(cid, scale, seed=seed)
                who[0] = None
    finally:
        stop()
        if record is not None:  # what was computed, and which experiments each claim read (for the merging)
            for e in computed:
                e["used_by"] = sorted(c for c, ks in uses.items() if e["key"] in ks)
            record.write_text(json.dumps(computed, indent=1))
    return computed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m attnlab.audit.precompute", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--scale", default=None, help="smoke, book or paper (default: $ATTNLAB_SCALE, else book)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", type=Path, default=PROFILE, help="experiment profile for the costs")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # a JSON file of units to run here
    args = ap.parse_args(argv)
    from .scale import get_scale  # noqa: PLC0415

    scale = get_scale(args.scale)
    if args.worker:
        run_units(json.loads(args.worker.read_text()), scale, args.seed,
                  record=args.worker.with_name(args.worker.stem + "-profile.json"))
        return 0
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    profile = json.loads(args.profile.read_text()) if args.profile.exists() else None
    bins = [b for b in partition(units(scale, args.seed, profile), args.jobs) if b]
    from .cache import cache_dir  # noqa: PLC0415

    work = cache_dir() / "precompute"
    work.mkdir(parents=True, exist_ok=True)
    # several processes: BLAS on one thread each (no oversubscription); one process: BLAS as the pages have it.
    # The timings the chapters show as illustrations are measured in these processes.
    env = dict(os.environ, **(dict(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
                              if len(bins) > 1 else {}))
    t0, procs = time.perf_counter(), []
    for i, b in enumerate(bins):
        f = work / f"worker-{i}.json"
        f.write_text(json.dumps(b))
        procs.append(subprocess.Popen([sys.executable, "-m", "attnlab.audit.precompute", "--scale", scale,
                                       "--seed", str(args.seed), "--worker", str(f)], env=env))
        print(f"precompute worker {i}: {sum(len(u['claims']) for u in b)} claims, "
              f"{sum(len(u['calls']) for u in b)} page calls, profiled {sum(u['cost'] for u in b):.0f} s", flush=True)
    codes = [p.wait() for p in procs]
    done = []
    for i in range(len(bins)):
        f = work / f"worker-{i}-profile.json"
        if f.exists():
            done += [dict(e, worker=i) for e in json.loads(f.read_text())]
    (work / "profile.json").write_text(json.dumps(sorted(done, key=lambda e: -e["self_cpu_s"]), indent=1))
    print(f"precomputed {len(done)} {scale} experiments and their verdicts in {time.perf_counter() - t0:.0f} s "
          f"with {len(bins)} processes ({sum(e['self_cpu_s'] for e in done):.0f} s CPU); slowest by CPU: "
          + ", ".join(f"{e['experiment'].split('.')[-1]} {e['self_cpu_s']:.0f} s" for e in
                      sorted(done, key=lambda e: -e["self_cpu_s"])[:5]), flush=True)
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
