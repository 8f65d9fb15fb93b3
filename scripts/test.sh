#!/usr/bin/env bash
# The whole test suite: lint, types, then every test. Exits non-zero on any failure,
# including "no tests collected".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "== installing the test and lint extras" >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,lint]'
# MiniWoB++'s task pages, the browser tools' yardstick (tests/e2e/miniwob_kit.py): only its
# HTML is used, served over loopback, so none of its own dependencies (selenium, gymnasium)
echo "== installing MiniWoB++'s task pages" >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps 'miniwob==1.1.0'

# What the tests need beyond Python: node for the MCP reference server, tmux for the
# terminal-client test. Installed here so a fresh machine (and CI) has them.
if ! command -v tmux >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing tmux" >&2
    (apt-get update -qq && apt-get install -y -qq tmux >/dev/null) || echo "tmux could not be installed; its test will be skipped" >&2
fi
bash scripts/need-npm.sh "the MCP tests and the extension's checks"
echo "== npm ci (MCP reference server)" >&2
sh tests/mcp/install_node_deps.sh >/dev/null
# The end-to-end tests drive Debian's Chromium (never `playwright install`: no downloads here),
# on a machine with the fonts a user's desktop has: an emoji font among them. Without one,
# Chromium 150 (Debian bookworm's main archive; bookworm-security has 156) spends ~20 s laying
# out a composer holding 1 MiB of text with emoji, looking up a fallback font for each
# (issue 23; bench/bench_composer_layout.py measures it).
emoji_font() { command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list ':charset=1f44b' family)" ]; }
if { [ ! -x /usr/bin/chromium ] || ! emoji_font; } && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing chromium and an emoji font" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fontconfig fonts-noto-color-emoji >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
    echo "/usr/bin/chromium is required for the end-to-end tests (Debian: apt-get install chromium)" >&2
    exit 1
fi
if ! emoji_font; then
    echo "an emoji font is required for the end-to-end tests (Debian: apt-get install fonts-noto-color-emoji)" >&2
    exit 1
fi
echo "== end-to-end tests run on: $(/usr/bin/chromium --version 2>/dev/null) ($(dpkg-query -W -f='Debian package ${Version}' chromium 2>/dev/null || echo 'not a Debian package'))" >&2
echo "== extension-shim: npm ci, protocol types current, tsc --noEmit --checkJs" >&2
sh extension-shim/scripts/check.sh

echo "== ruff check" >&2
.venv/bin/ruff check host tests bench
echo "== ruff format --check" >&2
.venv/bin/ruff format --check host tests bench
echo "== mypy (strict on host/)" >&2
.venv/bin/mypy
# import-linter comes with the lint extra, installed above like ruff and mypy
echo "== import contracts" >&2
.venv/bin/lint-imports
echo "== pytest" >&2
status=0
.venv/bin/python -m pytest -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
    exit 1
fi
exit "$status"
