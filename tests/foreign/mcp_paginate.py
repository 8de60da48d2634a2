"""A hostile MCP server over stdio, for tests/mcp.rs: its `tools/list` never ends (every page has
one tool and a next cursor). The tool of page N is `apps_tN` when the client announced MCP Apps
support at the handshake (`extensions["io.modelcontextprotocol/ui"]`), else `tN`. Plain JSON-RPC lines, no SDK: no SDK would
send this. Stops after 1000 requests or when its input closes.
"""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    prefix = ""
    for _ in range(1000):
        line = sys.stdin.readline()
        if not line:
            return
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            continue
        if method == "initialize":
            params = msg.get("params") or {}
            version = params.get("protocolVersion", "2025-06-18")
            extensions = (params.get("capabilities") or {}).get("extensions") or {}
            ui = extensions.get("io.modelcontextprotocol/ui") or {}
            if "text/html;profile=mcp-app" in (ui.get("mimeTypes") or []):
                prefix = "apps_"
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "endless-pages", "version": "1.0.0"},
            }})
        elif method == "tools/list":
            cursor = (msg.get("params") or {}).get("cursor") or "0"
            page = int(cursor) if cursor.isdigit() else 0
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "tools": [{"name": f"{prefix}t{page}", "inputSchema": {"type": "object"}}],
                "nextCursor": str(page + 1),
            }})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})


if __name__ == "__main__":
    main()
