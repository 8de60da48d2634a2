//! Helpers of the capability tests: an agent's published capabilities (checked to be
//! schema-shaped), a run's body, and a run's events.

use std::net::SocketAddr;

use agui_studio::protocol::capabilities::sanitize;
use serde_json::{json, Value};

use super::{open_sse, request};

pub const DURABLE: &str = "agui-studio:durableThreads";

pub async fn caps_of(addr: SocketAddr, id: &str) -> Value {
    let r = request(addr, "GET", "/api/agents", &[], None).await;
    assert_eq!(r.status, 200);
    let all = r.json();
    let caps = all["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("agent {id} is listed: {all}"))["capabilities"]
        .clone();
    // Only what the 1.1 schema defines, every value well typed.
    assert_eq!(sanitize(&caps), caps, "{id}: the document is schema-shaped");
    caps
}

pub fn body(thread: &str, run: &str, text: &str) -> Value {
    json!({"threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "tools": [], "context": [], "forwardedProps": {}})
}

pub async fn events(addr: SocketAddr, agent: &str, body: &Value) -> Vec<Value> {
    let path = format!("/api/agents/{agent}");
    let mut sse = open_sse(addr, "POST", &path, Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200, "{body}");
    sse.read_run().await
}

pub fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

pub fn has(events: &[Value], t: &str) -> bool {
    types(events).contains(&t)
}
