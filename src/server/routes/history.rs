//! Threads and runs beyond AG-UI: `GET /api/threads`, `GET /api/threads/{id}`,
//! `GET /api/runs/{run_id}` (the run and its input), `GET /api/runs/{run_id}/events` (replay and
//! resume with `Last-Event-ID`) and `POST /api/runs/{run_id}/cancel`.

use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::protocol::compat::parse_version;
use crate::server::accounts::User;
use crate::server::error::ApiError;
use crate::server::state::AppState;
use crate::server::stream::{agui_frame, sse_response};
use crate::server::thread_views::{thread_list, thread_view};
use crate::wire::{RunDetail, ThreadList, ThreadView};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/threads", get(list))
        .route("/api/threads/{thread_id}", get(one))
        .route("/api/runs/{run_id}", get(run))
        .route("/api/runs/{run_id}/events", get(events))
        .route("/api/runs/{run_id}/cancel", post(cancel))
}

async fn list(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
) -> Result<Json<ThreadList>, ApiError> {
    Ok(Json(thread_list(&state, &user).await?))
}

async fn one(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(thread_id): Path<String>,
) -> Result<Json<ThreadView>, ApiError> {
    thread_view(&state, &thread_id, &user)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no thread '{thread_id}'")))
}

async fn run(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(run_id): Path<String>,
) -> Result<Json<RunDetail>, ApiError> {
    let missing = || ApiError::NotFound(format!("no run '{run_id}'"));
    if !state.runs.owns_run(&user, &run_id).await {
        return Err(missing());
    }
    let store = state.runs.store().ok_or_else(missing)?;
    store.flush().await;
    let run = store.run(&run_id).await?.ok_or_else(missing)?;
    let input = store.run_input(&run_id).await?.ok_or_else(missing)?;
    Ok(Json(RunDetail { run, input }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventsQuery {
    /// Same as `Last-Event-ID` (for clients that cannot set headers); the header wins.
    after: Option<u64>,
    /// Downgrade events for a client speaking an older protocol version.
    protocol_version: Option<String>,
}

/// The run's events after `Last-Event-ID` (all of them without it), then the live tail until
/// the run's terminal event. Reading does not own the run: disconnecting cancels nothing.
async fn events(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(run_id): Path<String>,
    headers: HeaderMap,
    Query(q): Query<EventsQuery>,
) -> Result<Response, ApiError> {
    let bad = |m: String| ApiError::InvalidLastEventId(m);
    let after = match headers.get("last-event-id") {
        Some(v) => v
            .to_str()
            .ok()
            .map(str::trim)
            .and_then(|s| {
                if s.is_empty() {
                    Some(0)
                } else {
                    s.parse().ok()
                }
            })
            .ok_or_else(
                || bad("Last-Event-ID must be the number of an event of this run".into()),
            )?,
        None => q.after.unwrap_or(0),
    };
    if !state.runs.owns_run(&user, &run_id).await {
        return Err(ApiError::NotFound(format!("no run '{run_id}'")));
    }
    let peer = q.protocol_version.as_deref().and_then(parse_version);
    let reader = state
        .runs
        .reader(&run_id, after, peer)
        .await
        .ok_or_else(|| ApiError::NotFound(format!("no run '{run_id}'")))?;
    // A position past the run's last event would otherwise wait for events that never come
    // (or, wrapped, replay from the start).
    let last = match state.runs.live_position(&run_id) {
        Some(n) => Some(n),
        None => match state.runs.store() {
            Some(store) => {
                store.flush().await;
                store
                    .run(&run_id)
                    .await
                    .ok()
                    .flatten()
                    .map(|r| r.event_count)
            }
            None => None,
        },
    };
    if let Some(last) = last {
        if after > last {
            return Err(bad(format!(
                "Last-Event-ID {after} is past the last event of run '{run_id}' ({last})"
            )));
        }
    }
    Ok(sse_response(
        reader,
        None,
        state.config.keep_alive,
        agui_frame,
    ))
}

async fn cancel(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(run_id): Path<String>,
) -> Response {
    if state.runs.abort_for(&user, Some(&run_id), None) > 0 {
        (StatusCode::ACCEPTED, Json(json!({ "cancelled": true }))).into_response()
    } else {
        ApiError::NotFound(format!("no run '{run_id}' is in progress")).into_response()
    }
}
