#!/usr/bin/env python3
"""A deliberately broken MCP server over stdio (newline-delimited JSON-RPC), for tests.

Usage: hostile_server.py MODE
  bad-entries   tools/list over two pages with null, malformed, root-$ref, untyped and
                colliding entries; `echo` answers its text; `grow` adds a tool and sends
                notifications/tools/list_changed
  from-file F   as bad-entries, but the tools are the `tools` array of the JSON file F (a
                recorded tools/list result), served over two pages
  no-init       reads everything and never answers
  exit-mid-call answers initialize and tools/list, then exits when a tool is called
  flood         on a call, sends many notifications (log messages and progress for an
                unknown token) before the result
  malformed     `bad_rounds` answers an InputRequiredResult whose inputRequests is a number,
                `bad_task` a task whose tasks/get answer is nonsense, `lost_task` a task that
                tasks/get does not know; every other call answers as in bad-entries
  structured    adds `weather`, listed with an outputSchema, which answers a sentence as its
                text and the data as structuredContent (the text is not the JSON of it)
  whereami      starts a `sleep` child at once; `grow` never answers; any other call answers
                its working directory, the variable TOOL_SDK_PROBE, its own pid, the child's
                pid and the notifications/cancelled params it received
"""
import json
import os
import subprocess
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "bad-entries"
EXTRA_TOOLS = []
CHILD = subprocess.Popen(["sleep", "300"]) if MODE == "whereami" else None
CANCELLED = []


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


OBJ = {"type": "object", "properties": {"text": {"type": "string"}}}
PAGE_ONE = [
    {"name": "echo", "description": "Echoes text.", "inputSchema": OBJ},
    None,
    {"name": 7, "inputSchema": OBJ},
    {"name": "grow", "inputSchema": {"type": "object"}},
]
PAGE_TWO = [
    {"name": "no_schema"},
    {"name": "refd", "inputSchema": {"$ref": "#/$defs/In", "$defs": {"In": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
    {"name": "untyped", "inputSchema": {"properties": {"a": {"type": "string"}}}},
    {"name": "a.b", "inputSchema": OBJ},
    {"name": "a_b", "inputSchema": OBJ},
    {"name": "rpc_error", "inputSchema": {"type": "object"}},
    "not an object",
]


if MODE == "malformed":
    EXTRA_TOOLS.extend({"name": name, "inputSchema": {"type": "object"}}
                       for name in ("bad_rounds", "bad_task", "lost_task"))

if MODE == "structured":
    EXTRA_TOOLS.append({
        "name": "weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "outputSchema": {"type": "object", "properties": {
            "city": {"type": "string"}, "celsius": {"type": "number"}}},
    })

if MODE == "from-file":
    with open(sys.argv[2]) as recorded:
        TOOLS = json.load(recorded)["tools"]
    PAGE_ONE, PAGE_TWO = TOOLS[: len(TOOLS) // 2], TOOLS[len(TOOLS) // 2 :]


def handle(request):
    method = request.get("method")
    if method == "notifications/cancelled":
        CANCELLED.append(request.get("params"))
    if "id" not in request:
        return
    if method == "initialize":
        if MODE == "no-init":
            return
        reply(request, {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "hostile", "version": "1.0.0"},
        })
    elif method == "tools/list":
        cursor = (request.get("params") or {}).get("cursor")
        if cursor is None:
            reply(request, {"tools": PAGE_ONE, "nextCursor": "page-2"})
        else:
            reply(request, {"tools": PAGE_TWO + EXTRA_TOOLS})
    elif method == "tools/call":
        params = request.get("params") or {}
        name = params.get("name")
        args = params.get("arguments") or {}
        if MODE == "exit-mid-call":
            sys.stderr.write("hostile server: exiting in the middle of a call\n")
            sys.stderr.flush()
            sys.exit(3)
        if MODE == "flood":
            for i in range(20000):
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "x" * 200 + str(i)}})
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": "nobody-" + str(i), "progress": i}})
        if MODE == "whereami":
            if name == "grow":
                return
            reply(request, {"content": [{"type": "text", "text": json.dumps({
                "cwd": os.getcwd(), "probe": os.environ.get("TOOL_SDK_PROBE"),
                "pid": os.getpid(), "child": CHILD.pid, "cancelled": CANCELLED})}]})
            return
        if MODE == "malformed" and name == "bad_rounds":
            reply(request, {"resultType": "input_required", "inputRequests": 42})
            return
        if MODE == "malformed" and name in ("bad_task", "lost_task"):
            reply(request, {"resultType": "task", "taskId": name, "status": "working",
                            "createdAt": "2026-01-01T00:00:00Z",
                            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000,
                            "pollIntervalMs": 100})
            return
        if MODE == "structured" and name == "weather":
            city = args.get("city", "nowhere")
            reply(request, {
                "content": [{"type": "text", "text": "Sunny in " + city + ", 22 degrees."}],
                "structuredContent": {"city": city, "celsius": 22},
            })
            return
        if name == "rpc_error":
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32000, "message": "refused on purpose"}})
            return
        if name == "grow":
            EXTRA_TOOLS.append({"name": "grown", "inputSchema": {"type": "object"}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            reply(request, {"content": [{"type": "text", "text": "grew"}]})
            return
        reply(request, {"content": [{"type": "text", "text": json.dumps({"name": name, "arguments": args})}]})
    elif method == "tasks/get":
        task_id = (request.get("params") or {}).get("taskId")
        if task_id == "bad_task":
            reply(request, {"resultType": "complete", "taskId": 7, "status": ["nonsense"]})
        else:
            send({"jsonrpc": "2.0", "id": request["id"],
                  "error": {"code": -32602, "message": "Unknown task: " + str(task_id)}})
    elif method == "tasks/cancel":
        reply(request, {"resultType": "complete"})
    elif method == "ping":
        reply(request, {})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no method " + str(method)}})


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if isinstance(message, dict):
        handle(message)
