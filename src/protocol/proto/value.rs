//! Open JSON (`serde_json::Value`) as `google.protobuf.Value`/`Struct` and back.
//!
//! Numbers travel as doubles, as protobuf's `Value` defines them: an integral double within
//! JavaScript's safe range comes back as a JSON integer (what the TypeScript binding yields),
//! anything else as a float. Non-finite doubles have no JSON form and are refused. Writing is
//! bounded by [`MAX_JSON_DEPTH`]; reading needs no bound of its own, since prost refuses a frame
//! nested deeper than [`super::MAX_MESSAGE_DEPTH`] before any of this runs.

use prost_types::value::Kind;
use prost_types::{ListValue, NullValue, Struct, Value as PbValue};
use serde_json::{Map, Number, Value};

use super::{ProtoError, MAX_JSON_DEPTH};

/// The largest integer a double holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A JSON value as a protobuf `Value`.
pub fn to_pb(v: &Value) -> Result<PbValue, ProtoError> {
    to_pb_at(v, 0)
}

/// A JSON object as a protobuf `Struct`.
pub fn object_to_pb(map: &Map<String, Value>) -> Result<Struct, ProtoError> {
    object_at(map, 0)
}

fn to_pb_at(v: &Value, depth: usize) -> Result<PbValue, ProtoError> {
    let kind = match v {
        Value::Null => Kind::NullValue(NullValue::NullValue as i32),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Kind::StringValue(s.clone()),
        Value::Array(items) => {
            if depth >= MAX_JSON_DEPTH {
                return Err(ProtoError::TooDeep);
            }
            let values = items
                .iter()
                .map(|i| to_pb_at(i, depth + 1))
                .collect::<Result<_, _>>()?;
            Kind::ListValue(ListValue { values })
        }
        Value::Object(map) => Kind::StructValue(object_at(map, depth)?),
    };
    Ok(PbValue { kind: Some(kind) })
}

fn object_at(map: &Map<String, Value>, depth: usize) -> Result<Struct, ProtoError> {
    if depth >= MAX_JSON_DEPTH {
        return Err(ProtoError::TooDeep);
    }
    let fields = map
        .iter()
        .map(|(k, v)| Ok((k.clone(), to_pb_at(v, depth + 1)?)))
        .collect::<Result<_, ProtoError>>()?;
    Ok(Struct { fields })
}

/// A protobuf `Value` as JSON. A `Value` with no kind set reads as `null` (protobuf's default).
pub fn from_pb(v: PbValue) -> Result<Value, ProtoError> {
    Ok(match v.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(b),
        Some(Kind::NumberValue(n)) => number(n)?,
        Some(Kind::StringValue(s)) => Value::String(s),
        Some(Kind::ListValue(l)) => Value::Array(
            l.values
                .into_iter()
                .map(from_pb)
                .collect::<Result<_, _>>()?,
        ),
        Some(Kind::StructValue(s)) => Value::Object(object_from_pb(s)?),
    })
}

/// A protobuf `Struct` as a JSON object.
pub fn object_from_pb(s: Struct) -> Result<Map<String, Value>, ProtoError> {
    s.fields
        .into_iter()
        .map(|(k, v)| Ok((k, from_pb(v)?)))
        .collect()
}

fn number(n: f64) -> Result<Value, ProtoError> {
    if !n.is_finite() {
        return Err(ProtoError::Decode(format!(
            "the number {n} has no JSON form"
        )));
    }
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        // Exact: the double is an integer within i64's range.
        return Ok(Value::from(n as i64));
    }
    Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
}
