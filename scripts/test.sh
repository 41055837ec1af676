#!/usr/bin/env bash
# Run the linter (ruff, configured in pyproject.toml) and the test suite (installing what they need into .venv).
# Extra arguments go to pytest.
source "$(dirname "$0")/_venv.sh"
ruff check .
exec python -m pytest -q "$@"
