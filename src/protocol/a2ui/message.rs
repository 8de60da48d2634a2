//! The four server-to-client messages of A2UI v0.9, parsed from JSON with the envelope rules of
//! `server_to_client.json`: a `version`, exactly one action, the action's required fields with
//! their types, and nothing else. Components stay JSON objects here; the catalog judges them.

use serde_json::{Map, Value};

use super::error::{A2uiError, Category, DetailCode};
use super::limits::{check_id, A2uiLimits};

/// Versions whose messages this processor reads (v0.9.1 changed no message shape).
pub const SUPPORTED_VERSIONS: [&str; 2] = ["v0.9", "v0.9.1"];

/// The four actions, the key a message carries each under.
pub const ACTIONS: [&str; 4] = [
    "createSurface",
    "updateComponents",
    "updateDataModel",
    "deleteSurface",
];

/// Actions of v0.8 that v0.9 replaced; named in the error so an agent's author sees why.
const V08_ACTIONS: [&str; 3] = ["beginRendering", "surfaceUpdate", "dataModelUpdate"];

/// One parsed message.
#[derive(Debug, Clone, PartialEq)]
pub enum A2uiMessage {
    CreateSurface {
        surface_id: String,
        catalog_id: String,
        theme: Option<Map<String, Value>>,
        send_data_model: bool,
    },
    UpdateComponents {
        surface_id: String,
        /// Each a JSON object with a string `id` (checked here); `component` may be absent
        /// for an update of an existing component.
        components: Vec<Map<String, Value>>,
    },
    UpdateDataModel {
        surface_id: String,
        path: Option<String>,
        /// `None` removes what `path` names.
        value: Option<Value>,
    },
    DeleteSurface {
        surface_id: String,
    },
}

impl A2uiMessage {
    pub fn surface_id(&self) -> &str {
        match self {
            A2uiMessage::CreateSurface { surface_id, .. }
            | A2uiMessage::UpdateComponents { surface_id, .. }
            | A2uiMessage::UpdateDataModel { surface_id, .. }
            | A2uiMessage::DeleteSurface { surface_id } => surface_id,
        }
    }
}

fn expect_object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, A2uiError> {
    v.as_object().ok_or_else(|| {
        A2uiError::field(
            path,
            DetailCode::TypeMismatch,
            format!(
                "{} must be an object",
                if path.is_empty() { "a message" } else { path }
            ),
        )
    })
}

fn only_keys(o: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), A2uiError> {
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(A2uiError::field(
            super::error::join_path(at, k),
            DetailCode::UnknownField,
            format!(
                "unknown property '{k}' in {}",
                if at.is_empty() { "the message" } else { at }
            ),
        )),
        None => Ok(()),
    }
}

fn req_string(o: &Map<String, Value>, key: &str, at: &str) -> Result<String, A2uiError> {
    let path = super::error::join_path(at, key);
    match o.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(A2uiError::field(
            path,
            DetailCode::TypeMismatch,
            format!("{key} must be a string"),
        )),
        None => Err(A2uiError::field(
            path.clone(),
            DetailCode::MissingField,
            format!("{path} is required"),
        )),
    }
}

