//! `a2ui`: a booking form as an A2UI v0.9 surface, and the answer to its Submit button when the
//! next run carries the user action (`forwardedProps.a2uiAction.userAction`).
//!
//! The activity follows the official `@ag-ui/a2ui-middleware`: message id
//! `a2ui-surface-<surfaceId>`, type `a2ui-surface`, first `{status: "building"}`, then
//! `{a2ui_operations: [createSurface, updateComponents, updateDataModel]}`, each with
//! `replace: true`. The answer replaces the same message's content with the whole surface in its
//! new state (a renderer can rebuild it from that one message, as it can from every snapshot the
//! middleware sends).

use serde_json::{json, Map, Value};

use crate::server::agents::{AgentError, RunContext, RunEnd};
use crate::wire::RunErrorCode;

use super::super::text::stream_text;
use super::super::tools::pause;
use super::{clip, digest, plain, snapshot, A2UI_ACTION_PROP};

/// The activity type of an A2UI surface.
pub(super) use crate::protocol::a2ui::ACTIVITY_TYPE as A2UI_ACTIVITY;
/// The basic catalog's id (`catalogId` of the v0.9 `catalogs/basic/catalog.json`).
pub(super) const BASIC_CATALOG_ID: &str =
    "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
/// The action the form's Submit button sends.
pub(super) const SUBMIT_ACTION: &str = "submit_form";
/// Surface ids of the booking form: this prefix and 16 hex digits.
const SURFACE_PREFIX: &str = "booking-";

/// The room types the form offers: (value, label).
const ROOMS: [(&str, &str); 3] = [
    ("single", "Single room"),
    ("double", "Double room"),
    ("suite", "Suite"),
];
const MAX_GUESTS: u64 = 8;
const MAX_NAME: usize = 80;
const MAX_EMAIL: usize = 120;
/// How much of an unknown action's name or surface id an answer repeats.
const MAX_ECHO: usize = 64;

/// One v0.9 message: `{version: "v0.9", <kind>: body}`.
pub(super) fn op(kind: &str, body: Value) -> Value {
    let mut m = Map::new();
    m.insert("version".into(), json!("v0.9"));
    m.insert(kind.into(), body);
    Value::Object(m)
}

/// The activity message that carries `surface`.
pub(super) fn message_id(surface: &str) -> String {
    format!("a2ui-surface-{surface}")
}

fn default_booking() -> Value {
    json!({"name": "", "email": "", "date": "2026-12-24", "guests": 2, "room": ["double"], "breakfast": true})
}

/// The form: inputs bound to `/booking/*`, a status line bound to `/status`, and a Submit
/// button whose action context reads every input's path.
fn form_components() -> Value {
    let bound = |p: &str| json!({"path": format!("/booking/{p}")});
    let options: Vec<Value> = ROOMS
        .iter()
        .map(|(v, l)| json!({"label": l, "value": v}))
        .collect();
    json!([
        {"id": "root", "component": "Card", "child": "form"},
        {"id": "form", "component": "Column", "children": ["title", "name", "email", "date", "guests", "room", "breakfast", "status", "submit"], "align": "stretch"},
        {"id": "title", "component": "Text", "text": "Book a room", "variant": "h2"},
        {"id": "name", "component": "TextField", "label": "Name", "value": bound("name"), "variant": "shortText",
         "checks": [{"condition": {"call": "required", "args": {"value": bound("name")}}, "message": "Your name is required."}]},
        {"id": "email", "component": "TextField", "label": "Email", "value": bound("email"), "variant": "shortText",
         "checks": [{"condition": {"call": "email", "args": {"value": bound("email")}}, "message": "Please enter a valid email address."}]},
        {"id": "date", "component": "DateTimeInput", "label": "Arrival", "value": bound("date"), "enableDate": true},
        {"id": "guests", "component": "Slider", "label": "Guests", "min": 1, "max": MAX_GUESTS, "value": bound("guests")},
        {"id": "room", "component": "ChoicePicker", "label": "Room", "variant": "mutuallyExclusive", "options": options, "value": bound("room")},
        {"id": "breakfast", "component": "CheckBox", "label": "Breakfast included", "value": bound("breakfast")},
        {"id": "status", "component": "Text", "text": {"path": "/status"}, "variant": "caption"},
        {"id": "submit", "component": "Button", "child": "submit_label", "variant": "primary",
         "action": {"event": {"name": SUBMIT_ACTION, "context": {
             "name": bound("name"), "email": bound("email"), "date": bound("date"),
             "guests": bound("guests"), "room": bound("room"), "breakfast": bound("breakfast")}}}},
        {"id": "submit_label", "component": "Text", "text": "Book"}
    ])
}

/// After a valid submission: the booking's summary instead of the inputs.
fn submitted_components() -> Value {
    json!([
        {"id": "root", "component": "Card", "child": "done"},
        {"id": "done", "component": "Column", "children": ["done_title", "summary", "status"], "align": "stretch"},
        {"id": "done_title", "component": "Text", "text": "Booking received", "variant": "h2"},
        {"id": "summary", "component": "Text", "text": {"path": "/summary"}},
        {"id": "status", "component": "Text", "text": {"path": "/status"}, "variant": "caption"}
    ])
}

