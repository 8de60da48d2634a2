//! Threads and runs beyond AG-UI: `GET /api/threads` (`?q=` searches titles),
//! `GET|PATCH|DELETE /api/threads/{id}` (read, rename, delete), `PUT /api/threads/{id}/feedback`,
//! `POST /api/threads/{id}/truncate`, `GET /api/runs/{run_id}` (the run and its input),
//! `GET /api/runs/{run_id}/events` (replay and resume with `Last-Event-ID`) and
//! `POST /api/runs/{run_id}/cancel`.

use axum::extract::{Extension, Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::protocol::compat::parse_version;
use crate::server::accounts::User;
use crate::server::error::ApiError;
use crate::server::state::AppState;
use crate::server::stream::{event_response, negotiate, Transport};
use crate::server::thread_edits;
use crate::server::thread_views::{thread_list, thread_view};
use crate::wire::{RunDetail, ThreadList, ThreadView, MAX_QUERY_CHARS};

use super::body::{content_length, parse_body, read_json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/threads", get(list))
        .route(
            "/api/threads/{thread_id}",
            get(one).patch(rename).delete(delete),
        )
        .route("/api/threads/{thread_id}/feedback", put(feedback))
        .route("/api/threads/{thread_id}/truncate", post(truncate))
        .route("/api/runs/{run_id}", get(run))
        .route("/api/runs/{run_id}/events", get(events))
        .route("/api/runs/{run_id}/cancel", post(cancel))
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    /// Only threads whose title contains this (at most [`MAX_QUERY_CHARS`] characters).
    q: Option<String>,
}

async fn list(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Query(query): Query<ListQuery>,
) -> Result<Json<ThreadList>, ApiError> {
    let q = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if q.is_some_and(|q| q.chars().count() > MAX_QUERY_CHARS) {
        return Err(ApiError::TooLarge(format!(
            "a search has at most {MAX_QUERY_CHARS} characters"
        )));
    }
    Ok(Json(thread_list(&state, &user, q).await?))
}

/// The request's body as `T` (400 not JSON, 413 too long, 422 not a `what`).
async fn body<T: serde::de::DeserializeOwned>(
    state: &AppState,
    req: Request,
    what: &str,
) -> Result<T, ApiError> {
    let declared = content_length(&req);
    parse_body(read_json(state, req.into_body(), declared).await?, what)
}

async fn rename(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(thread_id): Path<String>,
    req: Request,
) -> Result<Json<serde_json::Value>, ApiError> {
    let req = body(&state, req, "rename (`{\"title\": \"…\"}`)").await?;
    let title = thread_edits::rename(&state, &thread_id, &user, req).await?;
    Ok(Json(json!({ "id": thread_id, "title": title })))
}

async fn delete(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(thread_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    thread_edits::delete(&state, &thread_id, &user).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn feedback(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(thread_id): Path<String>,
    req: Request,
) -> Result<Json<serde_json::Value>, ApiError> {
    let what = "feedback (`{\"messageId\": \"…\", \"rating\": \"up\"|\"down\"|null}`)";
    let req = body(&state, req, what).await?;
    let feedback = thread_edits::set_feedback(&state, &thread_id, &user, req).await?;
    Ok(Json(json!({ "feedback": feedback })))
}

async fn truncate(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(thread_id): Path<String>,
    req: Request,
) -> Result<Json<ThreadView>, ApiError> {
    let req = body(&state, req, "truncation (`{\"fromMessageId\": \"…\"}`)").await?;
    Ok(Json(
        thread_edits::truncate(&state, &thread_id, &user, req).await?,
    ))
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
    let transport = negotiate(&headers);
    // Protobuf carries 1.1 events only (and a downgrade may skip events, which would break
    // counting frames for the resume position): an older peer reads SSE.
    let peer = q
        .protocol_version
        .as_deref()
        .and_then(parse_version)
        .filter(|_| transport == Transport::Sse);
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
    Ok(event_response(
        reader,
        None,
        state.config.keep_alive,
        transport,
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
