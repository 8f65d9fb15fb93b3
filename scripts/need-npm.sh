#!/usr/bin/env bash
# Make sure npm is here: as root on Debian, install nodejs and npm when missing; otherwise
# stop with what to install. $1 says what needs it (for the message).
set -euo pipefail
if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing nodejs and npm" >&2
    apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "npm is required for ${1:-this step} (Debian: apt-get install nodejs npm)" >&2
    exit 1
fi
