//! The values side of the schema form: paths into a JSON value and the edits a form makes
//! (set a field, add or remove an item, switch a checklist item), input text → typed JSON, the
//! defaults an empty answer starts with, and a schema inferred from a value that has none. Pure
//! and bounded: every walk stops at [`MAX_DEPTH`] or at the number of fields a form may have.

use serde_json::{Map, Value};

use super::schema::{type_of, Toggle};

/// Deepest level of nesting a form shows; below it a subtree is edited as JSON.
pub const MAX_DEPTH: usize = 6;
/// Most fields (inputs, groups, list items) one form renders.
pub const MAX_FIELDS: usize = 500;
/// Most items a list shows.
pub const MAX_ITEMS: usize = 200;

/// One step of a path into a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A JSON pointer (RFC 6901) for a path: the key of a field's error.
pub fn pointer(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i) => format!("/{i}"),
        })
        .collect()
}

/// The value at `path`, if there is one.
pub fn get<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, s| match s {
        Seg::Key(k) => cur.get(k.as_str()),
        Seg::Index(i) => cur.get(*i),
    })
}

/// Sets (or with `None` removes) the value at `path`. Missing or `null` objects on the way are
/// created; a path through anything else (a string where an object should be, an index past
/// the end) changes nothing and returns false.
pub fn set(v: &mut Value, path: &[Seg], new: Option<Value>) -> bool {
    let Some((last, parents)) = path.split_last() else {
        if let Some(n) = new {
            *v = n;
        }
        return true;
    };
    let mut cur = v;
    for s in parents {
        cur = match s {
            Seg::Key(k) => {
                if cur.is_null() {
                    *cur = Value::Object(Map::new());
                }
                let Some(o) = cur.as_object_mut() else {
                    return false;
                };
                o.entry(k.clone()).or_insert(Value::Null)
            }
            Seg::Index(i) => match cur.get_mut(*i) {
                Some(x) => x,
                None => return false,
            },
        };
    }
    match last {
        Seg::Key(k) => {
            if cur.is_null() {
                if new.is_none() {
                    return true;
                }
                *cur = Value::Object(Map::new());
            }
            let Some(o) = cur.as_object_mut() else {
                return false;
            };
            match new {
                Some(n) => drop(o.insert(k.clone(), n)),
                None => drop(o.remove(k)),
            }
            true
        }
        Seg::Index(i) => match (cur.get_mut(*i), new) {
            (Some(x), Some(n)) => {
                *x = n;
                true
            }
            _ => false,
        },
    }
}

/// What an input holds, hence how its text becomes JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Text,
    /// A `<textarea>`: long or multi-line text.
    LongText,
    /// `YYYY-MM-DD`.
    Date,
    Number,
    Integer,
    /// JSON text (a subtree the form does not model).
    Json,
}

/// The value an input's text stands for. An empty field is `None` (the key is left out) for
/// text, numbers and JSON; inside a list (`in_list`) an empty text is `""` and an empty number
/// an error, since an item cannot be left out.
pub fn parse_input(kind: InputKind, text: &str, in_list: bool) -> Result<Option<Value>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() && !(in_list && matches!(kind, InputKind::Text | InputKind::LongText)) {
        return if in_list {
            Err("Enter a value.".into())
        } else {
            Ok(None)
        };
    }
    match kind {
        InputKind::Text | InputKind::LongText | InputKind::Date => {
            Ok(Some(Value::String(text.to_string())))
        }
        InputKind::Number => parse_number(trimmed)
            .map(Some)
            .ok_or_else(|| "Enter a number.".into()),
        InputKind::Integer => trimmed
            .parse::<i64>()
            .map(|n| Some(Value::from(n)))
            .map_err(|_| "Enter a whole number.".into()),
        InputKind::Json => serde_json::from_str::<Value>(text)
            .map(Some)
            .map_err(|e| format!("Not valid JSON: {e}")),
    }
}

/// A number typed in a field: finite, and an integer when it has no fraction (so `4` stays `4`,
/// not `4.0`).
pub fn parse_number(text: &str) -> Option<Value> {
    let n = text.trim().parse::<f64>().ok().filter(|n| n.is_finite())?;
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Some(Value::from(n as i64))
    } else {
        serde_json::Number::from_f64(n).map(Value::Number)
    }
}

/// Switches item `index` of the list at `path` on or off.
pub fn switch_item(v: &mut Value, path: &[Seg], index: usize, t: &Toggle, on: bool) -> bool {
    let mut item = path.to_vec();
    item.push(Seg::Index(index));
    item.push(Seg::Key(t.key.clone()));
    let new = if on { t.on.clone() } else { t.off.clone() };
    set(v, &item, Some(new))
}

