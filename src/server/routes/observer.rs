//! Seed 004 ("Super-Goose"): the `/api/ag-ui/*` surface. One observer stream of every run
//! (`GET /api/ag-ui/stream`), the current thread's state, messages and activities, and the
//! control endpoints a UI built on that stream needs: send a message (starts a run in the
//! background), answer a waiting tool call, abort runs.
//!
//! The observer stream is fed by the runs' hub, a bounded broadcast channel that runs never
//! wait for. An observer that falls more than the hub's capacity behind gets a comment saying
//! how many events it missed, then snapshots that bring it back in line, then live events again:
//! it never slows a run and never loses events silently.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;

use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::protocol::sse;
use crate::protocol::types::{Message, PROTOCOL_VERSION};
use crate::server::accounts::User;
use crate::server::clock::now_ms;
use crate::server::error::ApiError;
use crate::server::runs::Observed;
use crate::server::state::AppState;

use super::agents::parse_run_input;
use super::body::{content_length, read_json};

/// How many already-waiting events go into one write of the observer stream.
const BATCH: usize = 64;
/// The initial capacity of one write of the observer stream.
const OUT_CAPACITY: usize = 4096;

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
            (rx, Some(backlog)) => (rx, Start::Replay(backlog)),
            (rx, None) => (rx, Start::Resync),
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

/// One observer: its hub subscription and what it has delivered so far.
struct Observer<S> {
    rx: broadcast::Receiver<Arc<Observed>>,
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
    /// Events numbered up to this are already reflected in a resync snapshot.
    skip_upto: u64,
    /// Runs whose `RUN_STARTED` this observer delivered and whose terminal event it has not:
    /// run id → thread id.
    open_runs: HashMap<String, String>,
    connected: bool,
    /// Only this user's runs are delivered (None: every run).
    owner: Option<User>,
}

/// The observer stream's body over a hub subscription. `snapshot(thread)` must return the
/// sequence number of the last event sent to the hub and the conversations (of that thread, or
/// of all threads) reflecting exactly the events up to it ([`Runs::observer_snapshot`]).
///
/// On `Lagged(n)` it writes `: resync after <n> missed events`, then per thread (the filtered
/// one, or every thread): `RUN_STARTED` if a run is in progress whose start the observer has not
/// seen, `MESSAGES_SNAPSHOT` (every message, activities included), `STATE_SNAPSHOT`, and the
/// terminal event of a run it saw start whose end fell in the gap. These carry `id: <S>` (the
/// sequence number the snapshot reflects) and `metadata: {"threadId", "resync": true}`. Live
/// events numbered up to S are then skipped (the snapshot has them), so nothing is applied
/// twice. Dropping the stream (client gone) drops the subscription; no task is left behind.
///
/// [`Runs::observer_snapshot`]: crate::server::runs::Runs::observer_snapshot
pub fn observer_stream<S>(
    rx: broadcast::Receiver<Arc<Observed>>,
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>) + Send + 'static,
{
    observer_stream_from(rx, thread, keep_alive, snapshot, Start::Live, None)
}

/// How an observer stream begins.
pub enum Start {
    /// With the next live event.
    Live,
    /// With these events (those after the client's `Last-Event-ID`), then the live ones.
    Replay(Vec<Arc<Observed>>),
    /// With a resync (snapshots): the client's `Last-Event-ID` is older than what is held.
    Resync,
}

/// [`observer_stream`] for a client resuming with `Last-Event-ID` ([`Start`]), showing only
/// `owner`'s runs (`snapshot` must then show only theirs too).
pub fn observer_stream_from<S>(
    rx: broadcast::Receiver<Arc<Observed>>,
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
    start: Start,
    owner: Option<User>,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>) + Send + 'static,
{
    let observer = Observer {
        rx,
        thread,
        keep_alive,
        snapshot,
        skip_upto: 0,
        open_runs: HashMap::new(),
        connected: false,
        owner,
    };
    let mut start = Some(start);
    futures::stream::unfold(observer, move |mut o| {
        let start = start.take();
        async move {
            if !o.connected {
                o.connected = true;
                let mut out = sse::encode_comment("connected");
                match start {
                    Some(Start::Replay(backlog)) => {
                        for ev in &backlog {
                            o.deliver(ev, &mut out);
                        }
                        // Live events already in the backlog are not sent twice.
                        if let Some(last) = backlog.last() {
                            o.skip_upto = o.skip_upto.max(last.seq);
                        }
                    }
                    Some(Start::Resync) => o.resync(0, &mut out),
                    _ => {}
                }
                return Some((Ok(Bytes::from(out)), o));
            }
            let deadline = Instant::now() + o.keep_alive;
            loop {
                // Checked first too: a filtered observer may see a flood of other threads' events
                // and still owes its client a keep-alive.
                if Instant::now() >= deadline {
                    return Some((Ok(Bytes::from_static(sse::KEEP_ALIVE.as_bytes())), o));
                }
                let mut out = String::new();
                match tokio::time::timeout_at(deadline, o.rx.recv()).await {
                    Err(_) => {
                        return Some((Ok(Bytes::from_static(sse::KEEP_ALIVE.as_bytes())), o));
                    }
                    Ok(Err(RecvError::Closed)) => return None,
                    Ok(Err(RecvError::Lagged(n))) => o.resync(n, &mut out),
                    Ok(Ok(ev)) => o.deliver(&ev, &mut out),
                }
                for _ in 1..BATCH {
                    match o.rx.try_recv() {
                        Ok(ev) => o.deliver(&ev, &mut out),
                        Err(TryRecvError::Lagged(n)) => o.resync(n, &mut out),
                        Err(_) => break,
                    }
                }
                if !out.is_empty() {
                    return Some((Ok(Bytes::from(out)), o));
                }
            }
        }
    })
}

