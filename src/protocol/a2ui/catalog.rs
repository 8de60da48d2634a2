//! Catalogs: which components a surface may use and what their properties are. The basic
//! catalog is built in (see `basic.rs`); any other catalog is given as JSON in the shape of the
//! conformance suites' inline catalogs (`{catalogId, components: {Name: <JSON Schema>}, theme,
//! functions}`) and checked with the small JSON Schema subset of `schema.rs`.
//!
//! Besides validation a catalog answers the topology walk's question: which properties of a
//! component refer to other components (`ComponentId`, `ChildList`).

use serde_json::{json, Map, Value};

use super::basic::{self, Ty};
use super::check::{validate_basic, ENVELOPE_KEYS};
use super::error::{A2uiError, Detail, DetailCode};
use super::refs::{child_list_refs, push_id, ChildRef};
use super::schema;

/// The ids the basic catalog answers to: its own `catalogId`, the id the official AG-UI
/// middleware sends (`…/v0_9/basic_catalog.json`), and the short name agents use.
pub const BASIC_CATALOG_IDS: [&str; 3] = [
    "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json",
    "https://a2ui.org/specification/v0_9/basic_catalog.json",
    "basic",
];

/// The values the basic catalog allows for an enum property (`Row.justify`, `Text.variant`…);
/// empty when the property is not an enum. The renderer takes class names only from these.
pub fn basic_enum(component: &str, prop: &str) -> &'static [&'static str] {
    match basic::component(component).and_then(|s| basic::prop(s, prop)) {
        Some(Ty::Enum(values)) => values,
        _ => &[],
    }
}

/// A catalog a surface is checked against.
#[derive(Debug, Clone, PartialEq)]
pub enum Catalog {
    /// The v0.9 basic catalog.
    Basic,
    /// A catalog given as JSON Schema.
    Schema(Box<SchemaCatalog>),
}

/// A catalog read from JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaCatalog {
    pub id: String,
    pub components: Map<String, Value>,
    pub functions: Option<Value>,
    pub theme: Option<Value>,
}

impl Catalog {
    /// A catalog from its JSON form (the suites' `catalogs` entries).
    pub fn from_json(v: &Value) -> Result<Catalog, A2uiError> {
        let o = v
            .as_object()
            .ok_or_else(|| A2uiError::validation("a catalog must be an object"))?;
        let id = o
            .get("catalogId")
            .and_then(Value::as_str)
            .ok_or_else(|| A2uiError::validation("a catalog needs a string catalogId"))?;
        let components = match o.get("components") {
            None => Map::new(),
            Some(Value::Object(c)) => c.clone(),
            Some(_) => {
                return Err(A2uiError::validation(
                    "catalog components must be an object",
                ))
            }
        };
        Ok(Catalog::Schema(Box::new(SchemaCatalog {
            id: id.to_string(),
            components,
            functions: o.get("functions").cloned(),
            theme: o.get("theme").cloned(),
        })))
    }

    /// Whether the catalog defines a component of this type.
    pub fn has_component(&self, kind: &str) -> bool {
        match self {
            Catalog::Basic => basic::component(kind).is_some(),
            Catalog::Schema(s) => s.components.contains_key(kind),
        }
    }

    /// What is wrong with a component (an object with `id` and `component`); empty when it is
    /// valid. Paths are relative to the component. The component's size and nesting are
    /// bounded by the processor before it gets here, which bounds this walk too.
    pub fn validate_component(&self, c: &Map<String, Value>) -> Vec<Detail> {
        let mut out = Vec::new();
        let kind = match c.get("component") {
            Some(Value::String(k)) => k.as_str(),
            _ => {
                out.push(Detail::new(
                    "component",
                    DetailCode::MissingField,
                    "component is required",
                ));
                return out;
            }
        };
        match self {
            Catalog::Basic => match basic::component(kind) {
                Some(spec) => validate_basic(spec, c, &mut out),
                None => out.push(unknown_component(kind)),
            },
            Catalog::Schema(s) => match s.components.get(kind) {
                Some(sch) => schema::validate_component(sch, c, &ENVELOPE_KEYS, &mut out),
                None => out.push(unknown_component(kind)),
            },
        }
        out
    }

