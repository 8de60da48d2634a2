//! The `userAction` a Button sends back: `{name, surfaceId, sourceComponentId, context,
//! timestamp}`, its context resolved from the data model (literals as they are, `{path}`
//! bindings read — relative ones under the List item the Button was rendered for — and calls
//! evaluated). AG-UI carries it in the next run as `forwardedProps.a2uiAction.userAction`.

use serde_json::{json, Map, Value};

use super::binding::{resolve, Scope};
use super::component::Component;
use super::error::A2uiError;
use super::surface::Surface;

/// The user action of the component `component_id` (a Button with an `action.event`).
/// `item` is the absolute pointer of the List item it was rendered for, if any; `timestamp`
/// is ISO 8601 (the caller's clock: this module has none).
pub fn user_action(
    surface: &Surface,
    component_id: &str,
    item: Option<&str>,
    timestamp: &str,
) -> Result<Value, A2uiError> {
    let c = surface.components.get(component_id).ok_or_else(|| {
        A2uiError::validation(format!(
            "no component '{component_id}' on surface '{}'",
            surface.id
        ))
    })?;
    user_action_of(&surface.id, c, &surface.data_model, item, timestamp)
}

/// [`user_action`] from the parts: the surface id, the component and the data model to read
/// the context from (the renderer's, with the user's local edits in it).
pub fn user_action_of(
    surface_id: &str,
    component: &Component,
    model: &Value,
    item: Option<&str>,
    timestamp: &str,
) -> Result<Value, A2uiError> {
    let component_id = component.id.as_str();
    let Some(event) = component.value.get("action").and_then(|a| a.get("event")) else {
        return Err(A2uiError::validation(format!(
            "component '{component_id}' has no action event (a functionCall action runs locally and sends nothing)"
        )));
    };
    let name = event.get("name").and_then(Value::as_str).ok_or_else(|| {
        A2uiError::validation(format!("the action of '{component_id}' has no name"))
    })?;
    let scope = Scope { model, base: item };
    let context: Map<String, Value> = event
        .get("context")
        .and_then(Value::as_object)
        .map(|ctx| {
            ctx.iter()
                .map(|(k, v)| (k.clone(), resolve(v, &scope)))
                .collect()
        })
        .unwrap_or_default();
    Ok(json!({
        "name": name,
        "surfaceId": surface_id,
        "sourceComponentId": component_id,
        "context": context,
        "timestamp": timestamp,
    }))
}

/// The `forwardedProps` of the run that reports `user_action` (the official middleware's shape).
pub fn forwarded_props(user_action: Value) -> Value {
    json!({ "a2uiAction": { "userAction": user_action } })
}
