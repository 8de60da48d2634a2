//! Catalogs: which components a surface may use and what their properties are. The basic
//! catalog is built in (see `basic.rs`); any other catalog is given as JSON in the shape of the
//! conformance suites' inline catalogs (`{catalogId, components: {Name: <JSON Schema>}, theme,
//! functions}`) and checked with the small JSON Schema subset of `schema.rs`.
//!
//! Besides validation a catalog answers the topology walk's question: which properties of a
//! component refer to other components (`ComponentId`, `ChildList`).

use serde_json::{json, Map, Value};

use super::basic::{self, Ty};
use super::error::{A2uiError, Detail, DetailCode};
use super::schema;

/// The ids the basic catalog answers to: its own `catalogId`, the id the official AG-UI
/// middleware sends (`…/v0_9/basic_catalog.json`), and the short name agents use.
pub const BASIC_CATALOG_IDS: [&str; 3] = [
    "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json",
    "https://a2ui.org/specification/v0_9/basic_catalog.json",
    "basic",
];

/// A catalog a surface is checked against.
#[derive(Debug, Clone, PartialEq)]
pub enum Catalog {
    /// The v0.9 basic catalog.
    Basic,
    /// A catalog given as JSON Schema.
    Schema(SchemaCatalog),
}

/// A catalog read from JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaCatalog {
    pub id: String,
    pub components: Map<String, Value>,
    pub functions: Option<Value>,
    pub theme: Option<Value>,
}

/// A reference from one component to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildRef {
    pub id: String,
    /// Through a List template (`{componentId, path}`): rendered once per data item.
    pub template: bool,
}

/// Keys the envelope adds to every component; a catalog schema does not declare them.
const ENVELOPE_KEYS: [&str; 2] = ["id", "component"];

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
        Ok(Catalog::Schema(SchemaCatalog {
            id: id.to_string(),
            components,
            functions: o.get("functions").cloned(),
            theme: o.get("theme").cloned(),
        }))
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

fn push_id(v: &Value, template: bool, out: &mut Vec<ChildRef>) {
    if let Some(id) = v.as_str() {
        out.push(ChildRef {
            id: id.to_string(),
            template,
        });
    }
}

pub(crate) fn child_list_refs(v: &Value, out: &mut Vec<ChildRef>) {
    match v {
        Value::Array(ids) => ids.iter().for_each(|id| push_id(id, false, out)),
        Value::Object(t) => push_id(t.get("componentId").unwrap_or(&Value::Null), true, out),
        _ => {}
    }
}

fn validate_basic(spec: &basic::Spec, c: &Map<String, Value>, out: &mut Vec<Detail>) {
    for (name, _, required) in spec.props {
        if *required && !c.contains_key(*name) {
            out.push(Detail::new(
                *name,
                DetailCode::MissingField,
                format!("{} requires '{name}'", spec.name),
            ));
        }
    }
    for (name, v) in c {
        if ENVELOPE_KEYS.contains(&name.as_str()) {
            continue;
        }
        match basic::prop(spec, name) {
            Some(ty) => check(ty, v, name, out),
            None => out.push(Detail::new(
                name.clone(),
                DetailCode::UnknownField,
                format!("{} has no property '{name}'", spec.name),
            )),
        }
    }
}

fn bad(path: &str, what: &str, out: &mut Vec<Detail>) {
    out.push(Detail::new(
        path,
        DetailCode::InvalidValue,
        format!("'{path}' must be {what}"),
    ));
}

/// `{path: "…"}` and nothing else.
pub(crate) fn is_binding(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("path").is_some_and(Value::is_string))
}

fn is_call(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.contains_key("call"))
}

