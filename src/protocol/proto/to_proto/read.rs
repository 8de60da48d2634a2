//! Reading the members of an event's JSON object, with the error that names a member of the
//! wrong type.

use serde_json::{Map, Value};

use super::super::value::{object_to_pb, to_pb};
use super::super::ProtoError;

pub(super) type Obj = Map<String, Value>;

pub(super) fn bad(why: String) -> ProtoError {
    ProtoError::Encode(why)
}

/// A member that is present and not `null` (absent optional fields may arrive as `null` from
/// legacy producers; the binding omits them).
pub(super) fn present<'a>(o: &'a Obj, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

pub(super) fn obj<'a>(v: &'a Value, what: &str) -> Result<&'a Obj, ProtoError> {
    v.as_object()
        .ok_or_else(|| bad(format!("{what} is not an object")))
}

pub(super) fn req(o: &Obj, key: &str) -> Result<String, ProtoError> {
    Ok(opt(o, key)?.unwrap_or_default())
}

pub(super) fn opt(o: &Obj, key: &str) -> Result<Option<String>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{key} is not a string"))),
    }
}

pub(super) fn int(o: &Obj, key: &str) -> Result<Option<i64>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} is not a 64-bit integer"))),
    }
}

pub(super) fn boolean(o: &Obj, key: &str) -> Result<Option<bool>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} is not a boolean"))),
    }
}

/// Open JSON (any value, `null` included when present: a `null` result is data).
pub(super) fn value(o: &Obj, key: &str) -> Result<Option<prost_types::Value>, ProtoError> {
    o.get(key).map(to_pb).transpose()
}

pub(super) fn object(o: &Obj, key: &str) -> Result<Option<prost_types::Struct>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(object_to_pb(m)?)),
        Some(_) => Err(bad(format!("{key} is not an object"))),
    }
}

pub(super) fn list<'a>(o: &'a Obj, key: &str) -> Result<&'a [Value], ProtoError> {
    match present(o, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(bad(format!("{key} is not a list"))),
    }
}

pub(super) fn strings(o: &Obj, key: &str) -> Result<Vec<String>, ProtoError> {
    list(o, key)?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("{key} holds a non-string")))
        })
        .collect()
}