/// The whole surface: create it, its components, its data model.
pub(super) fn surface_ops(surface: &str, components: Value, data: Value) -> Value {
    json!({"a2ui_operations": [
        op("createSurface", json!({"surfaceId": surface, "catalogId": BASIC_CATALOG_ID})),
        op("updateComponents", json!({"surfaceId": surface, "components": components})),
        op("updateDataModel", json!({"surfaceId": surface, "path": "/", "value": data})),
    ]})
}

/// A new surface id (`prefix` and a digest), its activity's message id, and the middleware's
/// `{status: "building"}` on that message, shown for a moment before the surface exists.
pub(super) async fn building(
    ctx: &mut RunContext,
    prefix: &str,
) -> Result<(String, String), AgentError> {
    let surface = format!("{prefix}{}", digest(&ctx.new_id("surface")));
    let id = message_id(&surface);
    let content = json!({"status": "building"});
    ctx.emit(snapshot(&id, A2UI_ACTIVITY, content, Some(true)))
        .await?;
    pause(ctx).await?;
    Ok((surface, id))
}

pub async fn a2ui(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    stream_text(ctx, "Here is a booking form, drawn by your app from an A2UI v0.9 surface (basic catalog). Fill it in and press **Book**: the action comes back to me in the next run.").await?;
    let (surface, id) = building(ctx, SURFACE_PREFIX).await?;
    let data = json!({"booking": default_booking(), "status": "Fill in the form and press Book."});
    let content = surface_ops(&surface, form_components(), data);
    ctx.emit(snapshot(&id, A2UI_ACTIVITY, content, Some(true)))
        .await?;
    Ok(RunEnd::success())
}

/// A user action as the renderer reports it, checked for shape.
#[derive(Debug)]
pub(super) struct UserAction {
    pub name: String,
    pub surface_id: String,
    pub context: Map<String, Value>,
}

/// `forwardedProps.a2uiAction.userAction`, or why it is unusable.
pub(super) fn parse_action(props: &Value) -> Result<UserAction, String> {
    let Some(action) = props
        .get(A2UI_ACTION_PROP)
        .and_then(|a| a.get("userAction"))
        .and_then(Value::as_object)
    else {
        return Err("forwardedProps.a2uiAction.userAction must be an object".into());
    };
    let text = |key: &str, required: bool| -> Result<Option<String>, String> {
        match action.get(key) {
            None | Some(Value::Null) if !required => Ok(None),
            Some(Value::String(s)) if !s.is_empty() && s.chars().nth(256).is_none() => {
                Ok(Some(s.clone()))
            }
            _ => Err(format!(
                "userAction.{key} must be a non-empty string of at most 256 characters"
            )),
        }
    };
    let name = text("name", true)?.unwrap_or_default();
    let surface_id = text("surfaceId", true)?.unwrap_or_default();
    text("sourceComponentId", false)?;
    text("timestamp", false)?;
    let context = match action.get("context") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(c)) => c.clone(),
        Some(_) => return Err("userAction.context must be an object".into()),
    };
    Ok(UserAction {
        name,
        surface_id,
        context,
    })
}

