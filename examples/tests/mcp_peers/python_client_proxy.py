"""Call, through `tool-host serve --http`, a tool of a server that tool-host imports and that
asks the user, with the official MCP Python SDK client (PyPI `mcp` 2.3.0) over MCP 2026-07-28,
and print a JSON report.

Usage:
    python_client_proxy.py URL TOOL

The upstream server asks its question of tool-host (an `InputRequiredResult` round); tool-host
asks it of this client the same way, and this client's elicitation callback answers it, as a
host's would. The Rust test (`examples/tests/mcp_sdk_peers.rs`) asserts on the report.
"""

import json
import sys

import anyio
from mcp import Client
from mcp import types

asked = []


async def answer(context, params):
    """Fills each requested string field with a name and each boolean with true."""
    asked.append(params.message)
    content = {}
    for name, field in (params.requested_schema or {}).get("properties", {}).items():
        content[name] = True if field.get("type") == "boolean" else f"Ada-{name}"
    return types.ElicitResult(action="accept", content=content)


async def main(url, tool):
    async with Client(url, elicitation_callback=answer) as client:
        result = await client.call_tool(tool, {})
        texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
        print(json.dumps({
            "version": client.protocol_version,
            "is_error": bool(result.is_error),
            "text": "\n".join(texts),
            "questions": asked,
        }))


anyio.run(main, *sys.argv[1:])
