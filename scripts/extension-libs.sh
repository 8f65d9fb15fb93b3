#!/usr/bin/env bash
# The side panel's runtime libraries (Markdown, sanitising) from npm, pinned by the
# lockfile, copied into extension-shim/vendor/, where the unpacked extension loads them:
# no CDN, no remote code, no build step. As root on Debian, installs nodejs/npm if missing.
set -euo pipefail
cd "$(dirname "$0")/../extension-shim"
if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing nodejs and npm" >&2
    apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "npm is needed to copy the side panel's libraries (Debian: apt-get install nodejs npm)" >&2
    exit 1
fi
npm ci --omit=dev --no-audit --no-fund --loglevel=error
node scripts/vendor.mjs
echo "extension-shim/vendor/: the side panel's libraries are in place" >&2
