//! One component of a surface, as the processor keeps it.

use serde_json::{Map, Value};

/// One component: its id, its type and the object as it was sent (`id` and `component`
/// included, so a catalog sees what the agent wrote).
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub id: String,
    pub kind: String,
    pub value: Map<String, Value>,
}
