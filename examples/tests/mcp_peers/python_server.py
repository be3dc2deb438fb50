"""A server written with the official MCP Python SDK (PyPI `mcp` 2.3.0), as its README writes
one: an `MCPServer` with an `add` tool, and a `greet` tool that asks the user's name through a
resolver (`Resolve` + `Elicit`, which the SDK turns into an `InputRequiredResult` round for an
MCP 2026-07-28 client and an `elicitation/create` request for a 2025-11-25 session).

Usage:
    python_server.py stdio
    python_server.py http PORT     (streamable HTTP on 127.0.0.1:PORT/mcp)
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

mcp = MCPServer("Demo")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers"""
    return a + b


@mcp.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet the user by the name they give"""
    return f"Hello, {who.name}!"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
