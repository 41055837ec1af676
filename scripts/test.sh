#!/usr/bin/env bash
# Run the test suite (installing what it needs into .venv), on every core (pytest-xdist; ATTNLAB_TEST_WORKERS=0
# runs it in one process). Extra arguments go to pytest.
source "$(dirname "$0")/_venv.sh"
exec python -m pytest -q -n "${ATTNLAB_TEST_WORKERS:-auto}" "$@"
