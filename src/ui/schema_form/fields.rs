//! The controls of a built form ([`super::model::Node`]) as views, each wired to the editor's
//! state: labelled inputs, switches, selects, groups, lists with add/remove, checklists, JSON.

use leptos::prelude::*;
use serde_json::Value;

use super::model::{Kind, Node};
use super::state::EditorState;
use super::values::{
    add_item, parse_input, pointer, remove_item, switch_item, InputKind, MAX_ITEMS,
};
use crate::ui::render_hints::json::select_options;

/// The view of `n` (and its children); `root` is the form itself (no fieldset around it).
pub fn node_view(n: &Node, st: EditorState, prefix: &str, root: bool) -> AnyView {
    let f = &n.field;
    let id = format!("{prefix}-f{}", f.id);
    let at = pointer(&f.path);
    let label = if f.label.is_empty() {
        "Value".to_string()
    } else {
        f.label.clone()
    };
    let help_id = format!("{id}-help");
    let err_id = format!("{id}-error");
    let described = match f.help {
        Some(_) => format!("{help_id} {err_id}"),
        None => err_id.clone(),
    };
    let help = f
        .help
        .clone()
        .map(|h| view! { <p class="sf-help" id=help_id.clone()>{h}</p> });
    let error = {
        let at = at.clone();
        move || st.errors.with(|e| e.get(&at).cloned())
    };
    let invalid = {
        let at = at.clone();
        move || st.errors.with(|e| e.contains_key(&at)).to_string()
    };
    let star = f
        .required
        .then(|| view! { <span class="sf-required" aria-hidden="true">" *"</span> });
    let path = f.path.clone();
    let err_p = view! { <p class="sf-error" id=err_id>{error}</p> };
    match &n.kind {
        Kind::Switch { on } => {
            let on = *on;
            view! {
                <div class="sf-field sf-switch">
                    <input type="checkbox" role="switch" id=id.clone() checked=on
                        aria-describedby=described
                        on:change=move |ev| st.edit(&path, Some(Value::Bool(event_target_checked(&ev))))/>
                    <label for=id>{label}</label>
                    {help}
                    {err_p}
                </div>
            }
            .into_any()
        }
        Kind::Select { options, chosen } => {
            let (placeholder, opts) = select_options(options, f.required, |j| *chosen == Some(j));
            let options = options.clone();
            let required = f.required;
            let on_change = move |ev: leptos::ev::Event| {
                let v = event_target_value(&ev)
                    .parse::<usize>()
                    .ok()
                    .and_then(|j| options.get(j).cloned());
                st.edit(&path, v);
                st.fixed(&at);
            };
            view! {
                <div class="sf-field">
                    <label for=id.clone()>{label}{star}</label>
                    <select id=id required=required aria-invalid=invalid
                        aria-describedby=described on:change=on_change>
                        <option value="" selected=chosen.is_none()>{placeholder}</option>
                        {opts}
                    </select>
                    {help}
                    {err_p}
                </div>
            }
            .into_any()
        }
        Kind::Input {
            kind,
            text,
            min,
            max,
            min_len,
            max_len,
            in_list,
        } => {
            let (kind, in_list) = (*kind, *in_list);
            let on_input = move |ev: leptos::ev::Event| {
                st.typed(
                    &path,
                    &at,
                    parse_input(kind, &event_target_value(&ev), in_list),
                )
            };
            let required = f.required;
            let control = match kind {
                InputKind::LongText | InputKind::Json => view! {
                    <textarea id=id.clone() rows="3" required=required
                        maxlength=max_len.map(|m| m.to_string())
                        aria-invalid=invalid aria-describedby=described
                        on:input=on_input>{text.clone()}</textarea>
                }
                .into_any(),
                _ => {
                    let (ty, step, mode) = match kind {
                        InputKind::Date => ("date", None, None),
                        InputKind::Number => ("number", Some("any"), Some("decimal")),
                        InputKind::Integer => ("number", Some("1"), Some("numeric")),
                        _ => ("text", None, None),
                    };
                    view! {
                        <input type=ty id=id.clone() value=text.clone() step=step inputmode=mode
                            min=min.map(|m| m.to_string()) max=max.map(|m| m.to_string())
                            minlength=min_len.map(|m| m.to_string())
                            maxlength=max_len.map(|m| m.to_string())
                            required=required aria-invalid=invalid aria-describedby=described
                            on:input=on_input/>
                    }
                    .into_any()
                }
            };
            view! {
                <div class="sf-field">
                    <label for=id>{label}{star}</label>
                    {control}
                    {help}
                    {err_p}
                </div>
            }
            .into_any()
        }
        Kind::Raw { text, note } => {
            let on_input = move |ev: leptos::ev::Event| {
                let text = event_target_value(&ev);
                st.typed(&path, &at, parse_input(InputKind::Json, &text, false))
            };
            let note = note.clone().map(|t| view! { <p class="sf-note">{t}</p> });
            view! {
                <div class="sf-field sf-raw">
                    <label for=id.clone()>{label}" (JSON)"{star}</label>
                    {note}
                    <textarea id=id class="code-input" rows="4" spellcheck="false"
                        aria-invalid=invalid aria-describedby=described
                        on:input=on_input>{text.clone()}</textarea>
                    {help}
                    {err_p}
                </div>
            }
            .into_any()
        }
        Kind::Group { children } => {
            let inner = children
                .iter()
                .map(|c| node_view(c, st, prefix, false))
                .collect::<Vec<_>>();
            if root {
                view! { <div class="sf-fields">{help}{inner}</div> }.into_any()
            } else {
                view! {
                    <fieldset class="sf-group">
                        <legend>{label}{star}</legend>
                        {help}
                        {inner}
                    </fieldset>
                }
                .into_any()
            }
        }
        Kind::Checklist { toggle, items } => {
            let boxes = items
                .iter()
                .map(|item| {
                    let id = format!("{prefix}-f{}", item.id);
                    let (path, toggle, index) = (path.clone(), toggle.clone(), item.index);
                    let on_change = move |ev: leptos::ev::Event| {
                        let on = event_target_checked(&ev);
                        st.draft.update(|d| {
                            switch_item(d, &path, index, &toggle, on);
                        });
                    };
                    view! {
                        <li class="sf-check">
                            <input type="checkbox" id=id.clone() checked=item.checked
                                on:change=on_change/>
                            <label for=id>{item.label.clone()}</label>
                        </li>
                    }
                })
                .collect::<Vec<_>>();
            view! {
                <fieldset class="sf-group sf-checklist">
                    <legend>{label}</legend>
                    {help}
                    <ul>{boxes}</ul>
                </fieldset>
            }
            .into_any()
        }
        Kind::List { items, item_schema } => {
            let rows = items
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let path = path.clone();
                    let name = format!("Remove {}", c.field.label);
                    let add_id = format!("{id}-add");
                    let remove = move |_| {
                        st.draft.update(|d| {
                            remove_item(d, &path, i);
                        });
                        st.reshape();
                        focus_after_rebuild(format!("[id=\"{add_id}\"]"));
                    };
                    view! {
                        <li class="sf-item">
                            {node_view(c, st, prefix, false)}
                            <button type="button" class="btn small" aria-label=name on:click=remove>
                                "Remove"
                            </button>
                        </li>
                    }
                })
                .collect::<Vec<_>>();
            let full = items.len() >= MAX_ITEMS;
            let item_schema = item_schema.clone();
            let list_id = id.clone();
            let add = move |_| {
                st.draft.update(|d| {
                    add_item(d, &path, &item_schema);
                });
                st.reshape();
                focus_after_rebuild(format!(
                    "[id=\"{list_id}\"] > ol > li:last-child :is(input, select, textarea)"
                ));
            };
            view! {
                <fieldset class="sf-group sf-list" id=id.clone()>
                    <legend>{label.clone()}{star}</legend>
                    {help}
                    <ol>{rows}</ol>
                    <button type="button" class="btn small" id=format!("{id}-add") disabled=full
                        aria-label=format!("Add to {label}") on:click=add>
                        "+ Add item"
                    </button>
                    {err_p}
                </fieldset>
            }
            .into_any()
        }
    }
}

/// Once the rebuilt form is on screen, moves the focus to the first element `selector` matches
/// (a rebuilt form would otherwise drop it to the page). Browser only.
fn focus_after_rebuild(selector: String) {
    #[cfg(feature = "hydrate")]
    request_animation_frame(move || {
        use leptos::wasm_bindgen::JsCast;
        let el = leptos::web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&selector).ok().flatten())
            .and_then(|e| e.dyn_into::<leptos::web_sys::HtmlElement>().ok());
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = selector;
}

/// `s` reduced to characters that are safe in an id.
pub fn id_token(s: &str) -> String {
    s.chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}
