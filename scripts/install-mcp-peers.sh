#!/usr/bin/env bash
# Installs the pinned MCP peers the `mcp` tests run against into target/mcp-peers/
# (nothing is committed). Tests skip with a message naming this script when a peer is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/mcp-peers
mkdir -p "$dest/npm"
npm install --prefix "$dest/npm" --no-audit --no-fund --loglevel=error \
  @modelcontextprotocol/server-everything@2026.8.31 \
  @modelcontextprotocol/server-filesystem@2026.8.31
if [ ! -x "$dest/venv/bin/mcp-server-git" ]; then
  python3 -m venv "$dest/venv"
  "$dest/venv/bin/pip" install --quiet --disable-pip-version-check mcp-server-git==2026.10.19
fi
echo "MCP peers installed in $dest"
