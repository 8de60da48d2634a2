//! Generative UI: the component registry for render hints and tool calls.
//!
//! An agent asks the UI to show structured data in two ways:
//!
//! - a render hint, `CUSTOM {name: "ui_render_hint", value: {component, props}}` (the name is
//!   [`RENDER_HINT_CUSTOM_NAME`]; 0.1.0 `UI_RENDER_HINT` events are translated into it, see
//!   `docs/dialects.md`) — [`hint_parts`] takes such a `value` apart;
//! - a tool call whose name is registered here: its parsed arguments are the props.
//!
//! Either way the UI renders `<RenderHint component=name props=props/>`. A registered component
//! validates its props first and is only built from props that passed; an unknown name or invalid
//! props fall back to a [`JsonView`] of the props with a short note saying why.
//!
//! Agent output is untrusted. Every renderer puts strings in as text nodes or as attribute values
//! that Leptos escapes — never `inner_html` — and takes no URL from props except the image URL,
//! which [`image`] restricts to `https:` and raster `data:image/…` URLs. No event handler comes
//! from props.
//!
//! Adding a component is one file (a `render(&Value) -> Result<AnyView, String>` function) plus
//! one line in [`REGISTRY`].

pub mod card;
pub mod chart;
pub mod checklist;
pub mod code;
pub mod form;
pub mod image;
pub mod json;
pub mod table;

use leptos::prelude::*;
use serde_json::{Map, Value};

pub use crate::protocol::dialect::RENDER_HINT_CUSTOM_NAME;
pub use form::{fields_from_json_schema, FieldKind, FormField, SchemaForm};
pub use json::JsonView;

/// Builds a component from its props, which it validates first: `Err` says why they are invalid.
pub type Renderer = fn(&Value) -> Result<AnyView, String>;

/// Component name → renderer. Names are matched ASCII-case-insensitively.
const REGISTRY: &[(&str, Renderer)] = &[
    ("table", table::render),
    ("chart", chart::render),
    ("card", card::render),
    ("checklist", checklist::render),
    ("progress", checklist::render),
    ("form", form::render),
    ("code", code::render),
    ("image", image::render),
];

/// The registry: component name → renderer.
pub fn registry() -> &'static [(&'static str, Renderer)] {
    REGISTRY
}

/// The renderer registered under `name` (ASCII-case-insensitive), if any.
pub fn lookup(name: &str) -> Option<Renderer> {
    REGISTRY
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
        .map(|(_, r)| *r)
}

/// Splits the `value` of a render-hint `CUSTOM` event into `(component, props)`. Props default to
/// `{}` when absent; `None` when `value` is not an object with a string `component`.
pub fn hint_parts(value: &Value) -> Option<(&str, Value)> {
    let obj = value.as_object()?;
    let component = obj.get("component")?.as_str()?;
    let props = obj
        .get("props")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    Some((component, props))
}

/// Renders `component` with `props`, or says why it cannot: `"Unknown component 'x'"` or
/// `"Invalid props for 'x': …"`.
pub fn render(component: &str, props: &Value) -> Result<AnyView, String> {
    let renderer = lookup(component).ok_or_else(|| format!("Unknown component '{component}'"))?;
    renderer(props).map_err(|e| format!("Invalid props for '{component}': {e}"))
}

/// A render hint (or a registered tool call): the component built from validated props, inside
/// `<figure class="render-hint" data-component=…>`; on an unknown name or invalid props, a JSON
/// view of the props with a note.
#[component]
pub fn RenderHint(
    /// The component name (`"table"`, `"chart"`…).
    #[prop(into)]
    component: String,
    /// Its props, as the agent sent them.
    #[prop(into)]
    props: Signal<Value>,
) -> impl IntoView {
    let name = component.clone();
    let body = move || match props.with(|p| render(&name, p)) {
        Ok(view) => view,
        Err(note) => view! {
            <div class="rh-fallback">
                <p class="rh-note" role="note">{note}</p>
                <JsonView value=props/>
            </div>
        }
        .into_any(),
    };
    view! { <figure class="render-hint" data-component=component>{body}</figure> }
}

// ---- Helpers shared by the component files: reading props with clear errors. ----

/// `v` as an object, or an error naming what it should have been.
pub(crate) fn as_object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what} must be an object, got {}", kind_of(v)))
}

/// A required string field.
pub(crate) fn req_str(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, got {}",
            kind_of(other)
        )),
        None => Err(format!("\"{key}\" is required")),
    }
}

/// An optional string field (`null` counts as absent).
pub(crate) fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, got {}",
            kind_of(other)
        )),
    }
}

/// A required array field.
pub(crate) fn req_array<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], String> {
    match obj.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!(
            "\"{key}\" must be an array, got {}",
            kind_of(other)
        )),
        None => Err(format!("\"{key}\" is required")),
    }
}

/// The text of a scalar (`null` → empty); `Err` for arrays and objects.
pub(crate) fn scalar_text(v: &Value) -> Result<String, String> {
    match v {
        Value::Null => Ok(String::new()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("expected a scalar, got {}", kind_of(other))),
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

#[cfg(test)]
mod tests;
