"""Call one tool of an MCP server with the official MCP Python SDK client, sending a W3C trace
context in the request's `_meta` (SEP-414), as a traced client does, and print a JSON report.

Usage:
    python_client_traced.py URL TRACEPARENT

The Rust test (`examples/tests/telemetry.rs`) checks that the server's spans continue the
trace named by TRACEPARENT.
"""

import json
import sys

import anyio
from mcp import Client


async def main(url, traceparent):
    async with Client(url) as client:
        result = await client.call_tool(
            "Glob", {"pattern": "*.txt"}, meta={"traceparent": traceparent}
        )
        text = "\n".join(
            block.text for block in result.content if getattr(block, "type", "") == "text"
        )
        print(json.dumps({"is_error": bool(result.is_error), "text": text}))


anyio.run(main, sys.argv[1], sys.argv[2])
