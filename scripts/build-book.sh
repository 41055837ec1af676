#!/usr/bin/env bash
# Build the whole book into _build/html (installing what it needs into .venv), then check the pages in
# headless Chromium. --cold: drop the execution cache, the verdict cache and the old HTML first (what CI does).
#
# Before jupyter-book reads the pages, every verdict and every experiment the pages read is computed into the disk
# cache by $ATTNLAB_JOBS processes (default 2; python -m attnlab.audit.precompute, balanced by
# data/benchmarks/experiment-profile.json), and the notebook pages are then executed, $ATTNLAB_JOBS at a time, into
# jupyter-book's execution cache (scripts/execute_pages.py), so the build only reads them back. The Chromium checks
# run in $ATTNLAB_JOBS processes too, each page's checks in one of them.
source "$(dirname "$0")/_venv.sh"
if [ "${1:-}" = "--cold" ]; then
  rm -rf _build notebooks/figures book/figures
  export ATTNLAB_CACHE_DIR="$PWD/_build/.attnlab-cache"
fi
start=$(date +%s)
python -m attnlab.audit.precompute --jobs "${ATTNLAB_JOBS:-2}"
pre=$(date +%s)
python scripts/execute_pages.py --jobs "${ATTNLAB_JOBS:-2}" || echo "the pages were not executed ahead; the build executes them"
jupyter-book build . --warningiserror --keep-going --builder html
built=$(date +%s)
echo "book built in $(( built - start )) s (experiments and verdicts $(( pre - start )) s, pages $(( built - pre )) s):" \
  "_build/html/index.html"
if [ -n "${CI:-}" ]; then export ATTNLAB_REQUIRE_BROWSER=1; fi
status=0
rm -f _build/screens.txt
python -m pytest -q -rs -n "${ATTNLAB_JOBS:-2}" --dist loadgroup tests/test_browser.py tests/test_built_book.py \
  tests/test_built_cite.py -p no:cacheprovider || status=$?
if [ -f _build/screens.txt ]; then
  echo "screens of 1280 x 800 per chapter page (as loaded, every <details> open):"
  sort _build/screens.txt
fi
echo "browser checks in $(( $(date +%s) - built )) s; build and checks in $(( $(date +%s) - start )) s"
exit $status
