"""Call a tool that runs as a task (MCP tasks extension, SEP-2663) with the official MCP
Python SDK client over MCP 2026-07-28, and print a JSON report.

Usage:
    python_client_tasks.py URL TOOL ARGUMENTS_JSON

The SDK (mcp 2.3.0) has no tasks client of its own; it lets an application follow extension
result shapes with a `ClientExtension` whose `ResultClaim` finishes them. This one declares
`io.modelcontextprotocol/tasks`, claims `resultType: "task"` on `tools/call`, and follows the
task with `tasks/get` until it ends, as an application built on the SDK would. The Rust test
(`examples/tests/mcp_sdk_peers.rs`) asserts on the report.
"""

import json
import sys

import anyio
from mcp import Client
from mcp import types
from mcp.client.extension import ClientExtension, ResultClaim

from tasks_extension import TASKS, CreatedTask, DetailedTask, GetTask, TaskParams

seen = {"created": None, "statuses": []}


async def follow(created, ctx):
    seen["created"] = created.status
    while True:
        task = await ctx.session.send_request(GetTask(params=TaskParams(task_id=created.task_id)), DetailedTask)
        if not seen["statuses"] or seen["statuses"][-1] != task.status:
            seen["statuses"].append(task.status)
        if task.status == "completed":
            return types.CallToolResult.model_validate(task.result)
        if task.status in ("failed", "cancelled"):
            raise RuntimeError(f"task {task.status}: {task.error}")
        await anyio.sleep(0.1)


class Tasks(ClientExtension):
    identifier = TASKS

    def claims(self):
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=follow)]


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main(url, tool, arguments):
    report = {}
    async with Client(url, extensions=[Tasks()]) as client:
        report["version"] = client.protocol_version
        result = await client.call_tool(tool, json.loads(arguments))
        report["is_error"] = bool(result.is_error)
        report["text"] = text_of(result)
        report["created"] = seen["created"]
        report["statuses"] = seen["statuses"]
    print(json.dumps(report))


anyio.run(main, *sys.argv[1:])
