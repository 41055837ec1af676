#!/usr/bin/env bash
# Run the linter (ruff, configured in pyproject.toml), then the test suite on every core (pytest-xdist;
# ATTNLAB_TEST_WORKERS=0 runs it in one process), installing what they need into .venv. Extra arguments go to pytest.
source "$(dirname "$0")/_venv.sh"
ruff check .
exec python -m pytest -q -n "${ATTNLAB_TEST_WORKERS:-auto}" --dist worksteal "$@"
