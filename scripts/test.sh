#!/usr/bin/env bash
# The whole test suite: lint, types, then every test. Exits non-zero on any failure,
# including "no tests collected".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== ruff check" >&2
.venv/bin/ruff check host tests bench
echo "== ruff format --check" >&2
.venv/bin/ruff format --check host tests bench
echo "== mypy (strict on host/)" >&2
.venv/bin/mypy
echo "== pytest" >&2
status=0
.venv/bin/python -m pytest -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
    exit 1
fi
exit "$status"
