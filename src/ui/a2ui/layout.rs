//! Layout components of the basic catalog: Row, Column, List (ids or a data-bound template),
//! Card, Tabs, Divider, Modal. Children are keyed by id (template items by index), so an
//! update that adds a child does not rebuild its siblings.

use leptos::prelude::*;
use serde_json::Value;

use super::node::{Node, LIMITS};
use super::state::pick;
use crate::protocol::a2ui::pointer::{get_path, resolve_path};

/// What `children` says: ids, or a template over a data-model list.
#[derive(Debug, Clone, PartialEq)]
enum Children {
    Ids(Vec<String>),
    Template { component: String, path: String },
}

fn read_children(v: Option<&Value>, scope: Option<&str>) -> Children {
    match v {
        Some(Value::Array(ids)) => {
            let mut out: Vec<String> = Vec::new();
            for id in ids.iter().filter_map(Value::as_str) {
                // A child listed twice is shown once (children are keyed by id).
                if !out.iter().any(|o| o == id) {
                    out.push(id.to_string());
                }
            }
            Children::Ids(out)
        }
        Some(Value::Object(t)) => Children::Template {
            component: t
                .get("componentId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            path: resolve_path(
                t.get("path").and_then(Value::as_str).unwrap_or_default(),
                scope,
            ),
        },
        _ => Children::Ids(Vec::new()),
    }
}

/// The children of `n`, each wrapped by `wrap` (a list item, or nothing).
fn children(n: &Node, item_role: Option<&'static str>) -> impl IntoView {
    let prop = n.prop("children");
    let scope = n.scope.clone();
    let spec = Memo::new(move |_| prop.with(|v| read_children(v.as_ref(), scope.as_deref())));
    // The view is rebuilt only when the kind of list changes (ids ↔ template, or another
    // template); a new id list goes through `For`, which keeps the children already there.
    let template = Memo::new(move |_| {
        spec.with(|s| match s {
            Children::Ids(_) => None,
            Children::Template { component, path } => Some((component.clone(), path.clone())),
        })
    });
    let ids = move || {
        spec.with(|s| match s {
            Children::Ids(ids) => ids.clone(),
            Children::Template { .. } => Vec::new(),
        })
    };
    let n = n.clone();
    move || match template.get() {
        None => {
            let n = n.clone();
            view! {
                <For each=ids key=|id| id.clone() let:id>
                    <div class="a2ui-child" role=item_role>{n.child(id, n.scope.clone())}</div>
                </For>
            }
            .into_any()
        }
        Some((component, path)) => {
            let data = n.ctx.data;
            let p = path.clone();
            let total = Memo::new(move |_| {
                data.with(|d| {
                    get_path(d, &p)
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len)
                })
            });
            let shown = move || total.get().min(LIMITS.max_list_items);
            let n = n.clone();
            view! {
                <For each=move || 0..shown() key=|i| *i let:i>
                    <div class="a2ui-child" role=item_role>{n.child(component.clone(), Some(format!("{path}/{i}")))}</div>
                </For>
                {move || (total.get() > LIMITS.max_list_items).then(|| view! {
                    <p class="a2ui-muted">{format!("{} more items not shown", total.get() - LIMITS.max_list_items)}</p>
                })}
            }
            .into_any()
        }
    }
}

fn flex(n: Node, kind: &'static str, dir: &'static str) -> AnyView {
    let (justify, align) = (n.prop("justify"), n.prop("align"));
    let (label, _) = n.a11y();
    let class = move || {
        format!(
            "a2ui-flex a2ui-{dir} a2ui-justify-{} a2ui-align-{}",
            justify.with(|v| pick(v.as_ref(), (kind, "justify"), "start").to_string()),
            align.with(|v| pick(v.as_ref(), (kind, "align"), "stretch").to_string()),
        )
    };
    let role = move || label.get().map(|_| "group");
    view! { <div class=class role=role aria-label=move || label.get()>{children(&n, None)}</div> }
        .into_any()
}

/// `Row`: children side by side.
pub fn row(n: Node) -> AnyView {
    flex(n, "Row", "row")
}

/// `Column`: children one under another.
pub fn column(n: Node) -> AnyView {
    flex(n, "Column", "column")
}

/// `List`: `role="list"`, each child a `listitem`.
pub fn list(n: Node) -> AnyView {
    let (direction, align) = (n.prop("direction"), n.prop("align"));
    let (label, _) = n.a11y();
    let class = move || {
        format!(
            "a2ui-flex a2ui-list a2ui-{} a2ui-align-{}",
            if direction
                .with(|v| pick(v.as_ref(), ("List", "direction"), "vertical") == "horizontal")
            {
                "row"
            } else {
                "column"
            },
            align.with(|v| pick(v.as_ref(), ("List", "align"), "stretch").to_string()),
        )
    };
    view! { <div class=class role="list" aria-label=move || label.get()>{children(&n, Some("listitem"))}</div> }.into_any()
}

