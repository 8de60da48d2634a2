//! Reading JSON Schema for the form: an item's on/off switch, enum options, the single real
//! alternative of an `anyOf`, required names. Pure.

use serde_json::{Map, Value};

/// On/off pairs recognised in an enum of more than two values (on first).
pub const ON_OFF: [(&str, &str); 8] = [
    ("enabled", "disabled"),
    ("on", "off"),
    ("yes", "no"),
    ("active", "inactive"),
    ("included", "excluded"),
    ("selected", "unselected"),
    ("checked", "unchecked"),
    ("true", "false"),
];
/// Item fields that name a checklist item, in order of preference.
pub const LABEL_KEYS: [&str; 6] = ["description", "title", "name", "label", "text", "summary"];

/// How a checklist item is switched: the item's field `key` holds `on` or `off`.
#[derive(Debug, Clone, PartialEq)]
pub struct Toggle {
    pub key: String,
    pub on: Value,
    pub off: Value,
}

/// The first non-null type a schema names (`"type": "string"` or `["string", "null"]`).
pub fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

/// The field that switches an item: a two-value enum (the "off" one is the one that reads as
/// off, else the second), an enum holding a known on/off pair, or a boolean (one named like
/// `enabled`/`selected` first).
pub fn toggle_of(props: &Map<String, Value>) -> Option<Toggle> {
    let string_enum = |p: &Value| -> Option<Vec<String>> {
        p.get("enum")?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    for (k, p) in props {
        let Some(e) = string_enum(p) else { continue };
        let off_word = |s: &str| ON_OFF.iter().any(|(_, off)| s.eq_ignore_ascii_case(off));
        if e.len() == 2 {
            let (on, off) = if off_word(&e[0]) { (1, 0) } else { (0, 1) };
            return Some(Toggle {
                key: k.clone(),
                on: Value::String(e[on].clone()),
                off: Value::String(e[off].clone()),
            });
        }
        if let Some((on, off)) = ON_OFF
            .iter()
            .find(|(on, off)| e.iter().any(|x| x == on) && e.iter().any(|x| x == off))
        {
            return Some(Toggle {
                key: k.clone(),
                on: Value::String((*on).into()),
                off: Value::String((*off).into()),
            });
        }
    }
    let booleans: Vec<&String> = props
        .iter()
        .filter(|(_, p)| type_of(p) == Some("boolean"))
        .map(|(k, _)| k)
        .collect();
    let preferred = [
        "enabled", "selected", "checked", "done", "include", "active",
    ];
    let key = booleans
        .iter()
        .find(|k| preferred.contains(&k.as_str()))
        .or(booleans.first())?;
    Some(Toggle {
        key: (*key).clone(),
        on: Value::Bool(true),
        off: Value::Bool(false),
    })
}

/// The options of an `enum`, or of a `oneOf`/`anyOf` whose alternatives are all `const`s; scalar
/// options only.
pub fn enum_options(schema: &Value) -> Option<Vec<Value>> {
    let options: Vec<Value> = match schema.get("enum").and_then(Value::as_array) {
        Some(e) => e.clone(),
        None => ["oneOf", "anyOf"].iter().find_map(|k| {
            let alts = schema.get(*k)?.as_array()?;
            alts.iter().map(|a| a.get("const").cloned()).collect()
        })?,
    };
    let options: Vec<Value> = options.into_iter().filter(|o| !o.is_null()).collect();
    (!options.is_empty() && options.iter().all(|o| !o.is_object() && !o.is_array()))
        .then_some(options)
}

/// The single alternative of `key`, keeping the outer schema's title, description, default.
pub fn with_outer(outer: &Value, one: &Value, key: &str) -> Value {
    let mut s = one.clone();
    if let (Some(o), Some(outer)) = (s.as_object_mut(), outer.as_object()) {
        for (k, v) in outer {
            if k != key {
                o.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    s
}

pub fn required_of(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}
