//! References between components: [`ChildRef`] and the reading of a `ChildList` (ids, or a
//! List template `{componentId, path}`), shared by the basic catalog and JSON Schema catalogs.

use serde_json::Value;

/// A reference from one component to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildRef {
    pub id: String,
    /// Through a List template (`{componentId, path}`): rendered once per data item.
    pub template: bool,
}

pub(crate) fn push_id(v: &Value, template: bool, out: &mut Vec<ChildRef>) {
    if let Some(id) = v.as_str() {
        out.push(ChildRef {
            id: id.to_string(),
            template,
        });
    }
}

pub(crate) fn child_list_refs(v: &Value, out: &mut Vec<ChildRef>) {
    match v {
        Value::Array(ids) => ids.iter().for_each(|id| push_id(id, false, out)),
        Value::Object(t) => push_id(t.get("componentId").unwrap_or(&Value::Null), true, out),
        _ => {}
    }
}
