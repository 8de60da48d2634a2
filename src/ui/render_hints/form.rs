//! `form`: a form generated from a small field description, and [`SchemaForm`], its component.
//! (Forms from a JSON Schema — approvals, interrupts — are [`crate::ui::schema_form`].)
//!
//! Render-hint props:
//! ```json
//! {"title": "Book a table",                                  // optional
//!  "submit_label": "Book",                                   // optional (also "submitLabel")
//!  "fields": [
//!    {"name": "guest", "label": "Name", "type": "string", "required": true},
//!    {"name": "size", "type": "number", "default": 2},
//!    {"name": "when", "type": "date"},
//!    {"name": "terrace", "type": "boolean"},
//!    {"name": "menu", "type": "enum", "options": ["set", "à la carte"]}]}
//! ```
//! `fields` is a non-empty array; `name` is a required, unique, non-empty string; `label`
//! defaults to the name; `type` is `string` (default), `number`, `integer`, `boolean`, `enum` or
//! `date`; `enum` needs a non-empty `options` array of scalars; `required` is a boolean; a
//! `default` of the wrong type is ignored. Submitting validates in the browser and shows
//! "Submitted" — nothing is sent anywhere.
//!
//! [`SchemaForm`] renders one labelled input per field (`<label for>`), checks required fields
//! and number parsing on submit (messages next to the fields, `aria-invalid`), and calls
//! `on_submit` with a JSON object of typed values: strings, numbers, booleans, the chosen enum
//! option as it was given, parsed JSON for [`FieldKind::Json`]. Empty optional fields are left
//! out; booleans are always present.

use std::sync::Arc;

use leptos::prelude::*;
use serde_json::{Map, Value};

use super::json::{json_text, select_options, TEXT_DEPTH};
use super::props::{as_object, kind_of, opt_str, req_array, req_str, PropsError};
use crate::ui::schema_form::values::parse_number;

/// What a field holds, hence its input.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// `<input type="text">` → a string.
    Text,
    /// `<input type="date">` → a `YYYY-MM-DD` string.
    Date,
    /// `<input type="number" step="any">` → a number.
    Number,
    /// `<input type="number" step="1">` → an integer.
    Integer,
    /// A checkbox → a boolean.
    Boolean,
    /// A `<select>` of these options → the chosen option.
    Enum(Vec<Value>),
    /// A `<textarea>` of JSON → parsed JSON.
    Json,
}

/// One form field.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The key in the submitted object.
    pub name: String,
    /// The visible label.
    pub label: String,
    pub kind: FieldKind,
    pub required: bool,
    /// The initial value (ignored when it does not fit `kind`).
    pub default: Option<Value>,
    /// Help text under the input.
    pub description: Option<String>,
}

// ---- Render-hint props. ----

/// Validated form props.
#[derive(Debug, Clone, PartialEq)]
pub struct FormProps {
    pub title: Option<String>,
    pub submit_label: Option<String>,
    pub fields: Vec<FormField>,
}

/// Validates form props.
pub fn parse(props: &Value) -> Result<FormProps, PropsError> {
    let obj = as_object(props, "form props")?;
    let title = opt_str(obj, "title")?;
    let submit_label = match opt_str(obj, "submit_label")? {
        Some(l) => Some(l),
        None => opt_str(obj, "submitLabel")?,
    };
    let items = req_array(obj, "fields")?;
    if items.is_empty() {
        return Err(PropsError::Invalid("\"fields\" must not be empty".into()));
    }
    let mut fields: Vec<FormField> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let what = format!("field {}", i + 1);
        let f = as_object(item, &what)?;
        let name = req_str(f, "name").map_err(|e| e.at(&what))?;
        if name.trim().is_empty() {
            return Err(PropsError::Invalid(format!(
                "{what}: \"name\" must not be empty"
            )));
        }
        if fields.iter().any(|g| g.name == name) {
            return Err(PropsError::Invalid(format!(
                "{what}: duplicate name {name:?}"
            )));
        }
        let label = opt_str(f, "label")
            .map_err(|e| e.at(&what))?
            .unwrap_or_else(|| name.clone());
        let ty = opt_str(f, "type").map_err(|e| e.at(&what))?;
        let kind = match ty.as_deref().unwrap_or("string") {
            "string" | "text" => FieldKind::Text,
            "date" => FieldKind::Date,
            "number" => FieldKind::Number,
            "integer" => FieldKind::Integer,
            "boolean" => FieldKind::Boolean,
            "enum" => {
                let options = match f.get("options") {
                    Some(Value::Array(o)) if !o.is_empty() => o,
                    _ => {
                        return Err(PropsError::Invalid(format!(
                            "{what}: an enum needs a non-empty \"options\" array"
                        )))
                    }
                };
                if let Some(bad) = options
                    .iter()
                    .find(|o| o.is_null() || o.is_array() || o.is_object())
                {
                    return Err(PropsError::Invalid(format!(
                        "{what}: options must be strings, numbers or booleans, got {}",
                        kind_of(bad)
                    )));
                }
                FieldKind::Enum(options.clone())
            }
            other => {
                return Err(PropsError::Invalid(format!(
                    "{what}: unknown type {other:?} (expected string, number, integer, boolean, enum or date)"
                )))
            }
        };
        let required = match f.get("required") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(PropsError::Invalid(format!(
                    "{what}: \"required\" must be a boolean, got {}",
                    kind_of(other)
                )))
            }
        };
        fields.push(FormField {
            name,
            label,
            kind,
            required,
            default: f.get("default").filter(|d| !d.is_null()).cloned(),
            description: opt_str(f, "description").map_err(|e| e.at(&what))?,
        });
    }
    Ok(FormProps {
        title,
        submit_label,
        fields,
    })
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    // Bounded text: enough to tell forms apart, and no recursion on deep props.
    let text = json_text(props, false, TEXT_DEPTH, 64 * 1024);
    let prefix = format!("rh-form-{:08x}", fnv(text.as_bytes()));
    parse(props).map(|p| view(p, prefix))
}

