#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpora from the recorded inputs in ../shared/fixtures.

Usage: scripts/fuzz-seeds.py [FIXTURES_DIR] [CORPUS_DIR]
(defaults: $TOOL_SDK_FIXTURES when set, else ../shared/fixtures beside the repository; and
fuzz/corpus). Without fixtures it says so and builds no seeds (the fuzzers then start empty). The fixtures are read,
never copied: each seed is a small input derived from them (one tool input, one schema, one
name, one response shape, one SSE body). Idempotent: seeds are named by their content hash.
"""

import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "TOOL_SDK_FIXTURES", os.path.join(ROOT, "..", "shared", "fixtures"))
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "fuzz", "corpus")

# The order of tool_examples::tools::all(), which run_tool_use indexes with its first byte.
EXAMPLE_TOOLS = ["Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read", "TaskStop", "TodoWrite", "Write"]
RECORDED_ROOT = "/home/user/project/"


def seed(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as out:
        out.write(data)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def transcripts():
    directory = os.path.join(FIXTURES, "transcripts")
    for name in sorted(os.listdir(directory)):
        yield load(os.path.join(directory, name))


def tool_uses(transcript):
    turns = [transcript.get("content", [])]
    turns += [example.get("content", []) for example in transcript.get("more_examples", [])]
    for message in transcript.get("messages", []):
        if isinstance(message.get("content"), list):
            turns.append(message["content"])
    for content in turns:
        for block in content:
            if block.get("type") == "tool_use":
                yield block


def relative(value):
    """The input with the recorded project root made relative to the workspace."""
    if isinstance(value, str):
        return value.replace(RECORDED_ROOT, "")
    if isinstance(value, list):
        return [relative(item) for item in value]
    if isinstance(value, dict):
        return {key: relative(item) for key, item in value.items()}
    return value


def anthropic_sse(blocks):
    events = [{"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}]
    for index, block in enumerate(blocks):
        text = compact(block["input"])
        events.append({"type": "content_block_start", "index": index,
                       "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
        half = len(text) // 2
        for part in (text[:half], text[half:]):
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "input_json_delta", "partial_json": part}})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    events.append({"type": "message_stop"})
    return "".join(f"event: {event['type']}\ndata: {compact(event)}\n\n" for event in events)


def openai_chat_sse(blocks):
    lines = []
    for index, block in enumerate(blocks):
        text = compact(block["input"])
        first = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "id": block["id"], "type": "function",
                                                                     "function": {"name": block["name"], "arguments": text[:5]}}]}}]}
        rest = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "function": {"arguments": text[5:]}}]}}]}
        lines += [first, rest]
    lines.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return "".join(f"data: {compact(line)}\n\n" for line in lines) + "data: [DONE]\n\n"


def openai_responses_sse(blocks):
    events = []
    for index, block in enumerate(blocks):
        item = {"type": "function_call", "id": f"fc_{index}", "call_id": block["id"], "name": block["name"], "arguments": ""}
        text = compact(block["input"])
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.function_call_arguments.delta", "output_index": index, "item_id": f"fc_{index}", "delta": text})
        done = dict(item, arguments=text)
        events.append({"type": "response.output_item.done", "output_index": index, "item": done})
    return "".join(f"event: {event['type']}\ndata: {compact(event)}\n\n" for event in events)


def gemini_sse(blocks):
    parts = [{"functionCall": {"name": block["name"], "args": block["input"]}} for block in blocks]
    chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    return f"data: {compact(chunk)}\n\n"


def main():
    if not os.path.isdir(FIXTURES):
        print(f"fuzz-seeds: no fixtures at {FIXTURES}; SKIPPED, the corpora start empty")
        return
    schemas = load(os.path.join(FIXTURES, "claude-code-tool-schemas.json"))
    mcp_lists = [load(os.path.join(FIXTURES, "mcp-tools-lists", name))
                 for name in sorted(os.listdir(os.path.join(FIXTURES, "mcp-tools-lists")))]
    mcp_tools = []
    for listing in mcp_lists:
        response = listing.get("response", listing)
        tools = response.get("result", response).get("tools", [])
        server = listing.get("server_name") or listing.get("source", "server").split()[2] if listing.get("source") else "server"
        mcp_tools += [(server, tool) for tool in tools]

    all_blocks = []
    for transcript in transcripts():
        blocks = list(tool_uses(transcript))
        all_blocks.append(blocks)
        for block in blocks:
            if block["name"] in EXAMPLE_TOOLS:
                selector = bytes([EXAMPLE_TOOLS.index(block["name"])])
                seed("run_tool_use", selector + compact(block["input"]).encode())
                seed("run_tool_use", selector + compact(relative(block["input"])).encode())
            seed("permission_rules", block["name"])
            command = block["input"].get("command") if isinstance(block["input"], dict) else None
            if command:
                escaped = command.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                seed("permission_rules", f"{block['name']}({escaped})")
                seed("permission_rules", f"{block['name']}({command.split()[0]}:*)")
        # Provider responses carrying the recorded calls.
        message = {"role": "assistant", "content": transcript.get("content", [])}
        seed("provider_adapters", compact(message))
        calls = [{"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": compact(b["input"])}} for b in blocks]
        seed("provider_adapters", compact({"choices": [{"message": {"role": "assistant", "tool_calls": calls}}]}))
        items = [{"type": "function_call", "call_id": b["id"], "name": b["name"], "arguments": compact(b["input"])} for b in blocks]
        seed("provider_adapters", compact({"output": items}))
        parts = [{"functionCall": {"name": b["name"], "args": b["input"]}} for b in blocks]
        seed("provider_adapters", compact({"candidates": [{"content": {"role": "model", "parts": parts}}]}))
        for step, render in enumerate([anthropic_sse, openai_chat_sse, openai_responses_sse, gemini_sse]):
            seed("stream_assemblers", bytes([7 + 13 * step]) + render(blocks).encode())

    names = [tool["name"] for tool in schemas.get("tools", [])]
    for variant in schemas.get("version_variants", []):
        names += [tool.get("name", "") for tool in variant.get("tools", []) if isinstance(tool, dict)]
    for name in sorted(set(names)):
        seed("permission_rules", name)
        seed("permission_rules", f"{name}(*)")
        seed("tool_search", bytes([5]) + name.encode())
        seed("tool_search", bytes([3]) + f"select:{name}".encode())
    for rule in ["Task", "KillShell", "AgentOutputTool", "BashOutputTool", "mcp__github", "mcp__github__*",
                 "mcp__my.server", "Bash(npm run test:*)", "WebFetch(domain:example.com)", r"Bash(echo \(x\))"]:
        seed("permission_rules", rule)

    for tool in schemas.get("tools", []):
        if "input_schema" in tool:
            seed("schema_export", b"\x00" + compact(tool["input_schema"]).encode())
            seed("schema_export", b"\x03" + compact(tool["input_schema"]).encode())
    for server, tool in mcp_tools:
        seed("mcp_names", bytes([len(server)]) + (server + tool["name"]).encode())
        description = (tool.get("description") or "").split(".")[0]
        words = " ".join(description.split()[:3])
        seed("tool_search", bytes([5]) + words.encode())
        if "inputSchema" in tool:
            seed("schema_export", b"\x01" + compact(tool["inputSchema"]).encode())
    for name in ["claude.ai My Server", "my.server", "a😀b", "ide", "mcp__ide__getDiagnostics"]:
        seed("mcp_names", bytes([len(name.encode()) // 2]) + name.encode())

    for target in ["run_tool_use", "permission_rules", "tool_search", "mcp_names", "schema_export",
                   "stream_assemblers", "provider_adapters"]:
        directory = os.path.join(CORPUS, target)
        count = len(os.listdir(directory)) if os.path.isdir(directory) else 0
        print(f"{target}: {count} seeds")


if __name__ == "__main__":
    main()