/// Parses one message. Errors carry details whose paths are relative to the message.
pub fn parse_message(v: &Value, limits: &A2uiLimits) -> Result<A2uiMessage, A2uiError> {
    let o = expect_object(v, "")?;
    let present: Vec<&str> = ACTIONS.into_iter().filter(|a| o.contains_key(*a)).collect();
    if present.len() > 1 {
        return Err(A2uiError::validation(format!(
            "Message contains multiple conflicting update actions ({})",
            present.join(", ")
        )));
    }
    let version = match o.get("version") {
        None => {
            return Err(A2uiError::field(
                "version",
                DetailCode::MissingField,
                "version is required",
            ))
        }
        Some(Value::String(s)) => s.as_str(),
        Some(_) => {
            return Err(A2uiError::field(
                "version",
                DetailCode::TypeMismatch,
                "version must be a string",
            ))
        }
    };
    if !SUPPORTED_VERSIONS.contains(&version) {
        return Err(A2uiError::field(
            "version",
            DetailCode::InvalidValue,
            format!(
                "version '{version}' is not supported (expected one of {})",
                SUPPORTED_VERSIONS.join(", ")
            ),
        ));
    }
    let Some(&action) = present.first() else {
        if let Some(old) = V08_ACTIONS.into_iter().find(|a| o.contains_key(*a)) {
            return Err(A2uiError::validation(format!(
                "action '{old}' is not supported in protocol version {version}"
            )));
        }
        return Err(A2uiError::validation(format!(
            "Message has no action (expected one of {})",
            ACTIONS.join(", ")
        )));
    };
    only_keys(o, &["version", action], "")?;
    let body = expect_object(&o[action], action)?;
    let surface_id = req_string(body, "surfaceId", action)?;
    check_id("surfaceId", &surface_id, limits)?;
    let parsed = match action {
        "createSurface" => {
            only_keys(
                body,
                &["surfaceId", "catalogId", "theme", "sendDataModel"],
                action,
            )?;
            let catalog_id = req_string(body, "catalogId", action)?;
            check_id("catalogId", &catalog_id, limits)?;
            let theme = match body.get("theme") {
                None => None,
                Some(t) => Some(expect_object(t, "createSurface.theme")?.clone()),
            };
            let send_data_model = match body.get("sendDataModel") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(A2uiError::field(
                        "createSurface.sendDataModel",
                        DetailCode::TypeMismatch,
                        "sendDataModel must be a boolean",
                    ))
                }
            };
            A2uiMessage::CreateSurface {
                surface_id,
                catalog_id,
                theme,
                send_data_model,
            }
        }
        "updateComponents" => {
            only_keys(body, &["surfaceId", "components"], action)?;
            A2uiMessage::UpdateComponents {
                surface_id,
                components: components(body, limits)?,
            }
        }
        "updateDataModel" => {
            only_keys(body, &["surfaceId", "path", "value"], action)?;
            let path = match body.get("path") {
                None => None,
                Some(Value::String(p)) => {
                    check_id("path", p, limits)?;
                    Some(p.clone())
                }
                Some(_) => {
                    return Err(A2uiError::field(
                        "updateDataModel.path",
                        DetailCode::TypeMismatch,
                        "path must be a string",
                    ))
                }
            };
            A2uiMessage::UpdateDataModel {
                surface_id,
                path,
                value: body.get("value").cloned(),
            }
        }
        _ => {
            only_keys(body, &["surfaceId"], action)?;
            A2uiMessage::DeleteSurface { surface_id }
        }
    };
    Ok(parsed)
}

fn components(
    body: &Map<String, Value>,
    limits: &A2uiLimits,
) -> Result<Vec<Map<String, Value>>, A2uiError> {
    let at = "updateComponents.components";
    let list = match body.get("components") {
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(A2uiError::field(
                at,
                DetailCode::TypeMismatch,
                "components must be an array",
            ))
        }
        None => {
            return Err(A2uiError::field(
                at,
                DetailCode::MissingField,
                "updateComponents.components is required",
            ))
        }
    };
    if list.is_empty() {
        return Err(A2uiError::field(
            at,
            DetailCode::InvalidValue,
            "components must not be empty",
        ));
    }
    if list.len() > limits.max_components {
        return Err(A2uiError::new(
            Category::Limit,
            format!(
                "updateComponents has {} components, more than {}",
                list.len(),
                limits.max_components
            ),
        ));
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let path = format!("{at}.{i}");
        let obj = c.as_object().ok_or_else(|| {
            A2uiError::field(
                path.clone(),
                DetailCode::TypeMismatch,
                format!("Component at index {i} must be an object"),
            )
        })?;
        match obj.get("id") {
            Some(Value::String(id)) => check_id("a component id", id, limits)?,
            Some(_) => {
                return Err(A2uiError::field(
                    format!("{path}.id"),
                    DetailCode::TypeMismatch,
                    format!("Component at index {i} has an 'id' that is not a string"),
                ))
            }
            None => {
                return Err(A2uiError::field(
                    format!("{path}.id"),
                    DetailCode::MissingField,
                    format!("Component at index {i} is missing an 'id'"),
                ))
            }
        }
        if let Some(kind) = obj.get("component") {
            if !kind.is_string() {
                return Err(A2uiError::field(
                    format!("{path}.component"),
                    DetailCode::TypeMismatch,
                    format!("Component at index {i}: 'component' must be a string"),
                ));
            }
        }
        out.push(obj.clone());
    }
    Ok(out)
}
