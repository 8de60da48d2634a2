//! Building a JSON object member by member, and the open-JSON readers every mapping uses.

use serde_json::{Map, Value};

use super::super::value::{from_pb, object_from_pb};
use super::super::ProtoError;

/// A JSON object under construction.
#[derive(Default)]
pub(super) struct Out(pub(super) Map<String, Value>);

impl Out {
    pub(super) fn s(mut self, key: &str, v: String) -> Self {
        self.0.insert(key.into(), Value::String(v));
        self
    }
    pub(super) fn o(mut self, key: &str, v: Option<String>) -> Self {
        if let Some(v) = v {
            self.0.insert(key.into(), Value::String(v));
        }
        self
    }
    pub(super) fn v(mut self, key: &str, v: Option<Value>) -> Self {
        if let Some(v) = v {
            self.0.insert(key.into(), v);
        }
        self
    }
    pub(super) fn done(self) -> Value {
        Value::Object(self.0)
    }
}

pub(super) fn val(v: Option<prost_types::Value>) -> Result<Option<Value>, ProtoError> {
    v.map(from_pb).transpose()
}

pub(super) fn obj(v: Option<prost_types::Struct>) -> Result<Option<Value>, ProtoError> {
    Ok(v.map(object_from_pb).transpose()?.map(Value::Object))
}

pub(super) fn strings(v: Vec<String>) -> Option<Value> {
    (!v.is_empty()).then(|| Value::from(v))
}
