#!/usr/bin/env bash
# Build the whole book into _build/html (installing what it needs into .venv), then check the pages in
# headless Chromium. --cold: drop the execution cache, the verdict cache and the old HTML first (what CI does).
source "$(dirname "$0")/_venv.sh"
if [ "${1:-}" = "--cold" ]; then
  rm -rf _build notebooks/figures book/figures
  export ATTNLAB_CACHE_DIR="$PWD/_build/.attnlab-cache"
fi
start=$(date +%s)
jupyter-book build . --warningiserror --keep-going --builder html
echo "book built in $(( $(date +%s) - start )) s: _build/html/index.html"
if [ -n "${CI:-}" ]; then export ATTNLAB_REQUIRE_BROWSER=1; fi
python -m pytest -q -rs tests/test_browser.py tests/test_built_book.py tests/test_built_cite.py -p no:cacheprovider