/// Checks a value against a basic-catalog type.
fn check(ty: Ty, v: &Value, path: &str, out: &mut Vec<Detail>) {
    let dynamic = |expected: &str, literal_ok: bool, out: &mut Vec<Detail>| {
        if literal_ok || is_binding(v) {
            return;
        }
        if is_call(v) {
            check_call(v, path, Some(expected), out);
        } else {
            bad(
                path,
                &format!("a {expected}, a {{path}} binding or a function call"),
                out,
            );
        }
    };
    match ty {
        Ty::Str if !v.is_string() => bad(path, "a string", out),
        Ty::Num if !v.is_number() => bad(path, "a number", out),
        Ty::Bool if !v.is_boolean() => bad(path, "a boolean", out),
        Ty::Str | Ty::Num | Ty::Bool => {}
        Ty::DynStr => dynamic("string", v.is_string(), out),
        Ty::DynNum => dynamic("number", v.is_number(), out),
        Ty::DynBool => dynamic("boolean", v.is_boolean(), out),
        Ty::DynStrList => {
            let literal = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            dynamic("array", literal, out)
        }
        Ty::DynValue => {
            let literal = v.is_string() || v.is_number() || v.is_boolean() || v.is_array();
            dynamic("any", literal, out)
        }
        Ty::ChildList => match v {
            Value::Array(a) if a.iter().all(Value::is_string) => {}
            Value::Object(t)
                if t.len() == 2
                    && t.get("componentId").is_some_and(Value::is_string)
                    && t.get("path").is_some_and(Value::is_string) => {}
            _ => bad(
                path,
                "a list of component ids or a template {componentId, path}",
                out,
            ),
        },
        Ty::Id if !v.is_string() => bad(path, "a component id", out),
        Ty::Id => {}
        Ty::Enum(allowed) => {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                bad(path, &format!("one of {}", allowed.join(", ")), out)
            }
        }
        Ty::Icon => {
            let ok = v.as_str().is_some_and(|s| basic::ICON_NAMES.contains(&s))
                || is_binding(v)
                || v.as_object().is_some_and(|o| {
                    o.len() == 1 && o.get("svgPath").is_some_and(Value::is_string)
                });
            if !ok {
                bad(path, "an icon name, {svgPath} or a {path} binding", out);
            }
        }
        Ty::Accessibility => match v.as_object() {
            Some(o) => {
                for (k, x) in o {
                    if k == "label" || k == "description" {
                        check(Ty::DynStr, x, &format!("{path}.{k}"), out);
                    }
                }
            }
            None => bad(path, "an object", out),
        },
        Ty::Action => check_action(v, path, out),
        Ty::Checks => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{path}.{i}");
                    object_with(
                        item,
                        &at,
                        &[("condition", Ty::DynBool, true), ("message", Ty::Str, true)],
                        out,
                    );
                }
            }
            None => bad(path, "a list of checks", out),
        },
        Ty::Tabs => match v.as_array() {
            Some(items) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{path}.{i}");
                    object_with(
                        item,
                        &at,
                        &[("title", Ty::DynStr, true), ("child", Ty::Id, true)],
                        out,
                    );
                }
            }
            _ => bad(path, "a non-empty list of tabs", out),
        },
        Ty::Options => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{path}.{i}");
                    object_with(
                        item,
                        &at,
                        &[("label", Ty::DynStr, true), ("value", Ty::Str, true)],
                        out,
                    );
                }
            }
            None => bad(path, "a list of options", out),
        },
    }
}

/// An object with exactly these properties (`additionalProperties: false`).
fn object_with(v: &Value, path: &str, props: &[basic::Prop], out: &mut Vec<Detail>) {
    let Some(o) = v.as_object() else {
        return bad(path, "an object", out);
    };
    for (name, ty, required) in props {
        match o.get(*name) {
            Some(x) => check(*ty, x, &format!("{path}.{name}"), out),
            None if *required => out.push(Detail::new(
                format!("{path}.{name}"),
                DetailCode::MissingField,
                format!("'{path}' requires '{name}'"),
            )),
            None => {}
        }
    }
    for k in o.keys() {
        if !props.iter().any(|(n, _, _)| n == k) {
            out.push(Detail::new(
                format!("{path}.{k}"),
                DetailCode::UnknownField,
                format!("unknown property '{k}'"),
            ));
        }
    }
}

