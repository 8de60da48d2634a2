//! Reading a component's props with clear errors: the floor every component file stands on.

use serde_json::{Map, Value};

/// Why a component's props are invalid (shown in place of the component).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PropsError {
    #[error("\"{0}\" is required")]
    Missing(String),
    #[error("\"{key}\" must be {expected}, got {got}")]
    WrongType {
        key: String,
        expected: &'static str,
        got: &'static str,
    },
    #[error("{what} must be an object, got {got}")]
    NotAnObject { what: String, got: &'static str },
    #[error("expected a scalar, got {0}")]
    NotScalar(&'static str),
    /// A problem inside one part of the props (`fields[2]: "name" is required`).
    #[error("{at}: {source}")]
    At {
        at: String,
        #[source]
        source: Box<PropsError>,
    },
    /// A rule of one component (a row as long as the header, a URL it may load…).
    #[error("{0}")]
    Invalid(String),
}

impl PropsError {
    /// This error, located in the part `at` of the props.
    pub fn at(self, at: &str) -> PropsError {
        PropsError::At {
            at: at.to_string(),
            source: Box::new(self),
        }
    }
}

/// `v` as an object, or an error naming what it should have been.
pub(crate) fn as_object<'a>(
    v: &'a Value,
    what: &str,
) -> Result<&'a Map<String, Value>, PropsError> {
    v.as_object().ok_or_else(|| PropsError::NotAnObject {
        what: what.to_string(),
        got: kind_of(v),
    })
}

fn wrong_type(key: &str, expected: &'static str, v: &Value) -> PropsError {
    PropsError::WrongType {
        key: key.to_string(),
        expected,
        got: kind_of(v),
    }
}

/// A required string field.
pub(crate) fn req_str(obj: &Map<String, Value>, key: &str) -> Result<String, PropsError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(wrong_type(key, "a string", other)),
        None => Err(PropsError::Missing(key.to_string())),
    }
}

/// An optional string field (`null` counts as absent).
pub(crate) fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, PropsError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(wrong_type(key, "a string", other)),
    }
}

/// A required array field.
pub(crate) fn req_array<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a [Value], PropsError> {
    match obj.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(wrong_type(key, "an array", other)),
        None => Err(PropsError::Missing(key.to_string())),
    }
}

/// The text of a scalar (`null` → empty); `Err` for arrays and objects.
pub(crate) fn scalar_text(v: &Value) -> Result<String, PropsError> {
    match v {
        Value::Null => Ok(String::new()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::String(s) => Ok(s.clone()),
        other => Err(PropsError::NotScalar(kind_of(other))),
    }
}

/// The JSON kind of a value, for error messages.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
