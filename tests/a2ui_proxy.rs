//! A2UI through the proxy, over real sockets: our server (`--proxy`) in front of a foreign agent
//! built on the official TypeScript packages and wrapped with the official
//! `@ag-ui/a2ui-middleware` (`tests/foreign/a2ui_agent.mjs`, run by node with the packages of
//! `end2end/node_modules`, which `scripts/studio.sh setup` installs). A first run gets the
//! middleware's `a2ui-surface` activities; the next run's `forwardedProps.a2uiAction.userAction`
//! is turned by the middleware into the synthetic `log_a2ui_event` call the agent answers.
//! Skipped, saying so, only when there is no node.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use common::{get, json_of, open_sse, start_printing_port, start_server, PortProcess, TIMEOUT};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `node` (or `AGUI_TEST_NODE`), if it runs.
fn node() -> Option<PathBuf> {
    let node =
        std::env::var_os("AGUI_TEST_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let ok = Command::new(&node)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(node)
}

/// Start the agent; it binds a free loopback port and prints `PORT <n>` first.
fn start_agent(node: &PathBuf) -> PortProcess {
    let middleware = root().join("end2end/node_modules/@ag-ui/a2ui-middleware");
    assert!(
        middleware.exists(),
        "{} is missing: run `scripts/studio.sh setup` (npm ci in end2end/)",
        middleware.display()
    );
    let mut cmd = Command::new(node);
    cmd.arg(root().join("tests/foreign/a2ui_agent.mjs"));
    start_printing_port(cmd, "the node agent")
}

fn first_input(thread: &str, run: &str) -> Value {
    json!({
        "threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": "Show me a contact form"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {}
    })
}

/// POST `body` to `path` at `addr` and read every event (JSON) to the end of the stream.
async fn raw_events(addr: SocketAddr, path: &str, body: &Value) -> Vec<Value> {
    let mut sse = open_sse(addr, "POST", path, Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200, "{}", sse.raw);
    let frames = tokio::time::timeout(TIMEOUT * 2, sse.frames_to_end())
        .await
        .expect("the stream ends in time");
    frames
        .iter()
        .map(|f| serde_json::from_str(&f.data).unwrap())
        .collect()
}

/// A run through our proxy, read through our own client pipeline: valid, clean, one terminal.
async fn run(addr: SocketAddr, body: &Value) -> (Vec<Value>, Pipeline) {
    let mut sse = open_sse(addr, "POST", "/api/agents/ts", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200, "{}", sse.raw);
    let (events, p) =
        tokio::time::timeout(TIMEOUT * 2, common::read_through_pipeline(&mut sse, body))
            .await
            .expect("the run ends in time");
    assert_eq!(p.error(), None, "{events:#?}");
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{events:#?}");
    assert!(p.warnings.is_empty(), "warnings: {:?}", p.warnings);
    assert!(p.run_errors.is_empty(), "{:?}", p.run_errors);
    (events, p)
}

fn activity_snapshots(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "ACTIVITY_SNAPSHOT")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a2ui_middleware_surfaces_and_actions_pass_the_proxy_intact() {
    let Some(node) = node() else {
        eprintln!("SKIPPED a2ui_proxy: no `node` on PATH (set AGUI_TEST_NODE to a node binary)");
        return;
    };
    let agent = start_agent(&node);
    let spec = format!("ts=http://{}/", agent.addr);
    let (addr, _state) = start_server(&["--proxy", &spec]).await;

    // What the middleware sends, straight from the agent, for the same input (it is
    // deterministic but for the synthetic tool result's message id).
    let body = first_input("t-a2ui", "r-form");
    let direct = activity_snapshots(&raw_events(agent.addr, "/", &body).await);
    let (events, p) = run(addr, &body).await;
    // Our server stamps every event it relays with a `timestamp`; nothing else changes.
    let relayed: Vec<Value> = activity_snapshots(&events)
        .into_iter()
        .map(|mut e| {
            e.as_object_mut().unwrap().remove("timestamp");
            e
        })
        .collect();
    assert!(
        relayed.len() >= 3,
        "building, surface, surface with data: {relayed:#?}"
    );
    assert_eq!(relayed, direct, "every activity snapshot arrives unchanged");
    assert_eq!(relayed[0]["content"], json!({"status": "building"}));

    // The conversation holds one activity message: the painted surface replaced the skeleton.
    let messages = p.conversation.messages_json().as_array().unwrap().clone();
    let surfaces: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "activity")
        .collect();
    assert_eq!(surfaces.len(), 1, "{messages:#?}");
    let surface = surfaces[0];
    assert_eq!(surface["activityType"], "a2ui-surface");
    assert_eq!(surface["id"], "a2ui-surface-r-form-render");
    let ops = surface["content"]["a2ui_operations"]
        .as_array()
        .expect("operations");
    let kinds: Vec<_> = ops
        .iter()
        .map(|o| {
            o.as_object()
                .unwrap()
                .keys()
                .find(|k| *k != "version")
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(
        kinds,
        ["createSurface", "updateComponents", "updateDataModel"]
    );
    assert!(ops.iter().all(|o| o["version"] == "v0.9"));
    assert_eq!(ops[0]["createSurface"]["surfaceId"], "contact-form");
    let components = ops[1]["updateComponents"]["components"].as_array().unwrap();
    assert!(components.iter().any(|c| c["id"] == "root"));
    assert_eq!(
        ops[2]["updateDataModel"]["value"],
        json!({"form": {"name": "", "email": "", "subscribe": true}})
    );
    // The render call got the middleware's synthetic result, so no call is left open.
    let call = messages
        .iter()
        .find_map(|m| m["toolCalls"][0]["function"]["name"].as_str())
        .expect("the render_a2ui call");
    assert_eq!(call, "render_a2ui");
    assert!(p.conversation.pending_tool_call_ids.is_empty());
    let (status, seen) = get(agent.addr, "/seen/r-form").await;
    assert_eq!(status, 200);
    assert_eq!(
        json_of(&seen)["tools"],
        json!(["render_a2ui"]),
        "the middleware injected its tool"
    );

    // The user presses Send: the next run carries the action (activity messages stay here).
    let history: Vec<Value> = messages
        .into_iter()
        .filter(|m| m["role"] != "activity")
        .collect();
    let action = json!({"name": "submit_form", "surfaceId": "contact-form", "sourceComponentId": "submit",
        "context": {"name": "Ada", "email": "ada@example.com", "subscribe": false},
        "timestamp": "2026-11-24T16:00:00Z"});
    let body = json!({
        "threadId": "t-a2ui", "runId": "r-action", "messages": history,
        "tools": [], "context": [], "state": {},
        "forwardedProps": {"a2uiAction": {"userAction": action}}
    });
    let (_, p) = run(addr, &body).await;
    let replies = p.conversation.messages_json();
    let answer = replies.as_array().unwrap().last().unwrap()["content"].clone();
    let expected = "User performed action \"submit_form\" on surface \"contact-form\" (component: submit). Context: {\"name\":\"Ada\",\"email\":\"ada@example.com\",\"subscribe\":false}";
    assert_eq!(answer, json!(format!("Thanks, I got it. {expected}")));
    let (_, seen) = get(agent.addr, "/seen/r-action").await;
    let seen = json_of(&seen);
    assert_eq!(seen["lastRoles"], json!(["assistant", "tool"]));
    assert_eq!(
        seen["lastToolCalls"],
        json!(["log_a2ui_event"]),
        "the middleware's synthetic call"
    );
}