fn check_action(v: &Value, path: &str, out: &mut Vec<Detail>) {
    let Some(o) = v.as_object().filter(|o| o.len() == 1) else {
        return bad(path, "{event: {name, context}} or {functionCall}", out);
    };
    if let Some(event) = o.get("event") {
        let at = format!("{path}.event");
        let Some(e) = event.as_object() else {
            return bad(&at, "an object", out);
        };
        if !e.get("name").is_some_and(Value::is_string) {
            out.push(Detail::new(
                format!("{at}.name"),
                DetailCode::MissingField,
                "an event needs a string 'name'",
            ));
        }
        for (k, x) in e {
            match k.as_str() {
                "name" => {}
                "context" => match x.as_object() {
                    Some(ctx) => {
                        for (ck, cv) in ctx {
                            check(Ty::DynValue, cv, &format!("{at}.context.{ck}"), out);
                        }
                    }
                    None => bad(&format!("{at}.context"), "an object", out),
                },
                other => out.push(Detail::new(
                    format!("{at}.{other}"),
                    DetailCode::UnknownField,
                    format!("unknown property '{other}'"),
                )),
            }
        }
    } else if let Some(call) = o.get("functionCall") {
        check_call(call, &format!("{path}.functionCall"), None, out);
    } else {
        bad(path, "{event: {name, context}} or {functionCall}", out);
    }
}

/// A call of a catalog function: known name, its required arguments and no others, a
/// `returnType` that is the function's, and one the place expects (`expected`, or any).
fn check_call(v: &Value, path: &str, expected: Option<&str>, out: &mut Vec<Detail>) {
    let Some(o) = v.as_object() else {
        return bad(path, "a function call", out);
    };
    let Some(name) = o.get("call").and_then(Value::as_str) else {
        return bad(&format!("{path}.call"), "a function name", out);
    };
    let Some(f) = basic::function(name) else {
        out.push(Detail::new(
            format!("{path}.call"),
            DetailCode::InvalidValue,
            format!("Unknown function '{name}'"),
        ));
        return;
    };
    for k in o.keys() {
        if !["call", "args", "returnType"].contains(&k.as_str()) {
            out.push(Detail::new(
                format!("{path}.{k}"),
                DetailCode::UnknownField,
                format!("unknown property '{k}'"),
            ));
        }
    }
    if let Some(rt) = o.get("returnType") {
        if rt.as_str() != Some(f.returns) {
            bad(
                &format!("{path}.returnType"),
                &format!("'{}' for {name}", f.returns),
                out,
            );
        }
    }
    if let Some(e) = expected {
        if e != "any" && f.returns != e {
            bad(
                path,
                &format!("a call returning {e} ({name} returns {})", f.returns),
                out,
            );
        }
    }
    let Some(args) = o.get("args").and_then(Value::as_object) else {
        return bad(&format!("{path}.args"), "an object", out);
    };
    for r in f.required {
        if !args.contains_key(*r) {
            out.push(Detail::new(
                format!("{path}.args.{r}"),
                DetailCode::MissingField,
                format!("{name} requires '{r}'"),
            ));
        }
    }
    for (k, a) in args {
        if !f.required.contains(&k.as_str()) && !f.optional.contains(&k.as_str()) {
            out.push(Detail::new(
                format!("{path}.args.{k}"),
                DetailCode::UnknownField,
                format!("{name} takes no '{k}'"),
            ));
        }
        // Nested calls are checked too (their depth is bounded by the component's nesting).
        for nested in a.as_array().map_or(std::slice::from_ref(a), Vec::as_slice) {
            if is_call(nested) {
                check_call(nested, &format!("{path}.args.{k}"), None, out);
            }
        }
    }
}
