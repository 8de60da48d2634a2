//! One rendered component: [`Node`] (where it is and how to read its properties, each through
//! its own memo) and [`node`], which renders a component by id with its issues under it,
//! bounded by depth and cut where a component would contain itself.

use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use super::state::{self, push_edit, Snap};
use crate::protocol::a2ui::binding::{binding_path, display as show, resolve, Scope};
use crate::protocol::a2ui::pointer::resolve_path;
use crate::protocol::a2ui::{write_data, A2uiLimits, Component};

/// The limits the renderer applies (the processor's defaults).
pub const LIMITS: A2uiLimits = A2uiLimits::DEFAULT;

/// Builds one component's view.
pub type Renderer = fn(Node) -> AnyView;

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
    /// The registry's lookup: component type → renderer.
    pub lookup: fn(&str) -> Option<Renderer>,
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
        Some(k) => match (n.ctx.lookup)(&k) {
            Some(render) => render(n.clone()),
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
pub(super) fn issue_list(issues: Vec<String>) -> Option<AnyView> {
    (!issues.is_empty()).then(|| {
        view! {
            <ul class="a2ui-issues" role="note" aria-label="Problems">
                {issues.into_iter().map(|i| view! { <li>{i}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    })
}
