//! Where a dynamic value is read: the data model and the List item a template renders
//! ([`Scope`]), what a `{path}` binding is, and how a resolved value reads as text.

use serde_json::Value;

use super::check::is_binding;
use super::pointer::{get_path, resolve_path};

/// Where a value is read: the data model and the scope of the template item it sits in.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    pub model: &'a Value,
    /// The absolute pointer of the List item a template renders (`/items/3`), if any.
    pub base: Option<&'a str>,
}

impl<'a> Scope<'a> {
    pub fn root(model: &'a Value) -> Self {
        Scope { model, base: None }
    }

    /// The absolute pointer a binding's path names here.
    pub fn absolute(&self, path: &str) -> String {
        resolve_path(path, self.base)
    }

    /// The value at a (possibly relative) path.
    pub fn read(&self, path: &str) -> Option<&'a Value> {
        get_path(self.model, &self.absolute(path))
    }
}

/// The path of a `{path}` binding, if `v` is one.
pub fn binding_path(v: &Value) -> Option<&str> {
    if is_binding(v) {
        v.get("path").and_then(Value::as_str)
    } else {
        None
    }
}

/// How a resolved value reads as text.
pub fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}
