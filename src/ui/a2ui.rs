//! A2UI v0.9 surfaces (`a2ui-surface` activities) rendered as real, accessible elements.
//!
//! [`A2uiSurface`] reads an activity message through the protocol's processor
//! (`protocol::a2ui`, lenient): a lifecycle status before the surface exists, then each surface
//! of the activity from its `root`, every component of the basic catalog built by one function
//! of [`REGISTRY`]. What is wrong (a refused message, invalid props, a dangling reference, a
//! cycle) is shown in place, and the rest of the surface still renders.
//!
//! Security policy (agent output is untrusted): nothing from the payload becomes HTML — text is
//! text nodes, attribute values are escaped by Leptos, class names come only from the catalog's
//! enums (`state::pick`), the theme's colour only when it is `#rrggbb`. URLs go through the
//! render hints' image policy (`https:` or raster `data:image/…`); remote images, videos and
//! audio load only when the user asks. Function calls run only the catalog's pure functions;
//! `openUrl` and other local actions are not run. An unknown component is a visible
//! placeholder. Every walk is bounded by `A2uiLimits` (depth, List items), and a component
//! that contains itself is cut where it repeats.
//!
//! Reactivity: each activity snapshot is processed once (a memo); each rendered component
//! reads its own object through a memo, and each property through another, so a snapshot or a
//! keystroke re-renders only what changed. Inputs bound to the data model (`{path}`) write the
//! user's edits into the surface's model (kept across snapshots); a Button sends the exact
//! `userAction` JSON `{name, surfaceId, sourceComponentId, context, timestamp}` to `on_action`.
//!
//! Adding a component is one function `fn(Node) -> AnyView` and one line in [`REGISTRY`].

mod choices;
mod display;
mod inputs;
mod layout;
mod node;
pub mod state;

use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::types::Message;
use node::issue_list;
pub use node::{node, placeholder, Ctx, Node, Renderer, LIMITS};
use state::{hex_color, process};

/// Component type → renderer: the whole basic catalog.
pub const REGISTRY: &[(&str, Renderer)] = &[
    ("Text", display::text),
    ("Image", display::image),
    ("Icon", display::icon),
    ("Video", display::video),
    ("AudioPlayer", display::audio),
    ("Row", layout::row),
    ("Column", layout::column),
    ("List", layout::list),
    ("Card", layout::card),
    ("Tabs", layout::tabs),
    ("Divider", layout::divider),
    ("Modal", layout::modal),
    ("Button", inputs::button),
    ("TextField", inputs::text_field),
    ("CheckBox", inputs::check_box),
    ("ChoicePicker", choices::choice_picker),
    ("Slider", inputs::slider),
    ("DateTimeInput", inputs::date_time_input),
];

/// The renderer of a component type, if the registry has one.
pub fn lookup(kind: &str) -> Option<Renderer> {
    REGISTRY
        .iter()
        .find(|(name, _)| *name == kind)
        .map(|(_, r)| *r)
}

/// An A2UI surface from an `a2ui-surface` activity message.
///
/// Under SSR the first snapshot renders as static HTML (inputs show their values); hydration
/// makes inputs and buttons live. `on_action` receives the `userAction` object to send in the
/// next run as `forwardedProps.a2uiAction.userAction`.
#[component]
pub fn A2uiSurface(
    /// The activity message (`activityType: "a2ui-surface"`).
    #[prop(into)]
    message: Signal<Message>,
    /// Called with `{name, surfaceId, sourceComponentId, context, timestamp}` on a Button click.
    #[prop(into)]
    on_action: Callback<Value>,
) -> impl IntoView {
    let processed = Memo::new(move |_| message.with(process));
    let status = Memo::new(move |_| processed.with(|p| p.status.clone()));
    let errors = Memo::new(move |_| processed.with(|p| p.errors.clone()));
    let ids = Memo::new(move |_| {
        processed.with(|p| {
            p.surfaces
                .iter()
                .map(|s| s.surface.id.clone())
                .collect::<Vec<_>>()
        })
    });
    view! {
        <div class="a2ui" data-role="a2ui">
            {move || status.get().map(|s| view! {
                <div class=format!("a2ui-status a2ui-status-{}", status_class(&s.status))
                    role="status" aria-live="polite">{s.text}</div>
            })}
            {move || issue_list(errors.get())}
            <For each=move || ids.get() key=|id| id.clone() let:id>
                <SurfaceView processed=processed id=id on_action=on_action/>
            </For>
        </div>
    }
}

/// One surface of the activity.
#[component]
fn SurfaceView(
    processed: Memo<state::Processed>,
    id: String,
    on_action: Callback<Value>,
) -> impl IntoView {
    let key = id.clone();
    let snap = Memo::new(move |_| {
        processed.with(|p| p.surfaces.iter().find(|s| s.surface.id == key).cloned())
    });
    let edits = RwSignal::new(Vec::<(String, Value)>::new());
    let data = Memo::new(move |_| {
        let model = snap
            .with(|s| s.as_ref().map(|s| s.surface.data_model.clone()))
            .unwrap_or(Value::Null);
        edits.with(|e| state::apply_edits(&model, e, &LIMITS))
    });
    let ctx = Ctx {
        surface_id: StoredValue::new(id.clone()),
        snap,
        data,
        edits,
        note: RwSignal::new(None),
        on_action,
        lookup,
    };
    let theme = Memo::new(move |_| {
        snap.with(|s| {
            s.as_ref()
                .map(|s| s.surface.theme.clone())
                .unwrap_or_default()
        })
    });
    let color = move || {
        theme
            .with(|t| hex_color(t.get("primaryColor")))
            .map(|c| format!("--a2ui-primary: {c}"))
    };
    let agent = move || {
        theme.with(|t| {
            t.get("agentDisplayName")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    };
    let surface_issues = Memo::new(move |_| {
        snap.with(|s| {
            s.as_ref().map_or_else(Vec::new, |s| {
                s.issues
                    .iter()
                    .filter(|i| i.component.is_none())
                    .map(|i| i.message.clone())
                    .collect::<Vec<_>>()
            })
        })
    });
    let label = agent_label(&id);
    view! {
        <section class="a2ui-surface" data-surface-id=id aria-label=label style=color>
            {move || agent().map(|a| view! { <div class="a2ui-agent">{a}</div> })}
            {move || issue_list(surface_issues.get())}
            {move || ctx.note.get().map(|n| view! { <p class="a2ui-note" role="alert">{n}</p> })}
            {node(ctx, "root".into(), None, 1, Arc::new(Vec::new()))}
        </section>
    }
}

/// The class of a lifecycle status (only the three the middleware sends; others read as one).
fn status_class(status: &str) -> &'static str {
    match status {
        "building" => "building",
        "retrying" => "retrying",
        "failed" => "failed",
        _ => "other",
    }
}

fn agent_label(id: &str) -> String {
    format!("Surface {}", id.chars().take(80).collect::<String>())
}

#[cfg(test)]
mod tests;
