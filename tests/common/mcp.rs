//! The MCP servers the MCP tests start: the reference server (`@modelcontextprotocol/server-everything`,
//! npm, over stdio) and servers on the official Python SDK (`tests/foreign/mcp_server.py`, over
//! streamable HTTP, run by the venv `scripts/studio.sh setup` creates).

use std::path::PathBuf;

/// The `--mcp` spec that starts the reference server with node.
pub fn everything_spec() -> String {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("end2end/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run `npm ci` in end2end/ (scripts/studio.sh setup)",
        entry.display()
    );
    let node = std::env::var("AGUI_TEST_NODE").unwrap_or_else(|_| "node".into());
    format!("everything=stdio:{node} {} stdio", entry.display())
}

/// The venv's Python (or `AGUI_TEST_PYTHON`).
pub fn python() -> PathBuf {
    let path = std::env::var_os("AGUI_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        path.exists(),
        "no Python for the MCP server at {}: run `scripts/studio.sh setup` (it creates .venv/ \
         from tests/foreign/requirements.txt), or set AGUI_TEST_PYTHON",
        path.display()
    );
    path
}

/// Start `tests/foreign/mcp_server.py` (killed by its PID when dropped).
pub fn start_py_server() -> super::PortProcess {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/foreign/mcp_server.py");
    let mut cmd = std::process::Command::new(python());
    cmd.arg(script);
    super::start_printing_port(cmd, "tests/foreign/mcp_server.py")
}
