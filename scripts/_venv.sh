# Sourced by the build and test scripts: create .venv and install requirements.txt into it when they changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.attnlab-requirements
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  echo "installing requirements into .venv ..."
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  echo "$want" > "$stamp"
fi
export PATH="$PWD/.venv/bin:$PATH"