/// The render-hint form: a [`SchemaForm`] whose submission only shows "Submitted".
pub fn view(p: FormProps, id_prefix: String) -> AnyView {
    let submitted = RwSignal::new(false);
    let title = p.title.map(|t| view! { <div class="rh-title">{t}</div> });
    view! {
        <div class="rh-form-hint">
            {title}
            <SchemaForm
                fields=p.fields
                on_submit=move |_: Value| submitted.set(true)
                submit_label=p.submit_label.unwrap_or_else(|| "Submit".into())
                id_prefix=id_prefix
            />
            <p class="rh-form-status" role="status">
                {move || submitted.get().then_some("Submitted")}
            </p>
        </div>
    }
    .into_any()
}

// ---- Values: raw input text ⇄ typed JSON. ----

/// The raw (input) text a field starts with: its default when it fits the kind. Booleans are
/// `"true"`/`"false"`, enums the index of the chosen option (or `""`), Json pretty JSON.
pub fn initial_raw(f: &FormField) -> String {
    let Some(d) = &f.default else {
        return if f.kind == FieldKind::Boolean {
            "false".into()
        } else {
            String::new()
        };
    };
    match (&f.kind, d) {
        (FieldKind::Text | FieldKind::Date, Value::String(s)) => s.clone(),
        (FieldKind::Number, Value::Number(n)) => n.to_string(),
        (FieldKind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
        (FieldKind::Boolean, Value::Bool(b)) => b.to_string(),
        (FieldKind::Boolean, _) => "false".into(),
        (FieldKind::Enum(options), d) => options
            .iter()
            .position(|o| o == d)
            .map(|i| i.to_string())
            .unwrap_or_default(),
        (FieldKind::Json, d) => json_text(d, true, TEXT_DEPTH, 64 * 1024),
        _ => String::new(),
    }
}

/// Turns the raw texts (one per field, as [`initial_raw`] describes them) into the submitted
/// object, or the error message of each field (`None` where it is fine).
pub fn collect_values(fields: &[FormField], raw: &[String]) -> Result<Value, Vec<Option<String>>> {
    let mut out = Map::new();
    let mut errors = vec![None; fields.len()];
    for (i, f) in fields.iter().enumerate() {
        let text = raw.get(i).map(String::as_str).unwrap_or("");
        let empty = text.trim().is_empty();
        if empty && f.kind != FieldKind::Boolean {
            if f.required {
                errors[i] = Some(match f.kind {
                    FieldKind::Enum(_) => "Choose an option.".to_string(),
                    _ => "This field is required.".to_string(),
                });
            }
            continue;
        }
        let value = match &f.kind {
            FieldKind::Text | FieldKind::Date => Ok(Value::String(text.to_string())),
            FieldKind::Number => parse_number(text).ok_or_else(|| "Enter a number.".to_string()),
            FieldKind::Integer => text
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| "Enter a whole number.".to_string()),
            FieldKind::Boolean => Ok(Value::Bool(text == "true")),
            FieldKind::Enum(options) => text
                .parse::<usize>()
                .ok()
                .and_then(|j| options.get(j).cloned())
                .ok_or_else(|| "Choose an option.".to_string()),
            FieldKind::Json => {
                serde_json::from_str::<Value>(text).map_err(|e| format!("Enter valid JSON ({e})."))
            }
        };
        match value {
            Ok(v) => {
                out.insert(f.name.clone(), v);
            }
            Err(e) => errors[i] = Some(e),
        }
    }
    if errors.iter().any(Option::is_some) {
        Err(errors)
    } else {
        Ok(Value::Object(out))
    }
}

// ---- The component. ----

fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

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

#[cfg(test)]
mod tests;
