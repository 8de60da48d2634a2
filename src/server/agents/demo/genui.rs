//! Generative UI scenarios, all carried by activities (PROTOCOL.md §15): A2UI v0.9 surfaces
//! (`a2ui`, `a2ui_dynamic`), CopilotKit's open generative UI (`ogui`), an MCP App (`mcp_app`)
//! and activity types no client knows in advance (`background_task`); plus the answers to what
//! those UIs send back in a later run (an A2UI user action, a proxied MCP request).
//!
//! What comes back from a UI is hostile input like any other: every value is checked for type
//! and size before it is used, and every text it reaches is clipped and escaped.

mod a2ui;
mod background;
mod dashboard;
mod mcp_app;
mod ogui;

use serde_json::Value;

use crate::protocol::event::EventKind;

pub use a2ui::{a2ui, answer_action};
pub use background::background_task;
pub use dashboard::a2ui_dynamic;
pub use mcp_app::{answer_proxied_request, mcp_app, mcp_server_info};
pub use ogui::ogui;

pub use crate::protocol::genui::{
    A2UI_ACTION as A2UI_ACTION_PROP, PROXIED_MCP_REQUEST as PROXIED_MCP_PROP,
};

/// `ACTIVITY_SNAPSHOT` of `content` (an object; anything else becomes `{}`).
fn snapshot(id: &str, ty: &str, content: Value, replace: Option<bool>) -> EventKind {
    EventKind::ActivitySnapshot {
        message_id: id.into(),
        activity_type: ty.into(),
        content: content.as_object().cloned().unwrap_or_default(),
        replace,
    }
}

/// `ACTIVITY_DELTA` with these JSON Patch operations (an array; one operation is wrapped).
fn delta(id: &str, ty: &str, ops: Value) -> EventKind {
    let patch = match ops {
        Value::Array(ops) => ops,
        op => vec![op],
    };
    EventKind::ActivityDelta {
        message_id: id.into(),
        activity_type: ty.into(),
        patch,
    }
}

/// At most `max` chars of `s` with control characters dropped (an ellipsis marks a cut). Reads
/// no further than it needs, so a megabyte string costs no more than a short one.
fn clip(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .filter(|c| !c.is_control())
        .take(max + 1)
        .collect();
    if out.chars().count() > max {
        out = out.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
    }
    out
}

/// `s` clipped to `max` chars, with markdown's punctuation escaped: values a UI sends back are
/// echoed in a markdown answer as the plain text they are, never as links, images or markup.
fn plain(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in clip(s, max).chars() {
        if "\\`*_{}[]()<>#+-.!|~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// FNV-1a (64 bits) of `s`: stable across runs and builds, unlike std's hasher.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A short, stable, id-safe digest of `s` for ids built from client input (run ids are).
fn digest(s: &str) -> String {
    format!("{:016x}", fnv(s))
}

#[cfg(test)]
mod tests;