    /// The components `c` refers to, in property order.
    pub fn child_refs(&self, c: &Map<String, Value>) -> Vec<ChildRef> {
        let mut out = Vec::new();
        let Some(kind) = c.get("component").and_then(Value::as_str) else {
            return out;
        };
        match self {
            Catalog::Basic => {
                let Some(spec) = basic::component(kind) else {
                    return out;
                };
                for (name, v) in c {
                    match basic::prop(spec, name) {
                        Some(Ty::ChildList) => child_list_refs(v, &mut out),
                        Some(Ty::Id) => push_id(v, false, &mut out),
                        Some(Ty::Tabs) => {
                            for tab in v.as_array().into_iter().flatten() {
                                push_id(&tab["child"], false, &mut out);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Catalog::Schema(s) => {
                if let Some(sch) = s.components.get(kind) {
                    schema::child_refs(sch, c, &mut out);
                }
            }
        }
        out
    }

    /// What is wrong with a surface's theme under this catalog.
    pub fn validate_theme(&self, theme: &Map<String, Value>) -> Vec<Detail> {
        let mut out = Vec::new();
        match self {
            Catalog::Basic => {
                for (k, v) in theme {
                    let ok = match k.as_str() {
                        "primaryColor" => v.as_str().is_some_and(is_hex_color),
                        "iconUrl" | "agentDisplayName" => v.is_string(),
                        _ => true,
                    };
                    if !ok {
                        out.push(Detail::new(
                            k.clone(),
                            DetailCode::InvalidValue,
                            format!("invalid theme property '{k}'"),
                        ));
                    }
                }
            }
            Catalog::Schema(s) => {
                if let Some(sch) = &s.theme {
                    schema::validate(sch, &Value::Object(theme.clone()), "", &mut out);
                }
            }
        }
        out
    }

    /// The catalog as a renderer announces it inline (`inlineCatalogs` of the client
    /// capabilities): each component's schema wrapped with the common component envelope.
    pub fn inline_json(&self, id: &str) -> Value {
        let Catalog::Schema(s) = self else {
            // The basic catalog is announced by id; every agent knows it.
            return json!({ "catalogId": id });
        };
        let mut out = json!({ "catalogId": s.id });
        if !s.components.is_empty() {
            let mut comps = Map::new();
            for (name, sch) in &s.components {
                let mut props = Map::new();
                props.insert("component".into(), json!({ "const": name }));
                if let Some(Value::Object(p)) = sch.get("properties") {
                    props.extend(
                        p.iter()
                            .filter(|(k, _)| k.as_str() != "component")
                            .map(|(k, v)| (k.clone(), v.clone())),
                    );
                }
                let mut required = vec![json!("component")];
                for r in sch
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if r != "component" {
                        required.push(r.clone());
                    }
                }
                comps.insert(
                    name.clone(),
                    json!({ "allOf": [
                        { "$ref": "common_types.json#/$defs/ComponentCommon" },
                        { "properties": props, "required": required },
                    ]}),
                );
            }
            out["components"] = Value::Object(comps);
        }
        if let Some(Value::Object(f)) = &s.functions {
            let list: Vec<Value> = f
                .iter()
                .map(|(name, def)| {
                    let mut d = def.as_object().cloned().unwrap_or_default();
                    d.insert("name".into(), json!(name));
                    Value::Object(d)
                })
                .collect();
            out["functions"] = Value::Array(list);
        }
        if let Some(t) = &s.theme {
            out["theme"] = t.get("properties").cloned().unwrap_or_else(|| t.clone());
        }
        out
    }
}

fn unknown_component(kind: &str) -> Detail {
    Detail::new(
        "component",
        DetailCode::InvalidValue,
        format!("Unknown component '{kind}'"),
    )
}

fn is_hex_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}
