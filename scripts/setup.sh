#!/usr/bin/env bash
# Set up Panelot host in ./.venv (Python >= 3.11): the package and its runtime dependencies
# only (scripts/test.sh adds the test and lint extras).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
"$PYTHON" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"Panelot host needs Python 3.11 or newer; {sys.executable} is {sys.version.split()[0]}")
PY

if [ ! -x .venv/bin/python ]; then
    if ! "$PYTHON" -m venv .venv; then
        # Debian ships venv's pip bootstrap separately (python3-venv); as root, install it
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "== installing python3-venv" >&2
            rm -rf .venv
            apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
            "$PYTHON" -m venv .venv
        else
            echo "cannot create .venv: install venv for $PYTHON (Debian: apt-get install python3-venv)" >&2
            exit 1
        fi
    fi
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
echo "panelot-host is set up: $(.venv/bin/panelot-host version)" >&2
