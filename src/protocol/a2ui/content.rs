//! How AG-UI carries A2UI: the `a2ui-surface` activity type, the content key of its messages,
//! and the reading of a content into operations or a lifecycle status.

use serde_json::{Map, Value};

/// The AG-UI `activityType` of an A2UI surface.
pub const ACTIVITY_TYPE: &str = "a2ui-surface";
/// The key of the activity content that holds the A2UI messages.
pub const OPERATIONS_KEY: &str = "a2ui_operations";
/// The prefix of the activity's message id (`a2ui-surface-<id>`).
pub const MESSAGE_ID_PREFIX: &str = "a2ui-surface-";

/// What an `a2ui-surface` activity's content says.
#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceContent<'a> {
    /// A2UI messages to apply, in order.
    Operations(&'a [Value]),
    /// The surface is not there yet: `building`, `retrying` or `failed` (with what the
    /// producer said about it: `attempt`, `maxAttempts`, `error`, `errors`, `progressTokens`).
    Status {
        status: &'a str,
        detail: &'a Map<String, Value>,
    },
    /// Neither: a content this version does not know.
    Unknown,
}

/// Reads an activity content: operations win over a status (a producer that sent both has
/// the surface already).
pub fn surface_content(content: &Map<String, Value>) -> SurfaceContent<'_> {
    if let Some(Value::Array(ops)) = content.get(OPERATIONS_KEY) {
        return SurfaceContent::Operations(ops);
    }
    match content.get("status") {
        Some(Value::String(s)) => SurfaceContent::Status {
            status: s,
            detail: content,
        },
        _ => SurfaceContent::Unknown,
    }
}
