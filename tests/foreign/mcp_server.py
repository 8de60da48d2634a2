"""A streamable-HTTP MCP server built with the official Python SDK (`mcp`, its `MCPServer`), for
tests/mcp.rs: the client's HTTP transport against a real implementation.

Usage: python mcp_server.py  -- binds 127.0.0.1 on a port the OS picks and prints `PORT <n>` first;
the endpoint is http://127.0.0.1:<n>/mcp.
"""

import asyncio
import socket

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("py-tools")


@server.tool(description="Upper-case a text")
def shout(text: str) -> str:
    return text.upper()


@server.tool(description="Always fails")
def fail() -> str:
    # An anticipated failure: its message reaches the client (`isError: true`).
    raise ToolError("this tool always fails")


@server.tool(description="Sleep, then answer")
async def slow(seconds: float) -> str:
    await asyncio.sleep(min(seconds, 60))
    return "awake"


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is announced: connections queue until uvicorn accepts them.
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
