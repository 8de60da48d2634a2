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
//! Adding a component is one file (a `render(&Value) -> Result<AnyView, PropsError>` function) plus
//! one line in [`REGISTRY`].

pub mod card;
pub mod chart;
pub mod checklist;
pub mod code;
pub mod form;
pub mod image;
pub mod json;
pub mod props;
pub mod table;

use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::ui::lazy::{on_demand, split_view};

pub use crate::protocol::dialect::RENDER_HINT_CUSTOM_NAME;
pub use form::{FieldKind, FormField, SchemaForm};
pub use json::JsonView;
pub use props::PropsError;

/// Builds a component from its props, which it validates first: `Err` says why they are invalid.
pub type Renderer = fn(&Value) -> Result<AnyView, PropsError>;

/// Why a render hint shows its props as JSON instead of a component.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HintError {
    #[error("Unknown component '{0}'")]
    Unknown(String),
    #[error("Invalid props for '{component}': {source}")]
    InvalidProps {
        component: String,
        #[source]
        source: PropsError,
    },
}

/// Component name → renderer. Names are matched ASCII-case-insensitively. Only [`render`] reads
/// it, from the hint's chunk (see [`RenderHint`]): what the page's own code needs is [`NAMES`].
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

/// The registered names, in [`REGISTRY`]'s order (a test keeps the two the same).
pub const NAMES: [&str; 8] = [
    "table",
    "chart",
    "card",
    "checklist",
    "progress",
    "form",
    "code",
    "image",
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

/// Whether a component is registered under `name` (ASCII-case-insensitive), without reaching
/// the renderers.
pub fn is_registered(name: &str) -> bool {
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name.trim()))
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
pub fn render(component: &str, props: &Value) -> Result<AnyView, HintError> {
    let renderer = lookup(component).ok_or_else(|| HintError::Unknown(component.to_string()))?;
    renderer(props).map_err(|source| HintError::InvalidProps {
        component: component.to_string(),
        source,
    })
}

/// A render hint (or a registered tool call): the component built from validated props, inside
/// `<figure class="render-hint" data-component=…>`; on an unknown name or invalid props, a JSON
/// view of the props with a note. The components are a WASM chunk of their own, loaded the first
/// time a hint is drawn (see [`crate::ui::lazy`]).
#[component]
pub fn RenderHint(
    /// The component name (`"table"`, `"chart"`…).
    #[prop(into)]
    component: String,
    /// Its props, as the agent sent them.
    #[prop(into)]
    props: Signal<Value>,
) -> impl IntoView {
    let body = on_demand(
        MARKER,
        "This component",
        hint_body(component.clone(), props),
    );
    view! { <figure class="render-hint" data-component=component>{body}</figure> }
}

/// The marker of the components' chunk (see [`crate::ui::lazy`]).
const MARKER: &str = "render-hint";

split_view!(
    hint_body,
    __preload_hint_body,
    fn hint_body(component: String, props: Signal<Value>) {
        (move || match props.with(|p| render(&component, p)) {
            Ok(view) => view,
            Err(note) => view! {
                <div class="rh-fallback">
                    <p class="rh-note" role="note">{note.to_string()}</p>
                    <JsonView value=props/>
                </div>
            }
            .into_any(),
        })
        .into_any()
    }
);

/// Loads the components' chunk if the server rendered a hint into this page; called before
/// hydration (see [`crate::ui::lazy`]).
#[cfg(feature = "hydrate")]
pub async fn preload_rendered() {
    crate::ui::lazy::load_if_rendered(MARKER, __preload_hint_body).await;
}

#[cfg(test)]
mod tests;
