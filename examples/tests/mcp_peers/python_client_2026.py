"""Drive an MCP server over MCP 2026-07-28 with the official MCP Python SDK client and print a
JSON report.

Usage:
    python_client_2026.py URL

The SDK's high-level client negotiates (`server/discover` first), lists the tools and calls the
conformance server's tools that ask the client for input: it answers each
`InputRequiredResult` through the elicitation callback below and retries, as a host would.
The Rust test (`examples/tests/mcp_serve.rs`) asserts on the report.
"""

import json
import sys

import anyio
from mcp import Client
from mcp import types


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def answer(context, params):
    """Fills each requested string field with a name and each boolean with true."""
    asked.append(params.message)
    content = {}
    for name, field in (params.requested_schema or {}).get("properties", {}).items():
        content[name] = True if field.get("type") == "boolean" else f"Ada-{name}"
    return types.ElicitResult(action="accept", content=content)


asked = []


async def main(url):
    report = {}
    async with Client(url, elicitation_callback=answer) as client:
        report["version"] = client.protocol_version
        tools = await client.list_tools()
        report["tool_count"] = len(tools.tools)
        result = await client.call_tool("test_simple_text", {})
        report["simple"] = text_of(result)
        result = await client.call_tool("test_input_required_result_elicitation", {})
        report["asked_once"] = {"is_error": bool(result.is_error), "text": text_of(result)}
        result = await client.call_tool("test_input_required_result_multi_round", {})
        report["asked_twice"] = {"is_error": bool(result.is_error), "text": text_of(result)}
        report["questions"] = asked
    print(json.dumps(report))


anyio.run(main, sys.argv[1])
