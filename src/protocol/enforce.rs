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
        // The value is parsed, not copied: the parse of a known shape does not fail (see
        // `Shape`); if it did, the message would lack the event's text.
        return match Event::from_value(value) {
            Ok(event) => Ok(Enforced::Event(Box::new(event))),
            Err(e) => Err(ProtocolError::Malformed(format!(
                "malformed {ty} event: {e}"
            ))),
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

mod shape;
use shape::Shape;

#[cfg(test)]
mod tests;
