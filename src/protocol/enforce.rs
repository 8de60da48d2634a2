//! Enforcement: the 1.1 processing rule between translation and chunk expansion. Unknown event
//! types are dropped and unknown properties stripped, each with a warning naming its path; a
//! malformed value in a known field is fatal.
//!
//! The typed parse is the schema: a value that does not parse into [`Event`] is malformed. What
//! the parse ignored is found by comparing the input with the event's own wire form, so the
//! list of known fields lives in one place (the types) and is never restated here.

use super::error::ProtocolError;
use serde_json::{Map, Value};

use super::event::{Event, EVENT_TYPES};
use super::types::{CONTENT_PART_TYPES, RUN_OUTCOME_TYPES, SUBAGENT_OUTCOME_TYPES};

/// JSON Patch operations RFC 6902 defines.
const PATCH_OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];

/// The result of enforcing one event.
#[derive(Debug, Clone, PartialEq)]
pub enum Enforced {
    /// The event, possibly with parts stripped; boxed because an event is large and `Dropped`
    /// carries nothing.
    Event(Box<Event>),
    /// An unknown event type, dropped.
    Dropped,
}

/// Enforce the 1.1 processing rules on one wire event. Warnings are appended to `warnings`;
/// `Err` is a fatal protocol error.
pub fn enforce(mut value: Value, warnings: &mut Vec<String>) -> Result<Enforced, ProtocolError> {
    let Some(obj) = value.as_object_mut() else {
        return Err(ProtocolError::Malformed(format!(
            "an event must be a JSON object, got {}",
            brief(&value)
        )));
    };
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(ProtocolError::Malformed(format!(
                "event type must be a string, got {}",
                brief(other)
            )))
        }
        None => {
            return Err(ProtocolError::Malformed(format!(
                "event without a type: {}",
                brief(&value)
            )))
        }
    };
    if !EVENT_TYPES.contains(&ty.as_str()) {
        warnings.push(format!("dropped an event of unknown type '{ty}'"));
        return Ok(Enforced::Dropped);
    }
    strip_unknown_members(&ty, obj, warnings)?;
    let shape = Shape::of(&ty, obj);
    if shape.as_ref().is_some_and(Shape::known_clean) {
        return match Event::from_value_ref(&value) {
            Ok(event) => Ok(Enforced::Event(Box::new(event))),
            Err(e) => Err(malformed(&ty, e, &value)),
        };
    }
    let original = value.clone();
    let event = Event::from_value(value).map_err(|e| malformed(&ty, e, &original))?;
    let wire = event.to_value();
    let mut stripped = Vec::new();
    diff_stripped(&original, &wire, &mut String::new(), &mut stripped);
    if stripped.is_empty() {
        if let Some(shape) = shape {
            shape.remember_clean();
        }
    }
    for path in stripped {
        warnings.push(format!("stripped unknown property {path} from {ty}"));
    }
    Ok(Enforced::Event(Box::new(event)))
}

fn malformed(ty: &str, e: serde_json::Error, original: &Value) -> ProtocolError {
    ProtocolError::Malformed(format!(
        "malformed {ty} event: {e} (in {})",
        brief(original)
    ))
}

/// Shapes of flat events already found clean, at most this many (a stream of ever-new member
/// names only fills the set once, then takes the full check).
const CLEAN_SHAPES_LIMIT: usize = 256;
/// Longest shape remembered, in bytes.
const SHAPE_BYTES_LIMIT: usize = 512;

std::thread_local! {
    static CLEAN_SHAPES: std::cell::RefCell<std::collections::HashSet<String>> =
        Default::default();
}

/// A flat event's shape: its type and the names of its non-null members, in order. A flat
/// event is one whose members are all scalars, apart from `metadata` and `rawEvent` (which the
/// parse keeps whole). For such an event, what the parse strips depends on its shape alone
/// (a member's name and the type decide whether the event keeps it; a scalar has nothing
/// inside to strip), so a shape once found clean is clean again and the comparison of the
/// input with the event's wire form — most of the work for a text delta — is skipped.
struct Shape(String);

impl Shape {
    fn of(ty: &str, obj: &Map<String, Value>) -> Option<Shape> {
        let mut key = String::with_capacity(64);
        key.push_str(ty);
        for (k, v) in obj {
            match v {
                Value::Null => continue,
                Value::Object(_) | Value::Array(_) if k != "metadata" && k != "rawEvent" => {
                    return None
                }
                _ => {}
            }
            key.push('\0');
            key.push_str(k);
            if key.len() > SHAPE_BYTES_LIMIT {
                return None;
            }
        }
        Some(Shape(key))
    }

