//! The part of every agent's `AgentCapabilities` that this server, not the agent, makes true:
//! how its runs travel (SSE or protobuf, resumable with `Last-Event-ID` on
//! `GET /api/runs/{id}/events`) and that a thread's state carries over from run to run (a run
//! that sends no `state` gets the thread's). Whether threads also survive a restart depends on
//! the database (`--db :memory:` keeps nothing), said under `custom`.
//!
//! Each claim is checked against behaviour in `tests/capabilities.rs`.

use serde_json::{json, Value};

/// The key under `custom` saying whether threads survive a restart of this server.
pub const DURABLE_THREADS: &str = "agui-studio:durableThreads";

/// What the server does for every agent it hosts.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerFacts {
    /// Threads are kept in a database file (not `:memory:`).
    pub durable: bool,
}

/// `transport`, as this server serves every agent's runs.
pub fn transport() -> Value {
    json!({
        "streaming": true,
        "websocket": false,
        "httpBinary": true,
        "pushNotifications": false,
        "resumable": true,
    })
}

/// An agent's own capabilities completed with the server's: `transport` replaced,
/// `state.persistentState` set, the durability of threads under `custom`.
pub fn complete(mut caps: Value, facts: ServerFacts) -> Value {
    if !caps.is_object() {
        caps = json!({});
    }
    caps["transport"] = transport();
    if !caps["state"].is_object() {
        caps["state"] = json!({});
    }
    caps["state"]["persistentState"] = Value::Bool(true);
    if !caps["custom"].is_object() {
        caps["custom"] = json!({});
    }
    caps["custom"][DURABLE_THREADS] = Value::Bool(facts.durable);
    caps
}

/// A chat-completions `tools` entry (`{"type": "function", "function": {…}}`) as an AG-UI
/// `Tool` for `tools.items` (None when it has no name).
pub fn tool_item(chat: &Value) -> Option<Value> {
    let f = chat.get("function").unwrap_or(chat);
    let name = f.get("name")?.as_str()?;
    let mut item = json!({
        "name": name,
        "description": f.get("description").and_then(Value::as_str).unwrap_or(""),
    });
    if let Some(p) = f.get("parameters").filter(|p| !p.is_null()) {
        item["parameters"] = p.clone();
    }
    Some(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_part_replaces_what_an_agent_says_about_transport() {
        let caps = complete(
            json!({"transport": {"websocket": true}, "state": {"snapshots": true}}),
            ServerFacts { durable: false },
        );
        assert_eq!(caps["transport"], transport());
        assert_eq!(
            caps["state"],
            json!({"snapshots": true, "persistentState": true})
        );
        assert_eq!(caps["custom"][DURABLE_THREADS], false);
        let caps = complete(Value::Null, ServerFacts { durable: true });
        assert_eq!(caps["custom"][DURABLE_THREADS], true);
        // What it makes is what the schema allows.
        assert_eq!(crate::protocol::capabilities::sanitize(&caps), caps);
    }

    #[test]
    fn chat_tool_entries_become_ag_ui_tools() {
        let chat = json!({"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}});
        assert_eq!(
            tool_item(&chat),
            Some(json!({"name": "f", "description": "d", "parameters": {"type": "object"}}))
        );
        assert_eq!(tool_item(&json!({"function": {}})), None);
    }
}