/// `Card`: a framed group around its one child.
pub fn card(n: Node) -> AnyView {
    let (label, _) = n.a11y();
    view! { <div class="a2ui-card" role="group" aria-label=move || label.get()>{n.child_at("child")}</div> }.into_any()
}

/// `Divider`: a separator, horizontal or vertical.
pub fn divider(n: Node) -> AnyView {
    let axis = n.prop("axis");
    let orientation =
        move || axis.with(|v| pick(v.as_ref(), ("Divider", "axis"), "horizontal").to_string());
    view! { <hr class=move || format!("a2ui-divider a2ui-divider-{}", orientation()) aria-orientation=orientation/> }
        .into_any()
}

/// `Tabs`: a `tablist` of buttons (arrow keys move between them) and the selected tab's panel.
pub fn tabs(n: Node) -> AnyView {
    let tabs = n.prop("tabs");
    let (data, scope) = (n.ctx.data, n.scope.clone());
    let items = Memo::new(move |_| {
        tabs.with(|t| {
            t.as_ref()
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |a| {
                    a.iter()
                        .map(|tab| {
                            let title = tab.get("title").map(|v| {
                                data.with(|d| {
                                    crate::protocol::a2ui::binding::text(
                                        v,
                                        &crate::protocol::a2ui::binding::Scope {
                                            model: d,
                                            base: scope.as_deref(),
                                        },
                                    )
                                })
                            });
                            let child = tab
                                .get("child")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string();
                            (title.unwrap_or_default(), child)
                        })
                        .collect::<Vec<_>>()
                })
        })
    });
    let selected = RwSignal::new(0usize);
    let count = move || items.with(Vec::len);
    let (label, _) = n.a11y();
    let panel_id = n.dom_id("panel");
    let tab_id = {
        let n = n.clone();
        move |i: usize| n.dom_id(&format!("tab{i}"))
    };
    let key = move |ev: leptos::ev::KeyboardEvent| {
        let len = count();
        if len == 0 {
            return;
        }
        match ev.key().as_str() {
            "ArrowRight" => selected.update(|s| *s = (*s + 1) % len),
            "ArrowLeft" => selected.update(|s| *s = (*s + len - 1) % len),
            _ => {}
        }
    };
    let buttons = {
        let (panel_id, tab_id) = (panel_id.clone(), tab_id.clone());
        move || {
            items
                .get()
                .into_iter()
                .enumerate()
                .map(|(i, (title, _))| {
                    let on = move || selected.get() == i;
                    view! {
                        <button type="button" role="tab" id=tab_id(i) class="a2ui-tab"
                            aria-selected=move || on().to_string() aria-controls=panel_id.clone()
                            tabindex=move || if on() { "0" } else { "-1" }
                            on:click=move |_| selected.set(i)>{title}</button>
                    }
                })
                .collect_view()
        }
    };
    let panel = move || {
        let i = selected.get().min(count().saturating_sub(1));
        items
            .with(|t| t.get(i).map(|(_, child)| child.clone()))
            .map(|c| n.child(c, n.scope.clone()))
    };
    view! {
        <div class="a2ui-tabs">
            <div class="a2ui-tablist" role="tablist" aria-label=move || label.get() on:keydown=key>{buttons}</div>
            <div class="a2ui-tabpanel" role="tabpanel" id=panel_id
                aria-labelledby=move || tab_id(selected.get())>{panel}</div>
        </div>
    }
    .into_any()
}

/// `Modal`: its trigger opens a dialog with its content; Escape or the close button shuts it.
pub fn modal(n: Node) -> AnyView {
    let open = RwSignal::new(false);
    let (label, _) = n.a11y();
    let trigger = n.child_at("trigger");
    let content = n.clone();
    let dialog = move || {
        open.get().then(|| {
            let content = content.child_at("content");
            // Focus goes into the dialog when it opens (Escape then closes it).
            let close = NodeRef::<leptos::html::Button>::new();
            Effect::new(move || {
                if let Some(b) = close.get() {
                    let _ = b.focus();
                }
            });
            view! {
                <div class="a2ui-modal-backdrop" on:click=move |_| open.set(false)>
                    <div class="a2ui-modal" role="dialog" aria-modal="true"
                        aria-label=move || label.get().unwrap_or_else(|| "Dialog".into())
                        on:click=|ev| ev.stop_propagation()
                        on:keydown=move |ev| if ev.key() == "Escape" { open.set(false) }>
                        {content}
                        <button type="button" class="a2ui-modal-close" node_ref=close on:click=move |_| open.set(false)>"Close"</button>
                    </div>
                </div>
            }
        })
    };
    view! {
        <div class="a2ui-modal-host">
            <div class="a2ui-modal-trigger" on:click=move |_| open.set(true)>{trigger}</div>
            {dialog}
        </div>
    }
    .into_any()
}
