#!/usr/bin/env bash
# Run the test suite (installing what it needs into .venv). Extra arguments go to pytest.
source "$(dirname "$0")/_venv.sh"
exec python -m pytest -q "$@"
