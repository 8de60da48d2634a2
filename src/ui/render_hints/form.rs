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

use leptos::prelude::*;
use serde_json::Value;

use super::json::{json_text, TEXT_DEPTH};
use super::props::{as_object, kind_of, opt_str, req_array, req_str, PropsError};

mod component;
mod values;

pub use component::{SchemaForm, SchemaFormProps};
pub use values::{collect_values, initial_raw};

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

fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests;