/// Appends a new item (see [`default_of`]) to the list at `path`, creating the list if it is
/// missing; refuses past [`MAX_ITEMS`].
pub fn add_item(v: &mut Value, path: &[Seg], item_schema: &Value) -> bool {
    let len = get(v, path).and_then(Value::as_array).map(Vec::len);
    match len {
        Some(n) if n >= MAX_ITEMS => false,
        Some(_) => match get_mut(v, path).and_then(Value::as_array_mut) {
            Some(a) => {
                a.push(default_of(item_schema, 0));
                true
            }
            None => false,
        },
        None if get(v, path).is_none_or(Value::is_null) => set(
            v,
            path,
            Some(Value::Array(vec![default_of(item_schema, 0)])),
        ),
        None => false,
    }
}

/// Removes item `index` of the list at `path`.
pub fn remove_item(v: &mut Value, path: &[Seg], index: usize) -> bool {
    match get_mut(v, path).and_then(Value::as_array_mut) {
        Some(a) if index < a.len() => {
            a.remove(index);
            true
        }
        _ => false,
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |cur, s| match s {
        Seg::Key(k) => cur.get_mut(k.as_str()),
        Seg::Index(i) => cur.get_mut(*i),
    })
}

/// A new value for a schema: its `default`, else the first enum option, else an empty value of
/// its type (objects get their properties' defaults), else `null`.
pub fn default_of(schema: &Value, depth: usize) -> Value {
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    match type_of(schema) {
        Some("string") => Value::String(String::new()),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => {
            let mut o = Map::new();
            if depth < MAX_DEPTH {
                let props = schema.get("properties").and_then(Value::as_object);
                for (k, p) in props.into_iter().flatten().take(MAX_FIELDS) {
                    let d = default_of(p, depth + 1);
                    if !d.is_null() {
                        o.insert(k.clone(), d);
                    }
                }
            }
            Value::Object(o)
        }
        _ => Value::Null,
    }
}

/// Fills what an answer starts with: each missing property of an object schema that has a
/// `default` gets it, and each missing boolean gets `false` (a switch left off still answers).
/// Nested objects that exist are filled too, down to [`MAX_DEPTH`].
pub fn apply_defaults(schema: &Value, v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH || type_of(schema) != Some("object") {
        return;
    }
    let (Some(props), Some(o)) = (
        schema.get("properties").and_then(Value::as_object),
        v.as_object_mut(),
    ) else {
        return;
    };
    for (k, p) in props.iter().take(MAX_FIELDS) {
        match o.get_mut(k) {
            Some(child) => apply_defaults(p, child, depth + 1),
            None => {
                if let Some(d) = p.get("default") {
                    o.insert(k.clone(), d.clone());
                } else if type_of(p) == Some("boolean") {
                    o.insert(k.clone(), Value::Bool(false));
                }
            }
        }
    }
}

/// A JSON Schema for a value that came without one, so plain data is edited in a form: objects
/// with their properties, arrays with the merged shape of their first items, strings, integers,
/// numbers, booleans. `null`, mixed arrays and whatever is nested deeper than [`MAX_DEPTH`] or
/// past [`MAX_FIELDS`] properties get `{}` (edited as JSON).
pub fn infer_schema(v: &Value) -> Value {
    let mut budget = MAX_FIELDS;
    infer(v, 0, &mut budget)
}

fn infer(v: &Value, depth: usize, budget: &mut usize) -> Value {
    if depth > MAX_DEPTH || *budget == 0 {
        return Value::Object(Map::new());
    }
    *budget -= 1;
    let ty = |t: &str| serde_json::json!({ "type": t });
    match v {
        Value::Null => Value::Object(Map::new()),
        Value::Bool(_) => ty("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => ty("integer"),
        Value::Number(_) => ty("number"),
        Value::String(_) => ty("string"),
        Value::Object(o) => {
            let mut props = Map::new();
            for (k, x) in o {
                if *budget == 0 {
                    break;
                }
                props.insert(k.clone(), infer(x, depth + 1, budget));
            }
            serde_json::json!({"type": "object", "properties": props})
        }
        Value::Array(a) => {
            let mut items: Option<Value> = None;
            for x in a.iter().take(20) {
                let s = infer(x, depth + 1, budget);
                items = Some(match items {
                    None => s,
                    Some(prev) => merge(prev, s),
                });
            }
            let mut out = ty("array");
            if let Some(items) = items {
                out["items"] = items;
            }
            out
        }
    }
}

/// Two inferred item shapes as one: objects take the union of their properties; anything else
/// must agree (an integer and a number make a number) or it is `{}`.
fn merge(a: Value, b: Value) -> Value {
    if a == b {
        return a;
    }
    match (type_of(&a), type_of(&b)) {
        (Some("object"), Some("object")) => {
            let mut a = a;
            if let (Some(pa), Some(pb)) = (
                a.get_mut("properties").and_then(Value::as_object_mut),
                b.get("properties").and_then(Value::as_object),
            ) {
                for (k, s) in pb {
                    pa.entry(k.clone()).or_insert_with(|| s.clone());
                }
            }
            a
        }
        (Some("integer" | "number"), Some("integer" | "number")) => {
            serde_json::json!({"type": "number"})
        }
        _ => Value::Object(Map::new()),
    }
}
