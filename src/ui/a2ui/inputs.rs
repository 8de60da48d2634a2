//! Interactive components of the basic catalog: Button, TextField, CheckBox, ChoicePicker,
//! Slider, DateTimeInput. Each is a native control with a visible label (its accessible name);
//! a value bound to the data model (`{path}`) is written back on every edit, an unbound one is
//! kept in the control. `checks` and `validationRegexp` mark the control invalid
//! (`aria-invalid`, the messages linked by `aria-describedby`); a Button whose checks fail is
//! disabled.

use leptos::prelude::*;
use serde_json::Value;

use super::node::Node;
use super::state::{now_iso, pick};
use crate::protocol::a2ui::binding::{display, resolve, Scope};
use crate::protocol::a2ui::pattern::is_match;
use crate::protocol::a2ui::user_action_of;

/// The messages of the `checks` that fail (a condition that cannot be decided does not fail).
pub(super) fn failing_checks(n: &Node) -> Memo<Vec<String>> {
    let (prop, data, scope) = (n.prop("checks"), n.ctx.data, n.scope.clone());
    Memo::new(move |_| {
        prop.with(|c| {
            let Some(list) = c.as_ref().and_then(Value::as_array) else {
                return Vec::new();
            };
            list.iter()
                .filter_map(|check| {
                    let cond = check.get("condition")?;
                    let v = data.with(|d| {
                        resolve(
                            cond,
                            &Scope {
                                model: d,
                                base: scope.as_deref(),
                            },
                        )
                    });
                    (v == Value::Bool(false)).then(|| {
                        check
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("Invalid value")
                            .to_string()
                    })
                })
                .collect()
        })
    })
}

/// The problems of a field, under it, linked to the control by id.
pub(super) fn errors_view(id: String, errors: Memo<Vec<String>>) -> impl IntoView {
    move || {
        let list = errors.get();
        (!list.is_empty()).then(|| {
            view! {
                <ul class="a2ui-field-errors" id=id.clone()>
                    {list.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}
                </ul>
            }
        })
    }
}

/// `Button`: sends its `userAction` (context resolved now, from the model with the user's
/// edits). Its child is its content, hence its accessible name unless `accessibility.label`.
pub fn button(n: Node) -> AnyView {
    let failing = failing_checks(&n);
    let variant = n.prop("variant");
    let (label, desc) = n.a11y();
    let class = move || {
        format!(
            "a2ui-button a2ui-button-{}",
            variant.with(|v| pick(v.as_ref(), ("Button", "variant"), "default").to_string())
        )
    };
    let err_id = n.dom_id("errors");
    let (ctx, comp, scope) = (n.ctx, n.comp, n.scope.clone());
    let click = move |_| {
        let Some(c) = comp.get_untracked() else {
            return;
        };
        if let Some(f) = c.value.get("action").and_then(|a| a.get("functionCall")) {
            let name = f.get("call").and_then(Value::as_str).unwrap_or("?");
            ctx.note.set(Some(format!(
                "This button runs the local function '{name}', which this view does not run."
            )));
            return;
        }
        let model = ctx.data.get_untracked();
        match user_action_of(
            &ctx.surface_id.get_value(),
            &c,
            &model,
            scope.as_deref(),
            &now_iso(),
        ) {
            Ok(action) => {
                ctx.note.set(None);
                ctx.on_action.run(action);
            }
            Err(e) => ctx.note.set(Some(e.message)),
        }
    };
    let described = err_id.clone();
    view! {
        <span class="a2ui-button-host">
            <button type="button" class=class on:click=click
                disabled=move || !failing.with(Vec::is_empty)
                aria-label=move || label.get() aria-description=move || desc.get()
                aria-describedby=move || (!failing.with(Vec::is_empty)).then(|| described.clone())>
                {n.child_at("child")}
            </button>
            {errors_view(err_id, failing)}
        </span>
    }
    .into_any()
}

/// A field's value: the bound model value, or what the user typed into an unbound field.
pub(super) fn field_value(
    n: &Node,
) -> (Memo<Value>, Memo<Option<String>>, RwSignal<Option<Value>>) {
    (n.value("value"), n.bound("value"), RwSignal::new(None))
}

/// Stores an edit: into the model when bound, into the control otherwise.
pub(super) fn store(
    n: &Node,
    bound: Memo<Option<String>>,
    local: RwSignal<Option<Value>>,
    v: Value,
) {
    match bound.get_untracked() {
        Some(path) => n.write(&path, v),
        None => local.set(Some(v)),
    }
}

/// What a number field holds: a JSON number when the text reads back as itself (`3`, `2.5`),
/// else the text, so a half-typed `1.` or `-` is not rewritten under the user's cursor.
pub(super) fn number_value(text: String) -> Value {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Value::from(i);
    }
    match t.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        Some(n) if n.to_string() == t => Value::Number(n),
        _ => Value::String(text),
    }
}

