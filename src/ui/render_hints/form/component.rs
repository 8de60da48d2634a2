//! [`SchemaForm`]: one labelled, validated input per field, and its submit handling.

use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use super::super::json::select_options;
use super::{collect_values, fnv, initial_raw, FieldKind, FormField};

/// `s` reduced to characters that are safe in an id.
fn id_token(s: &str) -> String {
    s.chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A form with one labelled input per field; validates on submit and calls `on_submit` with the
/// typed values (see the module docs).
#[component]
pub fn SchemaForm(
    /// The fields, e.g. from [`parse`].
    fields: Vec<FormField>,
    /// Called with a JSON object of the typed values when the form is valid.
    #[prop(into)]
    on_submit: Callback<Value>,
    /// The submit button's text (default "Submit").
    #[prop(optional, into)]
    submit_label: Option<String>,
    /// Prefix of the inputs' ids; pass something unique when the same fields may appear twice on
    /// a page (default: derived from the field names).
    #[prop(optional, into)]
    id_prefix: Option<String>,
) -> impl IntoView {
    let prefix = match id_prefix {
        Some(p) => id_token(&p),
        None => {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            format!("form-{:08x}", fnv(names.join("\u{1f}").as_bytes()))
        }
    };
    let n = fields.len();
    let raw: Arc<Vec<RwSignal<String>>> = Arc::new(
        fields
            .iter()
            .map(|f| RwSignal::new(initial_raw(f)))
            .collect(),
    );
    let errors = RwSignal::new(vec![None::<String>; n]);
    let inputs = fields
        .iter()
        .enumerate()
        .map(|(i, f)| field_view(&prefix, i, f, raw[i], errors))
        .collect::<Vec<_>>();
    let fields = Arc::new(fields);
    let on_submit_ev = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let texts: Vec<String> = raw.iter().map(|s| s.get_untracked()).collect();
        match collect_values(&fields, &texts) {
            Ok(v) => {
                errors.set(vec![None; n]);
                on_submit.run(v);
            }
            Err(e) => errors.set(e),
        }
    };
    let invalid = move || {
        errors.with(|e| {
            let bad = e.iter().filter(|x| x.is_some()).count();
            (bad > 0).then(|| {
                format!(
                    "{bad} field{} need{} attention.",
                    if bad == 1 { "" } else { "s" },
                    if bad == 1 { "s" } else { "" }
                )
            })
        })
    };
    view! {
        <form class="rh-form" novalidate=true on:submit=on_submit_ev>
            {inputs}
            <p class="rh-form-summary" role="alert">{invalid}</p>
            <button type="submit" class="rh-submit">
                {submit_label.unwrap_or_else(|| "Submit".into())}
            </button>
        </form>
    }
}

fn field_view(
    prefix: &str,
    i: usize,
    f: &FormField,
    raw: RwSignal<String>,
    errors: RwSignal<Vec<Option<String>>>,
) -> AnyView {
    let id = format!("{prefix}-{i}-{}", id_token(&f.name));
    let err_id = format!("{id}-error");
    let help_id = format!("{id}-help");
    let described_by = if f.description.is_some() {
        format!("{help_id} {err_id}")
    } else {
        err_id.clone()
    };
    let invalid = move || {
        if errors.with(|e| e.get(i).is_some_and(Option::is_some)) {
            "true"
        } else {
            "false"
        }
    };
    let error = move || errors.with(|e| e.get(i).cloned().flatten());
    let help = f
        .description
        .clone()
        .map(|d| view! { <p class="rh-form-help" id=help_id>{d}</p> });
    let required = f.required;
    let star = required.then(|| view! { <span class="rh-required" aria-hidden="true">" *"</span> });
    let label = view! { <label for=id.clone()>{f.label.clone()}{star}</label> };
    let initial = raw.get_untracked();
    let name = f.name.clone();
    let on_input = move |ev: leptos::ev::Event| raw.set(event_target_value(&ev));

    let control = match &f.kind {
        FieldKind::Boolean => {
            let checked = initial == "true";
            return view! {
                <div class="rh-form-field rh-form-check">
                    <input type="checkbox" id=id name=name checked=checked
                        aria-invalid=invalid aria-describedby=described_by
                        on:change=move |ev| raw.set(event_target_checked(&ev).to_string())/>
                    {label}
                    {help}
                    <p class="rh-form-error" id=err_id>{error}</p>
                </div>
            }
            .into_any();
        }
        FieldKind::Text | FieldKind::Date | FieldKind::Number | FieldKind::Integer => {
            let (ty, step, mode) = match f.kind {
                FieldKind::Date => ("date", None, None),
                FieldKind::Number => ("number", Some("any"), Some("decimal")),
                FieldKind::Integer => ("number", Some("1"), Some("numeric")),
                _ => ("text", None, None),
            };
            view! {
                <input type=ty id=id name=name value=initial step=step inputmode=mode
                    required=required aria-invalid=invalid aria-describedby=described_by
                    on:input=on_input/>
            }
            .into_any()
        }
        FieldKind::Enum(options) => {
            let (placeholder, opts) =
                select_options(options, required, |j| initial == j.to_string());
            view! {
                <select id=id name=name required=required aria-invalid=invalid
                    aria-describedby=described_by on:change=on_input>
                    <option value="" selected=initial.is_empty()>{placeholder}</option>
                    {opts}
                </select>
            }
            .into_any()
        }
        FieldKind::Json => view! {
            <textarea id=id name=name rows="4" spellcheck="false" required=required
                aria-invalid=invalid aria-describedby=described_by
                on:input=on_input>{initial}</textarea>
        }
        .into_any(),
    };
    view! {
        <div class="rh-form-field">
            {label}
            {control}
            {help}
            <p class="rh-form-error" id=err_id>{error}</p>
        </div>
    }
    .into_any()
}
