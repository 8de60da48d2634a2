//! The demo's built-in MCP App (`ui://agui-studio/dice`) speaks the MCP Apps bridge exactly:
//! `tests/foreign/mcp_app_view.mjs` runs the app's script under node against a stub host and
//! checks every message (handshake, notifications, the three buttons' requests, answers to host
//! requests, messages from other windows ignored). Skipped, saying so, only when there is no node.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_built_in_mcp_app_speaks_the_bridge() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let node =
        std::env::var_os("AGUI_TEST_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let mut child = match Command::new(&node)
        .arg(root.join("tests/foreign/mcp_app_view.mjs"))
        .arg(root.join("src/server/agents/demo/genui/mcp_app.html"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "SKIPPED mcp_app_view: cannot run `{}` ({e}); set AGUI_TEST_NODE",
                node.display()
            );
            return;
        }
    };
    // Bounded: a script that hangs is killed (by its PID, through the handle) and fails the test.
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("the child can be polled").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp_app_view.mjs did not finish within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("its output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim() == "OK",
        "{stdout}\n{stderr}"
    );
}
