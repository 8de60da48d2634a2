//! What a built form says about a value: the problems that stop it from being sent, each
//! field's label by pointer, how many fields it has. Pure.

use std::collections::BTreeMap;

use serde_json::Value;

use super::model::{Kind, Node};
use super::values::{get, pointer};

/// How many fields a form has (every node and checklist item).
pub fn count(n: &Node) -> usize {
    1 + match &n.kind {
        Kind::Group { children }
        | Kind::List {
            items: children, ..
        } => children.iter().map(count).sum(),
        Kind::Checklist { items, .. } => items.len(),
        _ => 0,
    }
}

/// What stops a form from being sent: required fields left empty, numbers out of range, text
/// too short or too long. `(field pointer, label, message)`, in form order. A group that is
/// neither required nor present is not checked inside.
pub fn check(root: &Node, value: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    walk(root, value, &mut out);
    out
}

fn walk(n: &Node, value: &Value, out: &mut Vec<(String, String, String)>) {
    let f = &n.field;
    let here = get(value, &f.path).filter(|v| !v.is_null());
    let problem = match &n.kind {
        Kind::Group { children } => {
            if f.path.is_empty() || here.is_some() || f.required {
                children.iter().for_each(|c| walk(c, value, out));
            }
            None
        }
        Kind::List { items, .. } => {
            items.iter().for_each(|c| walk(c, value, out));
            None
        }
        Kind::Select { .. } if f.required && here.is_none() => Some("Choose an option.".into()),
        Kind::Input { .. } | Kind::Raw { .. } if f.required && here.is_none() => {
            Some("This field is required.".into())
        }
        Kind::Input {
            min,
            max,
            min_len,
            max_len,
            ..
        } => match here {
            Some(Value::Number(x)) => {
                let x = x.as_f64().unwrap_or(0.0);
                match (min.filter(|m| x < *m), max.filter(|m| x > *m)) {
                    (Some(m), _) => Some(format!("Enter {m} or more.")),
                    (_, Some(m)) => Some(format!("Enter {m} or less.")),
                    _ => None,
                }
            }
            Some(Value::String(s)) => {
                let n = s.chars().count() as u64;
                match (min_len.filter(|m| n < *m), max_len.filter(|m| n > *m)) {
                    (Some(m), _) => Some(format!("Enter at least {m} characters.")),
                    (_, Some(m)) => Some(format!("Enter at most {m} characters.")),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    if let Some(msg) = problem {
        out.push((pointer(&f.path), f.label.clone(), msg));
    }
}

/// Each field's label by its pointer (for messages that name the field).
pub fn labels(n: &Node, out: &mut BTreeMap<String, String>) {
    out.insert(pointer(&n.field.path), n.field.label.clone());
    if let Kind::Group { children }
    | Kind::List {
        items: children, ..
    } = &n.kind
    {
        children.iter().for_each(|c| labels(c, out));
    }
}
