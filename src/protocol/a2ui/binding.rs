//! Reading dynamic values (`DynamicString`, `DynamicNumber`, …) against a data model: a literal
//! is itself, `{path}` is the value at that pointer (relative paths read under the List
//! template's item, the *scope*), a function call is evaluated by `functions.rs`.

use serde_json::Value;

use super::functions;
pub use super::scope::{binding_path, display, Scope};

/// The value of a dynamic value: literals as they are, bindings read (`Null` when the path
/// holds nothing), calls evaluated (`Null` when they cannot be).
pub fn resolve(v: &Value, scope: &Scope<'_>) -> Value {
    if let Some(p) = binding_path(v) {
        return scope.read(p).cloned().unwrap_or(Value::Null);
    }
    if v.get("call").is_some_and(Value::is_string) {
        return functions::evaluate(v, scope);
    }
    v.clone()
}

/// A dynamic value as display text: strings as they are, numbers and booleans printed,
/// null as empty, anything else as compact JSON.
pub fn text(v: &Value, scope: &Scope<'_>) -> String {
    display(&resolve(v, scope))
}

/// A dynamic boolean (`false` unless it resolves to `true`).
pub fn boolean(v: &Value, scope: &Scope<'_>) -> bool {
    resolve(v, scope).as_bool().unwrap_or(false)
}

/// A dynamic number (`None` unless it resolves to a number or a numeric string).
pub fn number(v: &Value, scope: &Scope<'_>) -> Option<f64> {
    match resolve(v, scope) {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A dynamic list of strings (non-strings dropped).
pub fn string_list(v: &Value, scope: &Scope<'_>) -> Vec<String> {
    match resolve(v, scope) {
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}