fn is_booking_surface(id: &str) -> bool {
    id.strip_prefix(SURFACE_PREFIX)
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A submitted booking whose every field passed its check.
#[derive(Debug, PartialEq)]
pub(super) struct Booking {
    pub name: String,
    pub email: String,
    pub date: String,
    pub guests: u64,
    pub room: &'static str,
    pub breakfast: bool,
}

/// Check the action's context field by field: the booking, or the problems (one per field, in
/// the form's order) with the fields that passed (the rest at their defaults).
pub(super) fn check_booking(c: &Map<String, Value>) -> Result<Booking, (Vec<String>, Value)> {
    let mut problems: Vec<String> = Vec::new();
    let mut data = default_booking();
    let short_text = |v: Option<&Value>, max: usize| match v {
        Some(Value::String(s)) if s.chars().nth(max).is_none() && !s.trim().is_empty() => {
            Some(s.trim().to_string())
        }
        _ => None,
    };
    let name = short_text(c.get("name"), MAX_NAME);
    let email = short_text(c.get("email"), MAX_EMAIL).filter(|e| {
        let mut parts = e.split('@');
        let (user, host) = (parts.next(), parts.next());
        parts.next().is_none()
            && user.is_some_and(|u| !u.is_empty())
            && host.is_some_and(|h| h.contains('.') && !h.starts_with('.') && !h.ends_with('.'))
            && !e.chars().any(char::is_whitespace)
    });
    let date = short_text(c.get("date"), 40).and_then(|d| iso_date(&d));
    let guests = c
        .get("guests")
        .and_then(Value::as_f64)
        .filter(|g| g.fract() == 0.0 && (1.0..=MAX_GUESTS as f64).contains(g))
        .map(|g| g as u64);
    // A ChoicePicker's value is a list of strings; one string is taken as a list of one.
    let room = match c.get("room") {
        Some(Value::Array(a)) if a.len() == 1 => a[0].as_str(),
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
    .and_then(|r| ROOMS.iter().find(|(v, _)| *v == r).map(|(v, _)| *v));
    let breakfast = c.get("breakfast").and_then(Value::as_bool);
    let checked = [
        (
            "name",
            name.clone().map(Value::from),
            format!("name: a non-empty text of at most {MAX_NAME} characters"),
        ),
        (
            "email",
            email.clone().map(Value::from),
            format!("email: an address like ada@example.com (at most {MAX_EMAIL} characters)"),
        ),
        (
            "date",
            date.clone().map(Value::from),
            "date: a calendar date as YYYY-MM-DD".into(),
        ),
        (
            "guests",
            guests.map(Value::from),
            format!("guests: a whole number from 1 to {MAX_GUESTS}"),
        ),
        (
            "room",
            room.map(|r| json!([r])),
            format!("room: one of {}", ROOMS.map(|(v, _)| v).join(", ")),
        ),
        (
            "breakfast",
            breakfast.map(Value::from),
            "breakfast: true or false".into(),
        ),
    ];
    for (field, ok, problem) in checked {
        match ok {
            Some(v) => data[field] = v,
            None => problems.push(problem),
        }
    }
    match (name, email, date, guests, room, breakfast) {
        (Some(name), Some(email), Some(date), Some(guests), Some(room), Some(breakfast)) => {
            Ok(Booking {
                name,
                email,
                date,
                guests,
                room,
                breakfast,
            })
        }
        _ => Err((problems, data)),
    }
}

/// The date part of an ISO 8601 date or date-time, if it is a plausible calendar date.
fn iso_date(s: &str) -> Option<String> {
    let d = s.get(..10)?;
    let b = d.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return None;
    }
    let month: u8 = d[5..7].parse().ok()?;
    let day: u8 = d[8..10].parse().ok()?;
    let rest_ok = s.len() == 10 || s.as_bytes()[10] == b'T';
    ((1..=12).contains(&month) && (1..=31).contains(&day) && rest_ok).then(|| d.to_string())
}

fn room_label(value: &str) -> &'static str {
    ROOMS
        .iter()
        .find(|(v, _)| *v == value)
        .map_or("room", |(_, l)| l)
}

/// Answer a user action. A payload of the wrong shape fails the run (`INVALID_INPUT`); an action
/// the demo does not know is answered in words; the booking form's submission is checked and
/// the surface shows the outcome.
pub async fn answer_action(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let action = parse_action(&ctx.input.forwarded_props)
        .map_err(|m| AgentError::failed(RunErrorCode::InvalidInput, m))?;
    if action.name != SUBMIT_ACTION || !is_booking_surface(&action.surface_id) {
        let text = format!(
            "I have no handler for the action “{}” on surface “{}”. This demo answers `{SUBMIT_ACTION}` from the booking form of the `a2ui` scenario.",
            plain(&action.name, MAX_ECHO),
            plain(&action.surface_id, MAX_ECHO)
        );
        stream_text(ctx, &text).await?;
        return Ok(RunEnd::success());
    }
    let surface = action.surface_id;
    let id = message_id(&surface);
    match check_booking(&action.context) {
        Ok(b) => {
            let breakfast = if b.breakfast {
                "with breakfast"
            } else {
                "without breakfast"
            };
            // A2UI Text renders simple markdown: no `<…>` around the address, which some
            // renderers would turn into a link.
            let summary = format!(
                "{} for {} guest(s) from {}, {breakfast}, for {} ({}).",
                room_label(b.room),
                b.guests,
                b.date,
                clip(&b.name, MAX_NAME),
                clip(&b.email, MAX_EMAIL)
            );
            let data = json!({
                "booking": {"name": b.name, "email": b.email, "date": b.date, "guests": b.guests, "room": [b.room], "breakfast": b.breakfast},
                "summary": summary,
                "status": "Submitted — the agent confirmed it."
            });
            ctx.emit(snapshot(
                &id,
                A2UI_ACTIVITY,
                surface_ops(&surface, submitted_components(), data),
                Some(true),
            ))
            .await?;
            let text = format!(
                "Booked: a **{}** for **{}** guest(s) from **{}**, {breakfast}, for **{}** ({}). The form now shows the confirmation.",
                room_label(b.room), b.guests, plain(&b.date, 10), plain(&b.name, MAX_NAME), plain(&b.email, MAX_EMAIL)
            );
            stream_text(ctx, &text).await?;
        }
        Err((problems, mut data)) => {
            let status = format!("Please check: {}.", problems.join("; "));
            data = json!({"booking": data, "status": status});
            ctx.emit(snapshot(
                &id,
                A2UI_ACTIVITY,
                surface_ops(&surface, form_components(), data),
                Some(true),
            ))
            .await?;
            let list: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
            let text = format!(
                "I could not take that booking; the form is back with what was valid kept:\n\n{}",
                list.join("\n")
            );
            stream_text(ctx, &text).await?;
        }
    }
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests;
