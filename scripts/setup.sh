#!/usr/bin/env bash
# Set up Panelot host in ./.venv (Python >= 3.11): the package, its test and lint tools.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
"$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"Panelot host needs Python 3.11 or newer; {sys.executable} is {sys.version.split()[0]}")
PY

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,lint]'
echo "panelot-host is set up: $(.venv/bin/panelot-host version)" >&2
