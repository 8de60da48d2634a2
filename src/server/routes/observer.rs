//! Seed 004 ("Super-Goose"): the `/api/ag-ui/*` surface. One observer stream of every run
//! (`GET /api/ag-ui/stream`), the current thread's state, messages and activities, and the
//! control endpoints a UI built on that stream needs: send a message (starts a run in the
//! background), answer a waiting tool call, abort runs.
//!
//! The observer stream is fed by the runs' hub, a bounded window of the newest events that
//! runs never wait for and every observer reads from where it left off. An observer that falls
//! more than the hub's capacity behind gets a comment saying how many events it missed, then
//! snapshots that bring it back in line, then live events again: it never slows a run and
//! never loses events silently.

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::protocol::reduce::Conversation;
use crate::protocol::types::Message;
use crate::server::accounts::User;
use crate::server::error::ApiError;
use crate::server::state::AppState;

mod feed;
pub use feed::{observer_stream, observer_stream_from, Start};

use super::agents::parse_run_input;
use super::body::{content_length, read_json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/ag-ui/stream", get(stream))
        .route("/api/ag-ui/state", get(thread_state))
        .route("/api/ag-ui/messages", get(thread_messages))
        .route("/api/ag-ui/activities", get(thread_activities))
        .route("/api/ag-ui/message", post(message))
        .route("/api/ag-ui/tool-result", post(tool_result))
        .route("/api/ag-ui/abort", post(abort))
}

/// `?threadId=T`; an empty value counts as absent.
#[derive(Debug, Default, Deserialize)]
struct ThreadQuery {
    #[serde(rename = "threadId")]
    thread_id: Option<String>,
}

impl ThreadQuery {
    fn from(q: Result<Query<ThreadQuery>, QueryRejection>) -> Result<Option<String>, ApiError> {
        let Query(q) = q.map_err(|e| ApiError::BadRequest(format!("bad query string: {e}")))?;
        Ok(q.thread_id.filter(|t| !t.is_empty()))
    }
}

// ---- the observer stream ----

/// `GET /api/ag-ui/stream[?threadId=T]`: every event of every run (or of thread T) as
/// `id: <seq>` + `data: <event JSON>`, a `: connected` comment first, `: keep-alive` while idle.
async fn stream(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    headers: HeaderMap,
    query: Result<Query<ThreadQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let thread = ThreadQuery::from(query)?;
    // Held by the body: the slot is released when the client goes.
    let slot = state.runs.observer_slot(user.name())?;
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let (rx, start) = match last {
        None => (state.runs.subscribe(), Start::Live),
        Some(last) => match state.runs.subscribe_after(last) {
            (rx, true) => (rx, Start::Live),
            (rx, false) => (rx, Start::Resync),
        },
    };
    let runs = state.runs.clone();
    let owner = user.clone();
    let body = observer_stream_from(
        rx,
        thread,
        state.config.keep_alive,
        move |t| runs.observer_snapshot(t, Some(&owner)),
        start,
        Some(user),
    );
    let body = body.map(move |chunk| {
        let _held = &slot;
        chunk
    });
    Ok(crate::server::stream::event_stream(Body::from_stream(body)))
}

// ---- thread views ----

/// The thread a view asks for: `Ok(None)` when no thread was named and none exists yet; 404
/// for a named thread this server has not seen.
async fn view_thread(
    state: &AppState,
    user: &User,
    query: Result<Query<ThreadQuery>, QueryRejection>,
) -> Result<Option<(String, Conversation)>, ApiError> {
    match ThreadQuery::from(query)? {
        Some(t) if state.runs.owns_thread(user, &t).await => state
            .runs
            .load_thread(&t)
            .await
            .map(|c| Some((t.clone(), c)))
            .ok_or_else(|| ApiError::NotFound(format!("no thread '{t}' is known here"))),
        Some(t) => Err(ApiError::NotFound(format!("no thread '{t}' is known here"))),
        None => match state.runs.latest_thread_of(user) {
            Some(t) => Ok(state.runs.load_thread(&t).await.map(|c| (t, c))),
            None => Ok(None),
        },
    }
}

fn messages_where(conv: &Conversation, activity: bool) -> Vec<Value> {
    conv.messages
        .iter()
        .filter(|m| matches!(m, Message::Activity(_)) == activity)
        .filter_map(|m| serde_json::to_value(m).ok())
        .collect()
}

/// `GET /api/ag-ui/state`: `{"threadId", "state"}`.
async fn thread_state(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    query: Result<Query<ThreadQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(match view_thread(&state, &user, query).await? {
        Some((id, conv)) => json!({ "threadId": id, "state": conv.state }),
        None => json!({ "threadId": null, "state": {} }),
    }))
}

/// `GET /api/ag-ui/messages`: `{"threadId", "messages"}` (every message but activities).
async fn thread_messages(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    query: Result<Query<ThreadQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(match view_thread(&state, &user, query).await? {
        Some((id, conv)) => json!({ "threadId": id, "messages": messages_where(&conv, false) }),
        None => json!({ "threadId": null, "messages": [] }),
    }))
}

