//! `card`: a key-value card.
//!
//! Props:
//! ```json
//! {"title": "Order #123",                              // required string
//!  "body": "Shipped yesterday.",                       // optional text (line breaks kept)
//!  "fields": [{"label": "Total", "value": "$42"}],     // optional; or an object {"Total": "$42"}
//!  "actions": ["Track", "Cancel"]}                     // optional strings, shown as inert chips
//! ```
//! Field values are scalars (`null` shows as "—"); an array or object value is shown as compact
//! JSON text. Actions have no behaviour: they are rendered as disabled-looking chips.

use leptos::prelude::*;
use serde_json::Value;

use super::json::{json_text, TEXT_BYTES, TEXT_DEPTH};
use super::props::{as_object, kind_of, opt_str, req_str, scalar_text, PropsError};

/// Validated card props.
#[derive(Debug, Clone, PartialEq)]
pub struct CardProps {
    pub title: String,
    pub body: Option<String>,
    pub fields: Vec<(String, String)>,
    pub actions: Vec<String>,
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::Array(_) | Value::Object(_) => json_text(v, false, TEXT_DEPTH, TEXT_BYTES),
        scalar => scalar_text(scalar).unwrap_or_default(),
    }
}

/// Validates card props.
pub fn parse(props: &Value) -> Result<CardProps, PropsError> {
    let obj = as_object(props, "card props")?;
    let title = req_str(obj, "title")?;
    let body = opt_str(obj, "body")?;
    let fields = match obj.get("fields") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let what = format!("field {}", i + 1);
                let f = as_object(f, &what)?;
                let label = req_str(f, "label").map_err(|e| e.at(&what))?;
                let value = f
                    .get("value")
                    .ok_or_else(|| PropsError::Invalid(format!("{what}: \"value\" is required")))?;
                Ok((label, value_text(value)))
            })
            .collect::<Result<Vec<_>, PropsError>>()?,
        Some(other) => {
            return Err(PropsError::Invalid(format!(
                "\"fields\" must be an array of {{label, value}} or an object, got {}",
                kind_of(other)
            )))
        }
    };
    let actions = match obj.get("actions") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.as_str().map(str::to_owned).ok_or_else(|| {
                    PropsError::Invalid(format!(
                        "action {} must be a string, got {}",
                        i + 1,
                        kind_of(a)
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(PropsError::Invalid(format!(
                "\"actions\" must be an array of strings, got {}",
                kind_of(other)
            )))
        }
    };
    Ok(CardProps {
        title,
        body,
        fields,
        actions,
    })
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

/// The card built from validated props.
pub fn view(p: CardProps) -> AnyView {
    let body = p.body.map(|b| view! { <p class="rh-card-body">{b}</p> });
    let fields = (!p.fields.is_empty()).then(|| {
        let rows = p
            .fields
            .into_iter()
            .map(|(label, value)| view! { <div class="rh-field"><dt>{label}</dt><dd>{value}</dd></div> })
            .collect::<Vec<_>>();
        view! { <dl class="rh-fields">{rows}</dl> }
    });
    let actions = (!p.actions.is_empty()).then(|| {
        let chips = p
            .actions
            .into_iter()
            .map(|a| view! { <li><span class="rh-chip" aria-disabled="true">{a}</span></li> })
            .collect::<Vec<_>>();
        view! { <ul class="rh-actions" aria-label="Suggested actions">{chips}</ul> }
    });
    view! {
        <div class="rh-card">
            <div class="rh-title">{p.title}</div>
            {body}
            {fields}
            {actions}
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_cards() {
        let p = parse(&json!({"title": "T", "body": "B",
            "fields": [{"label": "a", "value": 1}, {"label": "b", "value": null}, {"label": "c", "value": [1]}],
            "actions": ["Go"]}))
        .unwrap();
        assert_eq!(
            p.fields,
            [
                ("a".into(), "1".into()),
                ("b".into(), "—".into()),
                ("c".into(), "[1]".into())
            ]
        );
        assert_eq!(p.actions, ["Go"]);
        let p = parse(&json!({"title": "T", "fields": {"x": "y", "n": true}})).unwrap();
        assert_eq!(
            p.fields,
            [("x".into(), "y".into()), ("n".into(), "true".into())]
        );
        assert!(parse(&json!({"title": "only"})).is_ok());
    }

    #[test]
    fn invalid_cards() {
        let err = |v: Value| parse(&v).unwrap_err().to_string();
        assert_eq!(err(json!({"body": "x"})), "\"title\" is required");
        assert!(err(json!({"title": 1})).contains("\"title\" must be a string"));
        assert!(err(json!({"title": "t", "body": {}})).contains("\"body\" must be a string"));
        assert!(err(json!({"title": "t", "fields": "x"})).contains("\"fields\" must be"));
        assert!(err(json!({"title": "t", "fields": [{"value": 1}]}))
            .contains("field 1: \"label\" is required"));
        assert!(err(json!({"title": "t", "fields": [{"label": "a"}]}))
            .contains("field 1: \"value\" is required"));
        assert!(err(json!({"title": "t", "fields": [3]})).contains("field 1 must be an object"));
        assert!(err(json!({"title": "t", "actions": "go"})).contains("\"actions\" must be"));
        assert!(
            err(json!({"title": "t", "actions": ["a", 2]})).contains("action 2 must be a string")
        );
    }
}
