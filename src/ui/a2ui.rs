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

mod display;
mod inputs;
mod layout;
pub mod state;

use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::a2ui::binding::{binding_path, display as show, resolve, Scope};
use crate::protocol::a2ui::pointer::resolve_path;
use crate::protocol::a2ui::{write_data, A2uiLimits, Component};
use crate::protocol::types::Message;
use state::{hex_color, process, push_edit, Snap};

/// The limits the renderer applies (the processor's defaults).
pub const LIMITS: A2uiLimits = A2uiLimits::DEFAULT;

/// Builds one component's view.
pub type Renderer = fn(Node) -> AnyView;

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
    ("ChoicePicker", inputs::choice_picker),
    ("Slider", inputs::slider),
    ("DateTimeInput", inputs::date_time_input),
];

/// What every component of one surface shares.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub surface_id: StoredValue<String>,
    pub snap: Memo<Option<Snap>>,
    /// The surface's data model with the user's edits in it.
    pub data: Memo<Value>,
    pub edits: RwSignal<Vec<(String, Value)>>,
    /// The last local problem (a write past a bound, an action that could not be built).
    pub note: RwSignal<Option<String>>,
    pub on_action: Callback<Value>,
}

/// One rendered component: where it is and how to read it.
#[derive(Clone)]
pub struct Node {
    pub ctx: Ctx,
    pub id: String,
    pub comp: Memo<Option<Component>>,
    /// The List item this component was rendered for (relative paths read under it).
    pub scope: Option<String>,
    pub depth: usize,
    ancestors: Arc<Vec<String>>,
}

impl Node {
    /// A property as sent.
    pub fn prop(&self, name: &'static str) -> Memo<Option<Value>> {
        let comp = self.comp;
        Memo::new(move |_| comp.with(|c| c.as_ref().and_then(|c| c.value.get(name).cloned())))
    }

    /// A property resolved against the data model (bindings read, calls evaluated).
    pub fn value(&self, name: &'static str) -> Memo<Value> {
        let (prop, data, scope) = (self.prop(name), self.ctx.data, self.scope.clone());
        Memo::new(move |_| {
            prop.with(|p| match p {
                None => Value::Null,
                Some(v) => data.with(|d| {
                    resolve(
                        v,
                        &Scope {
                            model: d,
                            base: scope.as_deref(),
                        },
                    )
                }),
            })
        })
    }

    /// A property as display text.
    pub fn text(&self, name: &'static str) -> Memo<String> {
        let v = self.value(name);
        Memo::new(move |_| v.with(show))
    }

    /// The absolute data-model path a property is bound to, if it is a `{path}` binding.
    pub fn bound(&self, name: &'static str) -> Memo<Option<String>> {
        let (prop, scope) = (self.prop(name), self.scope.clone());
        Memo::new(move |_| {
            prop.with(|p| {
                p.as_ref()
                    .and_then(binding_path)
                    .map(|b| resolve_path(b, scope.as_deref()))
            })
        })
    }

    /// The accessible label and description (`accessibility`), resolved.
    pub fn a11y(&self) -> (Memo<Option<String>>, Memo<Option<String>>) {
        let (prop, data, scope) = (
            self.prop("accessibility"),
            self.ctx.data,
            self.scope.clone(),
        );
        let part = move |key: &'static str| {
            let scope = scope.clone();
            Memo::new(move |_| {
                prop.with(|p| {
                    let v = p.as_ref()?.get(key)?;
                    let t = data.with(|d| {
                        show(&resolve(
                            v,
                            &Scope {
                                model: d,
                                base: scope.as_deref(),
                            },
                        ))
                    });
                    (!t.is_empty()).then_some(t)
                })
            })
        };
        (part("label"), part("description"))
    }

    /// Writes a value the user entered into the data model (refused past a bound, with a note).
    pub fn write(&self, path: &str, value: Value) {
        let ctx = self.ctx;
        let mut probe = ctx.data.get_untracked();
        match write_data(&mut probe, Some(path), Some(value.clone()), &LIMITS) {
            Ok(_) => {
                ctx.edits.update(|e| push_edit(e, path.to_string(), value));
                ctx.note.set(None);
            }
            Err(e) => ctx.note.set(Some(format!("Not saved: {}", e.message))),
        }
    }

    /// A DOM id unique to this component instance, with a suffix.
    pub fn dom_id(&self, suffix: &str) -> String {
        let sid = self.ctx.surface_id.get_value();
        state::dom_id(&[&sid, &self.id, self.scope.as_deref().unwrap_or(""), suffix])
    }

    /// A child component, rendered under this one.
    pub fn child(&self, id: String, scope: Option<String>) -> AnyView {
        let mut ancestors = (*self.ancestors).clone();
        ancestors.push(self.id.clone());
        node(self.ctx, id, scope, self.depth + 1, Arc::new(ancestors))
    }

    /// A child named by a property holding a component id (`child`, `content`…).
    pub fn child_at(&self, name: &'static str) -> impl IntoView {
        let (prop, this) = (self.prop(name), self.clone());
        let id = Memo::new(move |_| {
            prop.with(|p| p.as_ref().and_then(Value::as_str).map(str::to_string))
        });
        move || id.get().map(|id| this.child(id, this.scope.clone()))
    }
}

