"""Drive `tool-host serve` with the official MCP Python SDK client and print a JSON report.

Usage:
    python_client.py ROOT URL TOOL_HOST_BINARY ARG...

Runs the checks against the server at URL (streamable HTTP) and against TOOL_HOST_BINARY ARG...
started as a child process (stdio), in one process to pay the SDK's import once. ROOT is the
served workspace, holding `hello.txt`. The report is `{"http": {...}, "stdio": {...}}`, one
entry per check; the Rust test (`examples/tests/mcp_serve.rs`) asserts on it.
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def exercise(session, root, bash_allowed):
    report = {}
    await session.initialize()

    tools = []
    cursor = None
    while True:
        params = {"cursor": cursor} if cursor else None
        page = await session.list_tools(params=params) if params else await session.list_tools()
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    report["tools"] = {
        tool.name: {
            "title": tool.title,
            "has_description": bool(tool.description),
            "input_type": tool.input_schema.get("type"),
            "annotations": tool.annotations.model_dump(exclude_none=True) if tool.annotations else None,
            "output_schema": tool.output_schema,
        }
        for tool in tools
    }

    hello = os.path.join(root, "hello.txt")
    result = await session.call_tool("Read", {"file_path": hello})
    report["success"] = {"is_error": bool(result.is_error), "text": text_of(result)}

    result = await session.call_tool("Read", {"path": hello})
    report["invalid_arguments"] = {"is_error": bool(result.is_error), "text": text_of(result)}

    try:
        await session.call_tool("NoSuchTool", {})
        report["unknown_tool"] = {"code": None}
    except MCPError as error:
        report["unknown_tool"] = {"code": error.error.code, "message": error.error.message}

    result = await session.call_tool("Read", {"file_path": os.path.join(root, "missing.txt")})
    report["tool_error"] = {"is_error": bool(result.is_error), "text": text_of(result)}

    if bash_allowed:
        started = await session.call_tool("Bash", {"command": "sleep 30", "run_in_background": True})
        shell_id = text_of(started).rsplit(" ", 1)[-1]
        result = await session.call_tool("TaskStop", {"shell_id": shell_id})
        report["structured"] = {
            "is_error": bool(result.is_error),
            "structured": result.structured_content,
            "text": text_of(result),
        }

        progress = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "total": total, "message": message})

        result = await session.call_tool(
            "Bash", {"command": "sleep 1.2; echo slept"}, progress_callback=on_progress
        )
        report["progress"] = {"is_error": bool(result.is_error), "text": text_of(result), "reports": progress}

        marker = os.path.join(root, "cancel-marker.txt")
        try:
            await session.call_tool(
                "Bash", {"command": f"sleep 1; echo late > '{marker}'"}, read_timeout_seconds=0.3
            )
            report["cancel"] = {"timed_out": False}
        except Exception as error:  # the SDK raises on its timeout and sends notifications/cancelled
            report["cancel"] = {"timed_out": True, "error": type(error).__name__}
        await anyio.sleep(1.2)
        report["cancel"]["marker_written"] = os.path.exists(marker)
    else:
        try:
            result = await session.call_tool("Bash", {"command": "echo hi"})
            report["bash_refused"] = {"is_error": bool(result.is_error), "text": text_of(result)}
        except MCPError as error:  # not listed, so an unknown tool: a JSON-RPC error
            report["bash_refused"] = {"code": error.error.code, "text": error.error.message}
    return report


async def main():
    root, url, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    report = {}
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            report["http"] = await exercise(session, root, False)
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            report["stdio"] = await exercise(session, root, "--allow-bash" in command)
    print(json.dumps(report))


anyio.run(main)
