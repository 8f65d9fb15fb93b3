#!/usr/bin/env sh
# Installs the MCP reference server the tests in tests/mcp start (exact versions from
# package-lock.json). Run from anywhere: sh tests/mcp/install_node_deps.sh
set -eu
cd "$(dirname "$0")/node"
npm ci --no-audit --no-fund