/// A visible note in place of something that cannot be shown.
pub fn placeholder(text: String) -> AnyView {
    view! { <div class="a2ui-placeholder" role="note">{text}</div> }.into_any()
}

/// The component `id`, with its issues under it; bounded by depth and cut on a cycle.
pub fn node(
    ctx: Ctx,
    id: String,
    scope: Option<String>,
    depth: usize,
    ancestors: Arc<Vec<String>>,
) -> AnyView {
    if depth > LIMITS.max_depth {
        return placeholder(format!(
            "Component '{id}' is nested deeper than {} levels",
            LIMITS.max_depth
        ));
    }
    if ancestors.contains(&id) {
        return placeholder(format!(
            "Component '{id}' contains itself (circular reference); not shown again"
        ));
    }
    let snap = ctx.snap;
    let key = id.clone();
    let comp = Memo::new(move |_| {
        snap.with(|s| {
            s.as_ref()
                .and_then(|s| s.surface.components.get(&key).cloned())
        })
    });
    let kind = Memo::new(move |_| comp.with(|c| c.as_ref().map(|c| c.kind.clone())));
    let key = id.clone();
    let issues = Memo::new(move |_| {
        snap.with(|s| {
            s.as_ref().map_or_else(Vec::new, |s| {
                s.issues
                    .iter()
                    .filter(|i| i.component.as_deref() == Some(key.as_str()))
                    .map(|i| i.message.clone())
                    .collect()
            })
        })
    });
    let weight = Memo::new(move |_| {
        comp.with(|c| {
            c.as_ref()
                .and_then(|c| c.value.get("weight"))
                .and_then(Value::as_f64)
        })
        .filter(|w| w.is_finite() && *w >= 0.0)
    });
    let n = Node {
        ctx,
        id: id.clone(),
        comp,
        scope,
        depth,
        ancestors,
    };
    let missing = id.clone();
    let body = move || match kind.get() {
        None => placeholder(format!("Missing component '{missing}'")),
        Some(k) => match REGISTRY.iter().find(|(name, _)| *name == k) {
            Some((_, render)) => render(n.clone()),
            None => placeholder(format!("Unsupported component '{k}'")),
        },
    };
    view! {
        <div class="a2ui-node" data-a2ui-id=id style=move || weight.get().map(|w| format!("flex-grow: {w}"))>
            {body}
            {move || issue_list(issues.get())}
        </div>
    }
    .into_any()
}

/// Issues as a list of notes (nothing when there are none).
fn issue_list(issues: Vec<String>) -> Option<AnyView> {
    (!issues.is_empty()).then(|| {
        view! {
            <ul class="a2ui-issues" role="note" aria-label="Problems">
                {issues.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    })
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
                <div class=format!("a2ui-status a2ui-status-{}", state::pick(Some(&Value::String(s.status.clone())), &["building", "retrying", "failed"], "other"))
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

fn agent_label(id: &str) -> String {
    format!("Surface {}", id.chars().take(80).collect::<String>())
}

#[cfg(test)]
mod tests;
