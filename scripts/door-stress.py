#!/usr/bin/env python3
"""Bad input at the door of a served pool, and what it costs the server (RELIABILITY.md, "The
door"). Starts `tool-host serve --http` itself, then in turn:

  oversize    N bodies of 5 MiB (the limit is 4 MiB): each must be 413
  malformed   N bodies that are not JSON-RPC requests (garbage, truncated JSON, a wrong
              version, an empty batch, a bare number): each must get an HTTP 4xx, or 200/202
              with a JSON-RPC error, never a 5xx or a dropped connection
  loris       N connections that send half a request header and stall: each must be closed
              by the server (header timeout 10 s) while a normal client is served
  tasks       N concurrent `tasks/get` for ids that do not exist: each must be -32602
  calls       a normal `tools/call` after each round must still answer

and prints, per round, the counts and the server's resident memory (VmRSS) after it, and its
peak (VmHWM) at the end, as JSON.

Usage: scripts/door-stress.py [--tool-host PATH] [--n N] [--tasks N]
Needs: Python 3.10+ (standard library only).
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "door-stress", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
}


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])  # KiB
    return fields


def post(port, body, headers=None, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    all_headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
    }
    all_headers.update(headers or {})
    try:
        connection.request("POST", "/mcp", body=body, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.read()
    except (ConnectionError, OSError) as error:
        return f"error: {type(error).__name__}", b""
    finally:
        connection.close()


def rpc(method, params, id_=1):
    params = dict(params, _meta=META)
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


def answer_of(body):
    """The JSON-RPC answer in a JSON or SSE body."""
    text = body.decode(errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    message = json.loads(line[5:])
                except ValueError:
                    continue
                if "result" in message or "error" in message:
                    return message
    return None


def a_call_answers(port):
    status, body = post(
        port,
        rpc("tools/call", {"name": "Glob", "arguments": {"pattern": "*"}}),
        {"mcp-method": "tools/call", "mcp-name": "Glob"},
    )
    answer = answer_of(body) or {}
    return status == 200 and "result" in answer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool-host", default="target/debug/tool-host")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=20000)
    args = parser.parse_args()

    root = tempfile.mkdtemp()
    with open(os.path.join(root, "a.txt"), "w") as file:
        file.write("a")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [args.tool_host, "serve", "--http", f"127.0.0.1:{port}", "--root", root, "--allow-bash"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    server.stdout.readline()
    report = {"start": memory(server.pid)}
    try:
        # Oversize bodies.
        big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + b"x" * (5 << 20) + b'"}}'
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(lambda _: post(port, big)[0], range(args.n)))
        report["oversize"] = {
            "sent": args.n,
            "413": statuses.count(413),
            "other": sorted({str(s) for s in statuses if s != 413}),
            "memory": memory(server.pid),
            "then_a_call_answers": a_call_answers(port),
        }

        # Malformed JSON-RPC.
        bodies = [
            b"\x00\xffnot json",
            b'{"jsonrpc":"2.0","id":1,"method":"tools/li',
            b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
            b"[]",
            b"42",
            b'{"jsonrpc":"2.0","id":1}',
            b'{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list","params":{}}',
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}',
        ]
        outcomes = {}
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            results = list(pool.map(lambda i: post(port, bodies[i % len(bodies)]), range(args.n)))
        for status, body in results:
            answer = answer_of(body) or {}
            kind = f"{status}" + (f" rpc {answer['error'].get('code')}" if "error" in answer else "")
            outcomes[kind] = outcomes.get(kind, 0) + 1
        report["malformed"] = {
            "sent": args.n,
            "outcomes": outcomes,
            "memory": memory(server.pid),
            "then_a_call_answers": a_call_answers(port),
        }

        # Slow loris.
        stalled = []
        for _ in range(args.n):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sock.settimeout(30)
            stalled.append(sock)
        served_meanwhile = a_call_answers(port)
        started = time.monotonic()
        closed = 0
        for sock in stalled:
            try:
                if sock.recv(1024) is not None:
                    closed += 1
            except OSError:
                closed += 1
            sock.close()
        report["loris"] = {
            "held": args.n,
            "closed_by_server": closed,
            "all_closed_within_s": round(time.monotonic() - started, 1),
            "served_meanwhile": served_meanwhile,
            "memory": memory(server.pid),
        }

        # A flood of tasks/get for unknown ids.
        def get(i):
            status, body = post(
                port,
                rpc("tasks/get", {"taskId": f"no-such-task-{i}"}),
                {"mcp-method": "tasks/get", "mcp-name": f"no-such-task-{i}"},
            )
            answer = answer_of(body) or {}
            return answer.get("error", {}).get("code")

        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            codes = list(pool.map(get, range(args.tasks)))
        report["tasks"] = {
            "sent": args.tasks,
            "-32602": codes.count(-32602),
            "other": sorted({str(c) for c in codes if c != -32602}),
            "took_s": round(time.monotonic() - started, 1),
            "memory": memory(server.pid),
            "then_a_call_answers": a_call_answers(port),
        }
        report["end"] = memory(server.pid)
    finally:
        server.terminate()
        server.wait()
    json.dump(report, sys.stdout, indent=1)
    print()


main()
