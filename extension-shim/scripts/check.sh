#!/usr/bin/env sh
# The extension's checks (no build step: these only verify): dev tools from the lockfile,
# protocol types current with schema/protocol.schema.json, tsc over the JSDoc types, and the
# worker's unit tests (node --test, fake Ports).
set -eu
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund --loglevel=error
node scripts/vendor.mjs  # the panel's Markdown + sanitiser, from the lockfile into vendor/
node scripts/gen-protocol-types.mjs --check
node scripts/bundle-page.mjs --check
npx --no-install tsc --noEmit -p tsconfig.json
node --test --test-reporter=dot test/
echo "extension-shim: types current, tsc clean, unit tests pass" >&2
