"""Execute the book's notebook pages in parallel into jupyter-book's execution cache, before the build reads them.

jupyter-book (``execute_notebooks: cache`` in _config.yml) executes the pages one after another; most of a page's
time is the kernel's start, its imports and its figures, which two processes overlap. This script executes every
``.ipynb`` page of ``_toc.yml`` that the cache does not hold yet, ``--jobs`` at a time, exactly as myst-nb does it
(``jupyter_cache``'s ``single_nb_execution`` in the notebook's folder, the configured timeout, errors not allowed),
and stores each executed notebook in ``_build/.jupyter_cache``; the build then finds every page there ("Using cached
notebook") and executes only the Markdown pages. A page that fails here is left out of the cache, so the build
executes it again and reports its error as usual.

Usage: ``python scripts/execute_pages.py [--jobs N]`` (from the repository root, with the build's environment).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]


def pages() -> list[Path]:
    """The ``.ipynb`` pages of the table of contents, in its order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    out: list[Path] = []

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                p = ROOT / f"{e['file']}.ipynb"
                if p.exists():
                    out.append(p)
            walk(e.get("sections"))
            walk(e.get("chapters"))

    walk(toc.get("parts"))
    return out


def _execute(path: str, timeout: int):
    from jupyter_cache.executors.utils import single_nb_execution  # noqa: PLC0415

    nb = nbformat.read(path, as_version=4)
    result = single_nb_execution(nb, cwd=str(Path(path).parent), allow_errors=False, timeout=timeout,
                                 meta_override=True)
    if result.err is not None:
        return path, None, result.time, f"{result.err.__class__.__name__}: {result.err}"
    return path, nbformat.writes(nb), result.time, None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=str(ROOT / "_build" / ".jupyter_cache"))
    args = ap.parse_args(argv)
    from jupyter_cache import get_cache  # noqa: PLC0415
    from jupyter_cache.base import CacheBundleIn  # noqa: PLC0415

    config = yaml.safe_load((ROOT / "_config.yml").read_text()).get("execute", {})
    timeout = int(config.get("timeout", 1800))
    cache = get_cache(args.cache)
    todo = []
    for p in pages():
        try:
            cache.match_cache_notebook(nbformat.read(p, as_version=4))
        except KeyError:
            todo.append(p)
    start = time.time()
    failed = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_execute, str(p), timeout) for p in todo]
        for f in as_completed(futures):
            path, text, seconds, err = f.result()
            name = Path(path).relative_to(ROOT)
            if err is not None:
                failed.append(str(name))
                print(f"  {name}: failed here ({err.splitlines()[0][:120]}); the build runs it again", flush=True)
                continue
            record = cache.add_nb_to_project(path)
            cache.cache_notebook_bundle(CacheBundleIn(nbformat.reads(text, as_version=4), record.uri,
                                                      data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"  {name}: {seconds:.1f} s", flush=True)
    print(f"executed {len(todo) - len(failed)} of {len(todo)} pages in {time.time() - start:.0f} s with "
          f"{args.jobs} processes", flush=True)
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
