//! A form's values: the raw input text of each field, and the typed JSON object it submits.

use serde_json::{Map, Value};

use super::super::json::{json_text, TEXT_DEPTH};
use super::{FieldKind, FormField};
use crate::ui::schema_form::values::parse_number;

/// The raw (input) text a field starts with: its default when it fits the kind. Booleans are
/// `"true"`/`"false"`, enums the index of the chosen option (or `""`), Json pretty JSON.
pub fn initial_raw(f: &FormField) -> String {
    let Some(d) = &f.default else {
        return if f.kind == FieldKind::Boolean {
            "false".into()
        } else {
            String::new()
        };
    };
    match (&f.kind, d) {
        (FieldKind::Text | FieldKind::Date, Value::String(s)) => s.clone(),
        (FieldKind::Number, Value::Number(n)) => n.to_string(),
        (FieldKind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
        (FieldKind::Boolean, Value::Bool(b)) => b.to_string(),
        (FieldKind::Boolean, _) => "false".into(),
        (FieldKind::Enum(options), d) => options
            .iter()
            .position(|o| o == d)
            .map(|i| i.to_string())
            .unwrap_or_default(),
        (FieldKind::Json, d) => json_text(d, true, TEXT_DEPTH, 64 * 1024),
        _ => String::new(),
    }
}

/// Turns the raw texts (one per field, as [`initial_raw`] describes them) into the submitted
/// object, or the error message of each field (`None` where it is fine).
pub fn collect_values(fields: &[FormField], raw: &[String]) -> Result<Value, Vec<Option<String>>> {
    let mut out = Map::new();
    let mut errors = vec![None; fields.len()];
    for (i, f) in fields.iter().enumerate() {
        let text = raw.get(i).map(String::as_str).unwrap_or("");
        let empty = text.trim().is_empty();
        if empty && f.kind != FieldKind::Boolean {
            if f.required {
                errors[i] = Some(match f.kind {
                    FieldKind::Enum(_) => "Choose an option.".to_string(),
                    _ => "This field is required.".to_string(),
                });
            }
            continue;
        }
        let value = match &f.kind {
            FieldKind::Text | FieldKind::Date => Ok(Value::String(text.to_string())),
            FieldKind::Number => parse_number(text).ok_or_else(|| "Enter a number.".to_string()),
            FieldKind::Integer => text
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| "Enter a whole number.".to_string()),
            FieldKind::Boolean => Ok(Value::Bool(text == "true")),
            FieldKind::Enum(options) => text
                .parse::<usize>()
                .ok()
                .and_then(|j| options.get(j).cloned())
                .ok_or_else(|| "Choose an option.".to_string()),
            FieldKind::Json => {
                serde_json::from_str::<Value>(text).map_err(|e| format!("Enter valid JSON ({e})."))
            }
        };
        match value {
            Ok(v) => {
                out.insert(f.name.clone(), v);
            }
            Err(e) => errors[i] = Some(e),
        }
    }
    if errors.iter().any(Option::is_some) {
        Err(errors)
    } else {
        Ok(Value::Object(out))
    }
}
