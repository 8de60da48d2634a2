//! The schema form model: a JSON Schema and the current value → a tree of fields ([`Node`]),
//! and the checks a form makes before it sends ([`check`]). Pure, native, bounded.
//!
//! Per schema: `enum` (or `oneOf`/`anyOf` of `const`s) → a select; `boolean` → a switch;
//! `string` (`format: "date"` → a date input; long or multi-line → a text area), `number`,
//! `integer` → inputs with their `minimum`/`maximum`/`minLength`/`maxLength`; `object` → a group
//! of its properties (without `properties`: inferred from the value); `array` of objects → a
//! list of groups with add/remove, of scalars → a list of inputs. An array of objects that can
//! be switched on and off — a property whose `enum` has exactly two values, or holds a known
//! on/off pair (`enabled`/`disabled`…), or a boolean — and that have a label (`description`,
//! `title`, `name`…) is a checklist: one checkbox per item, the other fields kept as they are.
//!
//! Anything else is edited as JSON with a note saying why: `$ref`, `allOf`, other
//! `oneOf`/`anyOf` (an `anyOf` of one type and `null` is that type), a value whose type does not
//! fit the schema, nesting deeper than [`MAX_DEPTH`], more fields than [`MAX_FIELDS`] in all,
//! more than [`MAX_ITEMS`] items or [`MAX_OPTIONS`] options.

use super::labels::{humanize, item_noun, pretty, LABEL_CHARS};
use crate::ui::util::truncate;
use serde_json::Value;

use super::schema::{
    enum_options, required_of, toggle_of, type_of, with_outer, Toggle, LABEL_KEYS,
};
use super::values::{infer_schema, InputKind, Seg, MAX_DEPTH, MAX_FIELDS, MAX_ITEMS};

/// Most options a select offers.
pub const MAX_OPTIONS: usize = 200;
const HELP_CHARS: usize = 400;

/// What every field has.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Where its value lives.
    pub path: Vec<Seg>,
    /// Unique in the form (the inputs' ids are built from it).
    pub id: usize,
    pub label: String,
    pub help: Option<String>,
    pub required: bool,
}

/// One checkbox of a checklist.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckItem {
    pub id: usize,
    pub index: usize,
    pub label: String,
    pub checked: bool,
}

/// What a field is, hence its control.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Switch {
        on: bool,
    },
    Select {
        options: Vec<Value>,
        chosen: Option<usize>,
    },
    Input {
        kind: InputKind,
        text: String,
        min: Option<f64>,
        max: Option<f64>,
        min_len: Option<u64>,
        max_len: Option<u64>,
        in_list: bool,
    },
    Group {
        children: Vec<Node>,
    },
    List {
        items: Vec<Node>,
        item_schema: Value,
    },
    Checklist {
        toggle: Toggle,
        items: Vec<CheckItem>,
    },
    /// Edited as JSON; `note` says why.
    Raw {
        text: String,
        note: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub field: Field,
    pub kind: Kind,
}

/// The form for `value` under `schema` (an empty schema `{}` is inferred from the value).
pub fn build(schema: &Value, value: &Value) -> Node {
    let mut b = Builder {
        next: 0,
        reserved: 0,
    };
    b.node(
        schema,
        Some(value),
        Vec::new(),
        String::new(),
        false,
        0,
        false,
    )
}

