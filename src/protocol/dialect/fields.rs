//! JSON helpers the dialect translations share: reading fields (a pre-1.0 `null` counts as
//! absent) and building 1.1 events that keep the source's envelope fields.

use serde_json::Value;

use super::translator::Obj;

/// Envelope fields every 1.1 event may carry; they survive translations that rebuild an event
/// from scratch, so timestamps, metadata and subagent attribution are never lost.
pub(super) const BASE_FIELDS: &[&str] = &["timestamp", "metadata", "subagentRunId"];

/// Present and not `null`: pre-1.0 producers send `null` for absent fields.
pub(super) fn has(obj: &Obj, key: &str) -> bool {
    obj.get(key).is_some_and(|v| !v.is_null())
}

pub(super) fn take(obj: &mut Obj, key: &str) -> Option<Value> {
    obj.shift_remove(key).filter(|v| !v.is_null())
}

pub(super) fn without_type(obj: &Obj) -> Obj {
    let mut rest = obj.clone();
    rest.shift_remove("type");
    rest
}

pub(super) fn base_only(obj: &Obj) -> Obj {
    BASE_FIELDS
        .iter()
        .filter_map(|k| obj.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect()
}

/// `type` first, then the event's own fields, then whatever the source carried besides (base
/// fields, and unknown fields for the enforcement stage to strip with its usual warning).
pub(super) fn build<'a>(
    ty: &str,
    fields: impl IntoIterator<Item = (&'a str, Option<Value>)>,
    rest: Obj,
) -> Obj {
    let mut ev = Obj::new();
    ev.insert("type".into(), ty.into());
    for (key, value) in fields {
        if let Some(value) = value {
            ev.insert(key.into(), value);
        }
    }
    for (key, value) in rest {
        if key != "type" {
            ev.entry(key).or_insert(value);
        }
    }
    ev
}

pub(super) fn with_raw(mut ev: Obj, raw: impl Into<Value>) -> Value {
    ev.insert("rawEvent".into(), raw.into());
    Value::Object(ev)
}

/// Adds `key` to the event's metadata without overriding what the producer put there; a
/// malformed (non-object) metadata is left for the enforcement stage to reject.
pub(super) fn add_metadata(obj: &mut Obj, key: &str, value: Value) {
    if let Value::Object(meta) = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Obj::new()))
    {
        meta.entry(key).or_insert(value);
    }
}

pub(super) fn text_or_json(v: Value) -> Value {
    match v {
        Value::String(_) => v,
        other => other.to_string().into(),
    }
}

pub(super) fn error_text(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Object(ref o) if o.get("message").is_some_and(Value::is_string) => {
            o["message"].as_str().unwrap_or_default().to_owned()
        }
        other => other.to_string(),
    }
}