/// `TextField`: short text, long text (a textarea), number or obscured (a password field).
pub fn text_field(n: Node) -> AnyView {
    let label = n.text("label");
    let (value, bound, local) = field_value(&n);
    let current = move || local.get().unwrap_or_else(|| value.get());
    let variant = n.prop("variant");
    let kind = Memo::new(move |_| {
        variant.with(|v| pick(v.as_ref(), ("TextField", "variant"), "shortText").to_string())
    });
    let regexp = n.prop("validationRegexp");
    let checks = failing_checks(&n);
    let errors = Memo::new(move |_| {
        let mut e = checks.get();
        let text = display(&current());
        if let Some(p) = regexp.with(|r| r.as_ref().and_then(Value::as_str).map(str::to_string)) {
            if !text.is_empty() && is_match(&p, &text) == Some(false) {
                e.push("The value does not have the expected format.".into());
            }
        }
        e
    });
    let err_id = n.dom_id("errors");
    let described = err_id.clone();
    let invalid = move || (!errors.with(Vec::is_empty)).then_some("true");
    let describedby = move || (!errors.with(Vec::is_empty)).then(|| described.clone());
    let (desc, node) = (n.a11y().1, n.clone());
    let on_input = move |ev| {
        let text = event_target_value(&ev);
        let v = if kind.get_untracked() == "number" {
            number_value(text)
        } else {
            Value::String(text)
        };
        store(&node, bound, local, v);
    };
    let control = move || {
        let describedby = describedby.clone();
        if kind.get() == "longText" {
            view! {
                <textarea class="a2ui-input" prop:value=move || display(&current()) on:input=on_input.clone()
                    aria-invalid=invalid aria-describedby=describedby aria-description=move || desc.get()></textarea>
            }
            .into_any()
        } else {
            let t = match kind.get().as_str() {
                "number" => "number",
                "obscured" => "password",
                _ => "text",
            };
            view! {
                <input class="a2ui-input" type=t value=move || display(&current()) prop:value=move || display(&current()) on:input=on_input.clone()
                    aria-invalid=invalid aria-describedby=describedby aria-description=move || desc.get()/>
            }
            .into_any()
        }
    };
    view! {
        <div class="a2ui-field">
            <label>
                <span class="a2ui-label">{move || label.get()}</span>
                {control}
            </label>
            {errors_view(err_id, errors)}
        </div>
    }
    .into_any()
}

/// `CheckBox`: a native checkbox in its label.
pub fn check_box(n: Node) -> AnyView {
    let label = n.text("label");
    let (value, bound, local) = field_value(&n);
    let checked = move || {
        local
            .get()
            .unwrap_or_else(|| value.get())
            .as_bool()
            .unwrap_or(false)
    };
    let checks = failing_checks(&n);
    let err_id = n.dom_id("errors");
    let described = err_id.clone();
    let node = n.clone();
    view! {
        <div class="a2ui-field a2ui-check">
            <label>
                <input type="checkbox" checked=checked prop:checked=checked
                    on:change=move |ev| store(&node, bound, local, Value::Bool(event_target_checked(&ev)))
                    aria-invalid=move || (!checks.with(Vec::is_empty)).then_some("true")
                    aria-describedby=move || (!checks.with(Vec::is_empty)).then(|| described.clone())/>
                " "
                <span class="a2ui-label">{move || label.get()}</span>
            </label>
            {errors_view(err_id, checks)}
        </div>
    }
    .into_any()
}

/// `Slider`: a range input with its value shown beside it.
pub fn slider(n: Node) -> AnyView {
    let label = n.text("label");
    let (value, bound, local) = field_value(&n);
    let (min, max) = (n.value("min"), n.value("max"));
    let number = move || {
        local
            .get()
            .unwrap_or_else(|| value.get())
            .as_f64()
            .unwrap_or(0.0)
    };
    let node = n.clone();
    view! {
        <div class="a2ui-field a2ui-slider">
            <label>
                <span class="a2ui-label">{move || label.get()}</span>
                <input type="range" step="any"
                    min=move || min.get().as_f64().unwrap_or(0.0).to_string()
                    max=move || max.get().as_f64().unwrap_or(100.0).to_string()
                    value=move || number().to_string()
                    prop:value=move || number().to_string()
                    on:input=move |ev| {
                        if let v @ Value::Number(_) = number_value(event_target_value(&ev)) {
                            store(&node, bound, local, v);
                        }
                    }/>
                <output class="a2ui-slider-value">{move || crate::protocol::a2ui::functions::format_number(number(), None, true)}</output>
            </label>
        </div>
    }
    .into_any()
}

/// `DateTimeInput`: a date, time or date-and-time input, as `enableDate`/`enableTime` say.
pub fn date_time_input(n: Node) -> AnyView {
    let label = n.text("label");
    let (value, bound, local) = field_value(&n);
    let (date, time) = (n.prop("enableDate"), n.prop("enableTime"));
    let kind = move || {
        let on =
            |p: Memo<Option<Value>>| p.with(|v| v.as_ref().and_then(Value::as_bool) == Some(true));
        match (on(date), on(time)) {
            (true, false) => "date",
            (false, true) => "time",
            _ => "datetime-local",
        }
    };
    let (min, max) = (n.text("min"), n.text("max"));
    let checks = failing_checks(&n);
    let err_id = n.dom_id("errors");
    let node = n.clone();
    view! {
        <div class="a2ui-field">
            <label>
                <span class="a2ui-label">{move || Some(label.get()).filter(|l| !l.is_empty()).unwrap_or_else(|| "Date and time".into())}</span>
                <input class="a2ui-input" type=kind
                    min=move || Some(min.get()).filter(|m| !m.is_empty())
                    max=move || Some(max.get()).filter(|m| !m.is_empty())
                    value=move || display(&local.get().unwrap_or_else(|| value.get()))
                    prop:value=move || display(&local.get().unwrap_or_else(|| value.get()))
                    on:input=move |ev| store(&node, bound, local, Value::String(event_target_value(&ev)))/>
            </label>
            {errors_view(err_id, checks)}
        </div>
    }
    .into_any()
}