    fn known_clean(&self) -> bool {
        CLEAN_SHAPES.with(|s| s.borrow().contains(&self.0))
    }

    fn remember_clean(self) {
        CLEAN_SHAPES.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < CLEAN_SHAPES_LIMIT {
                s.insert(self.0);
            }
        });
    }
}

/// Remove members of closed unions that 1.1 does not define (an unknown outcome, content part
/// or patch operation). They are "unrecognised members", stripped rather than fatal; a value
/// of the wrong JSON type is left for the typed parse to reject.
fn strip_unknown_members(
    ty: &str,
    obj: &mut Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<(), ProtocolError> {
    match ty {
        "RUN_FINISHED" => strip_unknown_outcome(obj, &RUN_OUTCOME_TYPES, warnings),
        "SUBAGENT_FINISHED" => strip_unknown_outcome(obj, &SUBAGENT_OUTCOME_TYPES, warnings),
        "MESSAGES_SNAPSHOT" => {
            if let Some(Value::Array(msgs)) = obj.get_mut("messages") {
                strip_unknown_parts_in_messages(msgs, "/messages", warnings);
            }
        }
        "RUN_STARTED" => {
            if let Some(Value::Array(msgs)) = obj
                .get_mut("input")
                .and_then(Value::as_object_mut)
                .and_then(|i| i.get_mut("messages"))
            {
                strip_unknown_parts_in_messages(msgs, "/input/messages", warnings);
            }
        }
        "TOOL_CALL_RESULT" => {
            if let Some(Value::Array(parts)) = obj.get_mut("content") {
                strip_unknown_parts(parts, "/content", warnings);
            }
        }
        "STATE_DELTA" => strip_unknown_ops(obj, "delta", warnings)?,
        "ACTIVITY_DELTA" => strip_unknown_ops(obj, "patch", warnings)?,
        _ => {}
    }
    Ok(())
}

fn strip_unknown_outcome(obj: &mut Map<String, Value>, known: &[&str], warnings: &mut Vec<String>) {
    let unknown = match obj.get("outcome") {
        Some(Value::Object(o)) => match o.get("type") {
            Some(Value::String(t)) if !known.contains(&t.as_str()) => Some(t.clone()),
            _ => None,
        },
        _ => None,
    };
    if let Some(t) = unknown {
        obj.remove("outcome");
        warnings.push(format!("stripped unknown outcome '{t}' at /outcome"));
    }
}

pub(crate) fn strip_unknown_parts_in_messages(
    msgs: &mut [Value],
    base: &str,
    warnings: &mut Vec<String>,
) {
    for (i, m) in msgs.iter_mut().enumerate() {
        if let Some(Value::Array(parts)) = m.get_mut("content") {
            strip_unknown_parts(parts, &format!("{base}/{i}/content"), warnings);
        }
    }
}

fn strip_unknown_parts(parts: &mut Vec<Value>, base: &str, warnings: &mut Vec<String>) {
    let mut i = 0;
    let mut original_index = 0;
    while i < parts.len() {
        let unknown = match parts[i].get("type") {
            Some(Value::String(t)) if !CONTENT_PART_TYPES.contains(&t.as_str()) => Some(t.clone()),
            _ => None,
        };
        if let Some(t) = unknown {
            parts.remove(i);
            warnings.push(format!(
                "dropped content part of unknown type '{t}' at {base}/{original_index}"
            ));
        } else {
            i += 1;
        }
        original_index += 1;
    }
}

fn strip_unknown_ops(
    obj: &mut Map<String, Value>,
    field: &str,
    warnings: &mut Vec<String>,
) -> Result<(), ProtocolError> {
    let Some(Value::Array(ops)) = obj.get_mut(field) else {
        return Ok(());
    };
    let mut kept = Vec::with_capacity(ops.len());
    for (i, op) in std::mem::take(ops).into_iter().enumerate() {
        let (name, path) = match &op {
            Value::Object(o) => (o.get("op"), o.get("path")),
            other => {
                return Err(ProtocolError::Malformed(format!(
                    "malformed patch operation at /{field}/{i}: expected an object, got {}",
                    brief(other)
                )))
            }
        };
        match (name, path) {
            (Some(Value::String(n)), Some(Value::String(_))) if PATCH_OPS.contains(&n.as_str()) => {
                kept.push(op)
            }
            (Some(Value::String(n)), Some(Value::String(_))) => warnings.push(format!(
                "dropped patch operation with unknown op '{n}' at /{field}/{i}"
            )),
            _ => {
                return Err(ProtocolError::Malformed(format!(
                "malformed patch operation at /{field}/{i}: needs string 'op' and 'path', got {}",
                brief(&op)
            )))
            }
        }
    }
    *ops = kept;
    Ok(())
}

/// Collect paths present (non-null) in `input` but absent from `parsed`: what the parse ignored.
fn diff_stripped(input: &Value, parsed: &Value, path: &mut String, out: &mut Vec<String>) {
    match (input, parsed) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let len = path.len();
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                match b.get(k) {
                    None if !v.is_null() => out.push(path.clone()),
                    Some(w) => diff_stripped(v, w, path, out),
                    None => {}
                }
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                diff_stripped(v, w, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// A short rendering of a JSON value for error messages.
pub(crate) fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        let mut end = 200;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: Value) -> (Result<Enforced, ProtocolError>, Vec<String>) {
        let mut w = Vec::new();
        (enforce(v, &mut w), w)
    }

    #[test]
    fn clean_event_is_quiet() {
        let (r, w) = run(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x",
            "timestamp": 5, "metadata": {"k": null}, "subagentRunId": "s"}),
        );
        assert!(matches!(r, Ok(Enforced::Event(_))));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn unknown_type_is_dropped_with_warning() {
        let (r, w) = run(json!({"type": "FUTURE_EVENT", "x": 1}));
        assert_eq!(r, Ok(Enforced::Dropped));
        assert!(w[0].contains("FUTURE_EVENT"));
    }

    #[test]
    fn unknown_property_is_stripped_with_its_path() {
        let (r, w) = run(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "futureProp": 1}),
        );
        let Ok(Enforced::Event(e)) = r else { panic!() };
        assert!(e.to_value().get("futureProp").is_none());
        assert!(w[0].contains("/futureProp"), "{w:?}");
    }

    #[test]
    fn nested_unknown_property_is_reported_with_full_path() {
        let (_, w) = run(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
             "function": {"name": "f", "arguments": "", "extra": true}}]}]}));
        assert!(
            w.iter()
                .any(|w| w.contains("/messages/0/toolCalls/0/function/extra")),
            "{w:?}"
        );
    }

    #[test]
    fn attribution_on_an_unattributable_event_is_stripped() {
        let (_, w) = run(
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "subagentRunId": "s"}),
        );
        assert!(w.iter().any(|w| w.contains("/subagentRunId")), "{w:?}");
    }

    #[test]
    fn malformed_known_field_is_fatal_and_names_the_event() {
        let (r, _) = run(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5}));
        let err = r.unwrap_err();
        assert!(matches!(err, ProtocolError::Malformed(_)));
        let err = err.to_string();
        assert!(
            err.contains("TEXT_MESSAGE_CONTENT") && err.contains("delta"),
            "{err}"
        );
    }

    #[test]
    fn missing_required_field_is_fatal() {
        let (r, _) = run(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s"}));
        assert!(r.unwrap_err().to_string().contains("name"));
    }

    #[test]
    fn unknown_outcome_is_stripped_but_an_array_is_fatal() {
        let (r, w) = run(
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "paused"}}),
        );
        let Ok(Enforced::Event(e)) = r else { panic!() };
        assert!(e.to_value().get("outcome").is_none());
        assert!(w[0].contains("/outcome"));
        let (r, _) =
            run(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": []}));
        assert!(r.is_err());
    }

    #[test]
    fn unknown_parts_and_ops_are_dropped_with_paths() {
        let (r, w) = run(
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u", "role": "user",
            "content": [{"type": "text", "text": "a"}, {"type": "hologram"}, {"type": "text", "text": "b"}]}]}),
        );
        assert!(matches!(r, Ok(Enforced::Event(_))));
        assert!(w[0].contains("/messages/0/content/1"), "{w:?}");
        let (r, w) = run(
            json!({"type": "STATE_DELTA", "delta": [{"op": "increment", "path": "/a"},
            {"op": "remove", "path": "/b", "value": "extra kept"}]}),
        );
        let Ok(Enforced::Event(e)) = r else { panic!() };
        assert_eq!(
            e.to_value()["delta"],
            json!([{"op": "remove", "path": "/b", "value": "extra kept"}])
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("/delta/0"));
    }

    #[test]
    fn legacy_null_optionals_are_absent_and_quiet() {
        let (r, w) = run(
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": null}),
        );
        assert!(matches!(r, Ok(Enforced::Event(_))));
        assert!(w.is_empty());
    }
}
