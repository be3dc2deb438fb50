"""Drive a tool-host fleet (replicas behind nginx, scripts/fleet.sh) with the official MCP Python
SDK client over MCP 2026-07-28, and print a JSON report. The Rust test
(`examples/tests/fleet.rs`) asserts on it.

Usage:
    python_client_fleet.py start URL TOOL ARGUMENTS_JSON   start a call as a task, report its id
    python_client_fleet.py get URL TASK_ID                 the task as `tasks/get` reads it
    python_client_fleet.py load URL COUNT COMMAND          COUNT Bash calls at once, `{i}` in
                                                           COMMAND replaced by the call's number

Tasks (MCP tasks extension, SEP-2663) through the SDK's `ClientExtension`, as in
python_client_tasks.py: `start` claims `resultType: "task"` and reports the task instead of
following it, so that the test can follow it through other replicas.
"""

import json
import sys

import anyio
from mcp import Client
from mcp import types
from mcp.client.extension import ClientExtension, ResultClaim

from tasks_extension import TASKS, CreatedTask, DetailedTask, GetTask, TaskParams

created = {}


async def keep(task, ctx):
    created["task_id"] = task.task_id
    created["status"] = task.status
    return types.CallToolResult(content=[])


class StartTasks(ClientExtension):
    identifier = TASKS

    def claims(self):
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=keep)]


def text_of(result):
    return "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


async def start(url, tool, arguments):
    async with Client(url, extensions=[StartTasks()]) as client:
        result = await client.call_tool(tool, json.loads(arguments))
        return {"version": client.protocol_version, **created, "answered": not created and not result.is_error}


async def get(url, task_id):
    async with Client(url, extensions=[StartTasks()]) as client:
        task = await client.session.send_request(GetTask(params=TaskParams(task_id=task_id)), DetailedTask)
        return {
            "status": task.status,
            "text": text_of(task.result) if task.result else None,
            "error": task.error,
        }


async def load(url, count, command):
    calls = []

    async def one(client, i):
        entry = {"i": i}
        try:
            with anyio.fail_after(60):
                result = await client.call_tool(
                    "Bash", {"command": command.replace("{i}", str(i)), "description": f"call {i}"}
                )
            entry["ok"] = not result.is_error
            entry["text"] = "\n".join(
                block.text for block in result.content if getattr(block, "type", "") == "text"
            )
        except TimeoutError:
            entry["ok"] = False
            entry["error"] = "no answer within 60 s"
        except Exception as error:  # the HTTP error of a call whose replica died, say
            entry["ok"] = False
            entry["error"] = f"{type(error).__name__}: {error}"
        calls.append(entry)

    async with Client(url) as client:
        async with anyio.create_task_group() as group:
            for i in range(int(count)):
                group.start_soon(one, client, i)
    return {"calls": sorted(calls, key=lambda entry: entry["i"])}


async def main(command, *args):
    report = await {"start": start, "get": get, "load": load}[command](*args)
    print(json.dumps(report))


anyio.run(main, *sys.argv[1:])
