#!/usr/bin/env bash
# The side panel's runtime libraries (Markdown, sanitising) from npm, pinned by the
# lockfile, copied into extension-shim/vendor/, where the unpacked extension loads them:
# no CDN, no remote code, no build step. As root on Debian, installs nodejs/npm if missing
# (need-npm.sh).
set -euo pipefail
bash "$(dirname "$0")/need-npm.sh" "copying the side panel's libraries"
cd "$(dirname "$0")/../extension-shim"
npm ci --omit=dev --no-audit --no-fund --loglevel=error
node scripts/vendor.mjs
echo "extension-shim/vendor/: the side panel's libraries are in place" >&2
