#!/usr/bin/env sh
# The extension's checks (no build step: these only verify): dev tools from the lockfile,
# protocol types current with schema/protocol.schema.json, and tsc over the JSDoc types.
set -eu
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund --loglevel=error
node scripts/gen-protocol-types.mjs --check
npx --no-install tsc --noEmit -p tsconfig.json
echo "extension-shim: types current, tsc clean" >&2