struct Builder {
    /// The next field id: how many fields were made so far.
    next: usize,
    /// Fields promised to siblings not yet built (so a nested object cannot take their room).
    reserved: usize,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        schema: &Value,
        value: Option<&Value>,
        path: Vec<Seg>,
        name: String,
        required: bool,
        depth: usize,
        in_list: bool,
    ) -> Node {
        let id = self.next;
        self.next += 1;
        let label = schema
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map_or_else(|| humanize(&name), str::to_owned);
        let field = Field {
            path,
            id,
            label: truncate(&label, LABEL_CHARS),
            help: schema
                .get("description")
                .and_then(Value::as_str)
                .map(|d| truncate(d, HELP_CHARS)),
            required,
        };
        let kind = self.kind(schema, value, &field, depth, in_list);
        Node { field, kind }
    }

    fn kind(
        &mut self,
        schema: &Value,
        value: Option<&Value>,
        f: &Field,
        depth: usize,
        in_list: bool,
    ) -> Kind {
        let raw = |note: &str| Kind::Raw {
            text: value.map(pretty).unwrap_or_default(),
            note: Some(note.to_string()),
        };
        if depth > MAX_DEPTH {
            return raw(&format!(
                "Nested more than {MAX_DEPTH} levels deep: edit it as JSON."
            ));
        }
        if !schema.is_object() {
            return raw("Its schema is not an object: edit it as JSON.");
        }
        for key in ["$ref", "allOf", "not", "if"] {
            if schema.get(key).is_some() {
                return raw(&format!("Its schema uses {key}: edit it as JSON."));
            }
        }
        if let Some(options) = enum_options(schema) {
            if options.len() > MAX_OPTIONS {
                return raw(&format!(
                    "More than {MAX_OPTIONS} options: edit it as JSON."
                ));
            }
            let chosen = value.and_then(|v| options.iter().position(|o| o == v));
            if value.is_some_and(|v| !v.is_null()) && chosen.is_none() {
                return raw("Its value is not one of the options: edit it as JSON.");
            }
            return Kind::Select { options, chosen };
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alts) = schema.get(key).and_then(Value::as_array) {
                let mut real = alts
                    .iter()
                    .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"));
                return match (real.next(), real.next()) {
                    (Some(one), None) if one.get("$ref").is_none() => {
                        self.kind(&with_outer(schema, one, key), value, f, depth, in_list)
                    }
                    _ => raw(&format!("Its schema uses {key}: edit it as JSON.")),
                };
            }
        }
        let value = value.filter(|v| !v.is_null());
        let ty = match type_of(schema) {
            Some(t) => t,
            // No type: the value's shape says what to edit.
            None => match value {
                Some(v) if !v.is_null() => {
                    let inferred = infer_schema(v);
                    return match type_of(&inferred) {
                        Some(_) => self.kind(&inferred, Some(v), f, depth, in_list),
                        None => raw("It has no schema: edit it as JSON."),
                    };
                }
                _ => return raw("It has no schema: edit it as JSON."),
            },
        };
        let mismatch = || raw(&format!("Its value is not of type {ty}: edit it as JSON."));
        let num = |k: &str| schema.get(k).and_then(Value::as_f64);
        let len = |k: &str| schema.get(k).and_then(Value::as_u64);
        match ty {
            "boolean" => match value {
                None => Kind::Switch {
                    on: schema.get("default") == Some(&Value::Bool(true)),
                },
                Some(Value::Bool(b)) => Kind::Switch { on: *b },
                Some(_) => mismatch(),
            },
            "string" | "number" | "integer" => {
                let text = match value {
                    None => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
                    Some(_) => return mismatch(),
                };
                let format = schema.get("format").and_then(Value::as_str);
                let kind = match ty {
                    "number" => InputKind::Number,
                    "integer" => InputKind::Integer,
                    _ if format == Some("date") => InputKind::Date,
                    _ if text.contains('\n')
                        || text.chars().count() > 100
                        || len("maxLength").is_some_and(|m| m > 200) =>
                    {
                        InputKind::LongText
                    }
                    _ => InputKind::Text,
                };
                Kind::Input {
                    kind,
                    text,
                    min: num("minimum").or_else(|| num("exclusiveMinimum")),
                    max: num("maximum").or_else(|| num("exclusiveMaximum")),
                    min_len: len("minLength"),
                    max_len: len("maxLength"),
                    in_list,
                }
            }
            "object" => {
                let inferred;
                let props = match schema.get("properties").and_then(Value::as_object) {
                    Some(p) => p,
                    None => match value {
                        Some(v @ Value::Object(o)) if !o.is_empty() => {
                            inferred = infer_schema(v);
                            match inferred.get("properties").and_then(Value::as_object) {
                                Some(p) => p,
                                None => return mismatch(),
                            }
                        }
                        _ => return raw("It has no listed fields: edit it as JSON."),
                    },
                };
                if value.is_some_and(|v| !v.is_object()) {
                    return mismatch();
                }
                if props.len() > self.room() {
                    return raw(&format!(
                        "{} fields are more than a form shows: edit them as JSON.",
                        props.len()
                    ));
                }
                let required = required_of(schema);
                self.reserved += props.len();
                let children = props
                    .iter()
                    .map(|(k, p)| {
                        self.reserved -= 1;
                        let mut path = f.path.clone();
                        path.push(Seg::Key(k.clone()));
                        let v = value.and_then(|v| v.get(k));
                        let req = required.contains(&k.as_str());
                        self.node(p, v, path, k.clone(), req, depth + 1, false)
                    })
                    .collect();
                Kind::Group { children }
            }
            "array" => {
                let items = match value {
                    None => &[][..],
                    Some(Value::Array(a)) => a.as_slice(),
                    Some(_) => return mismatch(),
                };
                if items.len() > MAX_ITEMS {
                    return raw(&format!(
                        "{} items are more than a form shows ({MAX_ITEMS}): edit them as JSON.",
                        items.len()
                    ));
                }
                if items.len() > self.room() {
                    return raw("Too many fields for a form: edit it as JSON.");
                }
                let item_schema = match schema.get("items") {
                    Some(s) if s.is_object() => s.clone(),
                    _ if !items.is_empty() => infer_schema(&Value::Array(items.to_vec()))
                        .get("items")
                        .cloned()
                        .unwrap_or_default(),
                    _ => return raw("Its items have no schema: edit it as JSON."),
                };
                if let Some(k) = self.checklist(&item_schema, items) {
                    return k;
                }
                self.reserved += items.len();
                let children = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        self.reserved -= 1;
                        let mut path = f.path.clone();
                        path.push(Seg::Index(i));
                        let name = format!("{} {}", item_noun(&f.label), i + 1);
                        self.node(&item_schema, Some(v), path, name, false, depth + 1, true)
                    })
                    .collect();
                Kind::List {
                    items: children,
                    item_schema,
                }
            }
            other => raw(&format!("Type {other:?} is edited as JSON.")),
        }
    }

    /// How many more fields the form may have.
    fn room(&self) -> usize {
        MAX_FIELDS.saturating_sub(self.next + self.reserved)
    }

    /// A checklist, when the items can be switched on and off and each has a label.
    fn checklist(&mut self, item_schema: &Value, items: &[Value]) -> Option<Kind> {
        let props = item_schema.get("properties").and_then(Value::as_object)?;
        let toggle = toggle_of(props)?;
        let label_key = LABEL_KEYS
            .iter()
            .find(|k| props.get(**k).is_some_and(|p| type_of(p) == Some("string")))?;
        if !items.iter().all(Value::is_object) {
            return None;
        }
        let missing_on = match props.get(&toggle.key).and_then(|p| p.get("default")) {
            Some(d) => *d != toggle.off,
            None => !toggle.on.is_boolean(),
        };
        let items = items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let id = self.next;
                self.next += 1;
                CheckItem {
                    id,
                    index,
                    label: item
                        .get(*label_key)
                        .and_then(Value::as_str)
                        .filter(|s| !s.trim().is_empty())
                        .map_or_else(
                            || format!("Item {}", index + 1),
                            |s| truncate(s, LABEL_CHARS),
                        ),
                    checked: item
                        .get(&toggle.key)
                        .map_or(missing_on, |v| *v != toggle.off),
                }
            })
            .collect();
        Some(Kind::Checklist { toggle, items })
    }
}