impl<S> Observer<S>
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>),
{
    fn deliver(&mut self, ev: &Observed, out: &mut String) {
        if ev.seq <= self.skip_upto {
            return;
        }
        if self.thread.as_deref().is_some_and(|t| t != ev.thread_id) {
            return;
        }
        if self.owner.as_ref().is_some_and(|o| *o != ev.owner) {
            return;
        }
        // Event JSON always starts with its type (`preserve_order`).
        if ev.json.starts_with(r#"{"type":"RUN_STARTED""#) {
            let known = self
                .open_runs
                .insert(ev.run_id.clone(), ev.thread_id.clone());
            if known.is_some() {
                // Already announced by a resync.
                return;
            }
        } else if ev.json.starts_with(r#"{"type":"RUN_FINISHED""#)
            || ev.json.starts_with(r#"{"type":"RUN_ERROR""#)
        {
            self.open_runs.remove(&ev.run_id);
        }
        let frame = ev.frame();
        if out.capacity() == 0 {
            // Room for a few dozen frames at once: a batch rarely grows it.
            out.reserve(OUT_CAPACITY.max(frame.len()));
        }
        out.push_str(frame);
    }

    fn resync(&mut self, missed: u64, out: &mut String) {
        out.push_str(&sse::encode_comment(&format!(
            "resync after {missed} missed events"
        )));
        let (seq, threads) = (self.snapshot)(self.thread.as_deref());
        self.skip_upto = self.skip_upto.max(seq);
        let id = seq.to_string();
        let now = now_ms();
        for (thread_id, conv) in &threads {
            let mut events = Vec::new();
            if let RunStatus::Running { run_id } = &conv.run {
                if !self.open_runs.contains_key(run_id) {
                    self.open_runs.insert(run_id.clone(), thread_id.clone());
                    events.push(EventKind::RunStarted {
                        thread_id: thread_id.clone(),
                        run_id: run_id.clone(),
                        parent_run_id: None,
                        input: None,
                        protocol_version: Some(PROTOCOL_VERSION.into()),
                    });
                }
            }
            events.push(EventKind::MessagesSnapshot {
                messages: conv.messages.clone(),
            });
            events.push(EventKind::StateSnapshot {
                snapshot: conv.state.clone(),
            });
            let open_here: Vec<String> = self
                .open_runs
                .iter()
                .filter(|(_, t)| *t == thread_id)
                .map(|(r, _)| r.clone())
                .collect();
            for run_id in &open_here {
                let terminal = match &conv.run {
                    RunStatus::Finished { run_id: r, outcome } if r == run_id => {
                        EventKind::RunFinished {
                            thread_id: thread_id.clone(),
                            run_id: run_id.clone(),
                            result: conv.result.clone(),
                            outcome: outcome.clone(),
                            usage: None,
                        }
                    }
                    // RUN_ERROR names no run: only attributable when one run was open here.
                    RunStatus::Error { message, code } if open_here.len() == 1 => {
                        EventKind::RunError {
                            message: message.clone(),
                            code: code.clone(),
                            usage: None,
                        }
                    }
                    // Still running, or several concurrent runs on one thread: the live
                    // terminal event (numbered after the snapshot) will come.
                    _ => continue,
                };
                self.open_runs.remove(run_id);
                events.push(terminal);
            }
            let mut meta = Map::new();
            meta.insert("threadId".into(), Value::String(thread_id.clone()));
            meta.insert("resync".into(), Value::Bool(true));
            for kind in events {
                let event = Event::from(kind)
                    .with_timestamp(now)
                    .with_metadata(meta.clone());
                out.push_str(&sse::encode_event(&event.to_json(), Some(&id), None));
            }
        }
    }
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