/// `GET /api/ag-ui/activities`: `{"threadId", "activities"}` (the activity messages).
async fn thread_activities(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    query: Result<Query<ThreadQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(match view_thread(&state, &user, query).await? {
        Some((id, conv)) => json!({ "threadId": id, "activities": messages_where(&conv, true) }),
        None => json!({ "threadId": null, "activities": [] }),
    }))
}

// ---- control ----

/// The body as a JSON object (422 otherwise).
async fn object_body(state: &AppState, req: Request) -> Result<Map<String, Value>, ApiError> {
    let declared = content_length(&req);
    match read_json(state, req.into_body(), declared).await? {
        Value::Object(m) => Ok(m),
        _ => Err(ApiError::Unprocessable(
            "the body must be a JSON object".into(),
        )),
    }
}

/// An optional non-empty string member (`null` counts as absent).
fn opt_string(body: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::Unprocessable(format!(
            "'{key}' must be a non-empty string"
        ))),
    }
}

/// `POST /api/ag-ui/message`: start a run on the thread with the user's message; its events
/// reach observers through the hub. `202 {"threadId", "runId"}`.
async fn message(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    req: Request,
) -> Result<Response, ApiError> {
    let body = object_body(&state, req).await?;
    let content = match body.get("content") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => {
            return Err(ApiError::Unprocessable(
                "'content' must be a non-empty string".into(),
            ))
        }
    };
    let thread_id = opt_string(&body, "threadId")?
        .unwrap_or_else(|| format!("thread-{}", uuid::Uuid::new_v4()));
    let agent_id = opt_string(&body, "agentId")?.unwrap_or_else(|| "demo".into());
    let agent = state
        .agents
        .get(&agent_id)
        .ok_or_else(|| ApiError::NotFound(format!("no agent '{agent_id}' is served here")))?;
    // Another user's thread is not read (and the run below would be refused).
    if state
        .runs
        .thread_owner(&thread_id)
        .await
        .is_some_and(|o| !user.is(&o))
    {
        return Err(ApiError::NotFound(format!("no thread '{thread_id}'")));
    }
    let existing = state.runs.thread(Some(&thread_id)).map(|(_, c)| c);
    let mut messages = existing
        .as_ref()
        .map(|c| messages_where(c, false))
        .unwrap_or_default();
    messages.push(json!({
        "id": format!("msg-{}", uuid::Uuid::new_v4()),
        "role": "user",
        "content": content,
    }));
    let run_state = match body.get("state") {
        Some(v) if !v.is_null() => v.clone(),
        _ => existing.map(|c| c.state).unwrap_or_else(|| json!({})),
    };
    let forwarded_props = match body.get("forwardedProps") {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(ApiError::Unprocessable(
                "'forwardedProps' must be an object".into(),
            ))
        }
    };
    let run_id = format!("run-{}", uuid::Uuid::new_v4());
    let input = parse_run_input(json!({
        "threadId": thread_id,
        "runId": run_id,
        "messages": messages,
        "state": run_state,
        "tools": [],
        "context": [],
        "forwardedProps": forwarded_props,
    }))?;
    // Nobody reads this run's own stream; its events reach observers through the hub. The
    // cancel handle is dropped without cancelling: the run ends on its own or through
    // `POST /api/ag-ui/abort`.
    state
        .runs
        .start_for(agent, input, state.config.run_settings(), user)
        .await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({ "threadId": thread_id, "runId": run_id })),
    )
        .into_response())
}

/// `POST /api/ag-ui/tool-result`: answer a tool call a run waits on with the whole body.
async fn tool_result(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let body = object_body(&state, req).await?;
    let id = opt_string(&body, "toolCallId")?
        .ok_or_else(|| ApiError::Unprocessable("'toolCallId' is required".into()))?;
    let (thread_id, run_id) = state
        .runs
        .resolve_wait_for(&user, &id, Value::Object(body))
        .ok_or_else(|| ApiError::NotFound(format!("no run is waiting for tool call '{id}'")))?;
    Ok(Json(
        json!({ "ok": true, "threadId": thread_id, "runId": run_id }),
    ))
}

/// `POST /api/ag-ui/abort`: cancel a run, a thread's runs, or (empty body / `{}`) every run.
/// Only the caller's runs: "every run" is every run of theirs.
async fn abort(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let declared = content_length(&req);
    let limit = state.config.body_limit;
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::PayloadTooLarge(limit));
    }
    let bytes = axum::body::to_bytes(req.into_body(), limit)
        .await
        .map_err(|_| ApiError::PayloadTooLarge(limit))?;
    let body = if bytes.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        match read_json(&state, Body::from(bytes), None).await? {
            Value::Object(m) => m,
            _ => {
                return Err(ApiError::Unprocessable(
                    "the body must be a JSON object".into(),
                ))
            }
        }
    };
    let run_id = opt_string(&body, "runId")?;
    let thread_id = opt_string(&body, "threadId")?;
    let n = state
        .runs
        .abort_for(&user, run_id.as_deref(), thread_id.as_deref());
    if n == 0 {
        if let Some(r) = &run_id {
            return Err(ApiError::NotFound(format!("no run '{r}' is in progress")));
        }
        if let Some(t) = &thread_id {
            return Err(ApiError::NotFound(format!(
                "no run is in progress on thread '{t}'"
            )));
        }
    }
    Ok(Json(json!({ "aborted": n })))
}

#[cfg(test)]
mod tests;
