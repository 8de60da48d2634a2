"""A streamable-HTTP MCP server built with the official Python SDK (`mcp`, its `MCPServer`), for
tests/mcp.rs and tests/mcp_apps.rs: the client's HTTP transport against a real implementation,
and MCP Apps (SEP-1865): `counter` links the view `ui://py/counter`, which calls the app-only
tool `bump`; `secret` is for the model only; `huge_view` and `stuck_view` link a resource too
large and one that never answers; `legacy_view` links its view with the older
`_meta["ui/resourceUri"]` key.

Usage: python mcp_server.py  -- binds 127.0.0.1 on a port the OS picks and prints `PORT <n>` first;
the endpoint is http://127.0.0.1:<n>/mcp.
       python mcp_server.py --stdio  -- speaks MCP on stdin/stdout instead, for a demo:
       agui-studio --llm … --mcp 'py=stdio:.venv/bin/python tests/foreign/mcp_server.py --stdio'.
"""

import asyncio
import socket
import sys

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


@server.tool(description="A text of `size` bytes (at most 1 MiB)")
def blob(size: int) -> str:
    return "x" * max(0, min(size, 1 << 20))


APP_MIME = "text/html;profile=mcp-app"
COUNTER_HTML = """<!doctype html><meta charset="utf-8"><title>Counter</title>
<p>Count: <output id="n">0</output> <button id="b" type="button">+1</button></p>
<script>
// The MCP Apps bridge, just enough of it: initialize, take the tool's input, call `bump`.
let n = 0;
const show = () => { document.getElementById("n").textContent = String(n); };
const send = (m) => window.parent.postMessage(Object.assign({jsonrpc: "2.0"}, m), "*");
window.addEventListener("message", (e) => {
  if (e.source !== window.parent) return;
  const m = e.data || {};
  if (m.id === "init" && m.result) send({method: "ui/notifications/initialized", params: {}});
  if (m.method === "ui/notifications/tool-input" && m.params && m.params.arguments) {
    n = Number(m.params.arguments.start) || 0;
    show();
  }
  if (m.id === "bump" && m.result && m.result.structuredContent) {
    n = m.result.structuredContent.result;
    show();
  }
});
document.getElementById("b").onclick = () =>
  send({id: "bump", method: "tools/call", params: {name: "bump", arguments: {n}}});
send({id: "init", method: "ui/initialize", params: {appInfo: {name: "counter", version: "1"}, capabilities: {}}});
</script>"""


@server.tool(description="Show a counter the user can click", meta={"ui": {"resourceUri": "ui://py/counter"}})
def counter(start: int = 0) -> str:
    return f"The counter starts at {start}."


@server.tool(description="Add one (for the counter view only)", meta={"ui": {"visibility": ["app"]}})
def bump(n: int) -> int:
    return n + 1


@server.tool(description="For the model only", meta={"ui": {"visibility": ["model"]}})
def secret() -> str:
    return "model eyes only"


@server.tool(description="A view too large to show", meta={"ui": {"resourceUri": "ui://py/huge"}})
def huge_view() -> str:
    return "huge"


@server.tool(description="A view that never loads", meta={"ui": {"resourceUri": "ui://py/stuck"}})
def stuck_view() -> str:
    return "stuck"


@server.tool(description="The counter, linked the older way", meta={"ui/resourceUri": "ui://py/counter"})
def legacy_view() -> str:
    return "legacy"


@server.resource("ui://py/counter", mime_type=APP_MIME, meta={"ui": {"prefersBorder": True}})
def counter_view() -> str:
    return COUNTER_HTML


@server.resource("ui://py/huge", mime_type=APP_MIME)
def huge_resource() -> str:
    return "<p>" + "x" * (3 << 20) + "</p>"


@server.resource("ui://py/stuck", mime_type=APP_MIME)
async def stuck_resource() -> str:
    await asyncio.sleep(60)
    return "<p>too late</p>"


@server.resource("file:///etc/hostname", mime_type="text/plain")
def not_a_view() -> str:
    return "a resource no tool links"


def main() -> None:
    if "--stdio" in sys.argv[1:]:
        server.run("stdio")
        return
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
