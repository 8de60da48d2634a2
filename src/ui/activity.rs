//! An activity message (`ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA`), rendered by its
//! `activityType`: [`RENDERERS`] maps the types the studio draws (A2UI surfaces, MCP Apps, open
//! generative UI) to their components; every other type — background tasks, memory, whatever
//! an agent invents — gets the generic card: its type, title and status, a progress bar when
//! the content has a numeric `progress` (0–100), and the rest of the content as a JSON tree.
//! No activity is ever dropped.
//!
//! Extension rule: one line in [`RENDERERS`].

pub mod a2ui_card;
pub mod mcp_app;
pub mod mcp_bridge;
pub mod ogui;

use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::protocol::types::Message as Msg;
use crate::ui::lazy::{on_demand, split_view};
use crate::ui::render_hints::JsonView;

/// A renderer of one activity type.
pub type Renderer = fn(Signal<Msg>) -> AnyView;

/// The activity types with a renderer of their own, each a WASM chunk of its own (see
/// [`crate::ui::lazy`]). The sandboxed frames of open generative UI and MCP Apps load only once
/// the page listens to them (see [`crate::ui::frame`]), so a frame in a reloaded thread waits
/// for its chunk and the page's hydration instead of announcing itself to no one.
pub const RENDERERS: &[(&str, Renderer)] = &[
    (crate::protocol::a2ui::ACTIVITY_TYPE, |message| {
        on_demand(A2UI, "This A2UI surface", a2ui_card_view(message))
    }),
    (crate::protocol::genui::OPEN_GENERATIVE_UI, |message| {
        on_demand(OGUI, "This generated UI", ogui_view(message))
    }),
    (crate::protocol::genui::MCP_APPS, |message| {
        on_demand(MCP_APP, "This MCP App", mcp_app_view(message))
    }),
];

/// The markers of the three chunks (see [`crate::ui::lazy`]).
const A2UI: &str = "a2ui";
const OGUI: &str = "ogui";
const MCP_APP: &str = "mcp-app";

split_view!(
    a2ui_card_view,
    __preload_a2ui_card_view,
    fn a2ui_card_view(message: Signal<Msg>) {
        view! { <a2ui_card::A2uiCard message/> }.into_any()
    }
);

split_view!(
    ogui_view,
    __preload_ogui_view,
    fn ogui_view(message: Signal<Msg>) {
        view! { <ogui::OpenGenUi message/> }.into_any()
    }
);

split_view!(
    mcp_app_view,
    __preload_mcp_app_view,
    fn mcp_app_view(message: Signal<Msg>) {
        view! { <mcp_app::McpApp message/> }.into_any()
    }
);

/// Loads the chunk of each renderer the server rendered into this page; called before
/// hydration (see [`crate::ui::lazy`]).
#[cfg(feature = "hydrate")]
pub async fn preload_rendered() {
    use crate::ui::lazy::load_if_rendered;
    futures::join!(
        load_if_rendered(A2UI, __preload_a2ui_card_view),
        load_if_rendered(OGUI, __preload_ogui_view),
        load_if_rendered(MCP_APP, __preload_mcp_app_view),
    );
}

/// The renderer of `activity_type`, if it has one.
pub fn renderer(activity_type: &str) -> Option<Renderer> {
    RENDERERS
        .iter()
        .find(|(t, _)| *t == activity_type)
        .map(|(_, r)| *r)
}

/// Content keys the card shows itself (the rest goes to the JSON view).
const SHOWN: [&str; 4] = ["progress", "title", "status", "name"];

/// The parts of an activity's content: `(title, status, progress 0–100, the rest)`.
pub fn activity_parts(
    content: &Map<String, Value>,
) -> (
    Option<String>,
    Option<String>,
    Option<f64>,
    Map<String, Value>,
) {
    let text = |k: &str| content.get(k).and_then(Value::as_str).map(str::to_string);
    let progress = content
        .get("progress")
        .and_then(Value::as_f64)
        .filter(|p| p.is_finite())
        .map(|p| p.clamp(0.0, 100.0));
    let rest = content
        .iter()
        .filter(|(k, _)| !SHOWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (
        text("title").or_else(|| text("name")),
        text("status"),
        progress,
        rest,
    )
}

/// An activity, drawn by the renderer of its type or as the generic card.
#[component]
pub fn Activity(
    /// The activity message.
    #[prop(into)]
    message: Signal<Msg>,
) -> impl IntoView {
    let kind = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Activity(a) => a.activity_type.clone(),
            _ => String::new(),
        })
    });
    // Drawn again only when the type changes; each renderer follows its content itself.
    move || match renderer(&kind.get()) {
        Some(render) => render(message),
        None => view! { <GenericActivity message kind/> }.into_any(),
    }
}

/// The generic card (`role="group"`, accessible name "Activity: <type>").
#[component]
fn GenericActivity(message: Signal<Msg>, kind: Memo<String>) -> impl IntoView {
    let parts = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Activity(a) => activity_parts(&a.content),
            _ => Default::default(),
        })
    });
    let title = move || parts.with(|p| p.0.clone());
    let status = move || parts.with(|p| p.1.clone());
    let progress = move || parts.with(|p| p.2);
    let rest = Signal::derive(move || parts.with(|p| Value::Object(p.3.clone())));
    view! {
        <div
            class="activity-card"
            data-role="activity"
            role="group"
            aria-label=move || format!("Activity: {}", kind.get())
        >
            <div class="activity-head">
                <span class="activity-icon" aria-hidden="true">"◔"</span>
                <span class="activity-type">{move || kind.get()}</span>
                {move || title().map(|t| view! { <strong class="activity-title">{t}</strong> })}
                {move || status().map(|s| view! { <span class="badge activity-status">{s}</span> })}
            </div>
            <Show when=move || progress().is_some()>
                <div class="activity-progress">
                    <progress
                        max="100"
                        value=move || progress().unwrap_or(0.0)
                        aria-label=move || format!("{} progress", kind.get())
                    ></progress>
                    <span class="activity-pct">
                        {move || format!("{:.0} %", progress().unwrap_or(0.0))}
                    </span>
                </div>
            </Show>
            <Show when=move || rest.with(|r| r.as_object().is_some_and(|o| !o.is_empty()))>
                <JsonView value=rest collapsed_depth=1/>
            </Show>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parts_split_the_content() {
        let c = json!({"title": "Indexing", "status": "running", "progress": 140, "files": 3});
        let (t, s, p, rest) = activity_parts(c.as_object().unwrap());
        assert_eq!(t.as_deref(), Some("Indexing"));
        assert_eq!(s.as_deref(), Some("running"));
        assert_eq!(p, Some(100.0));
        assert_eq!(Value::Object(rest), json!({"files": 3}));
    }
}
