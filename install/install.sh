#!/usr/bin/env bash
# Panelot on Linux and macOS: the host in ./.venv (scripts/setup.sh), the side panel's
# libraries in extension-shim/vendor/ (scripts/extension-libs.sh), the host made startable by your
# browsers (`panelot-host install`, which takes this script's arguments: --browser, --system,
# --user-data-dir, --extension-id, --dry-run, --force), then checked (`panelot-host doctor`).
# The work is in Python (panelot_host.install); this file only chains the steps.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/extension-libs.sh
exec .venv/bin/panelot-host install --doctor "$@"
