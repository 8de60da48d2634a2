//! This server as a CopilotKit runtime (CopilotKit v2, `@copilotkitnext/*` 1.5x), backed by our
//! agents, threads and runs, under [`COPILOTKIT_BASE`]:
//! - `GET {base}/info`: the agents, as `{version, agents: {id: {name, description, className}},
//!   mode: "sse", …}`;
//! - `POST {base}/agent/{id}/run` with a `RunAgentInput`: the run's events (SSE). As in the
//!   runtime, the run outlives its client (a reload reconnects with `connect`; `stop` ends it);
//! - `POST {base}/agent/{id}/connect` with a `RunAgentInput` (its `threadId` counts): the thread
//!   restated as snapshots, then the live run if one is going ([`replay`]); an empty stream for a
//!   thread there is none of (what the runtime answers). `lastSeenEventId` is accepted and not
//!   used (the runtime's SSE mode does not use it either);
//! - `POST {base}/agent/{id}/stop/{threadId}`: cancels the thread's run, whose stream then ends
//!   with `RUN_FINISHED` (our cancelled outcome); `{stopped: true}`, or `{stopped: false,
//!   message}` when nothing runs there;
//! - single-route mode, `POST {base}` with `{method: "info" | "agent/run" | "agent/connect" |
//!   "agent/stop", params: {agentId, threadId}, body}`.
//!
//! The runtime's thread routes (`/threads…`) exist only in its Intelligence mode (hosted); in
//! the SSE mode we announce they answer 422, so they are not served here.
//!
//! CopilotKit's client is built on `@ag-ui/client` 0.0.48: events go to it downgraded to that
//! version (no subagent events, no 1.x-only fields) unless the request declares a newer
//! `protocolVersion`.

pub mod replay;

use axum::extract::{Extension, Path, Request, State};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::protocol::compat::{parse_version, Version};
use crate::server::accounts::User;
use crate::server::agents::Agent;
use crate::server::error::ApiError;
use crate::server::state::AppState;
use crate::server::stream::Transport;
use crate::wire::COPILOTKIT_BASE;

use super::agents::{parse_run_input, stream_run};
use super::body::{content_length, read_json};

/// The AG-UI version CopilotKit's client speaks (`@ag-ui/client` 0.0.48).
pub const COPILOTKIT_PEER: Version = (0, 0, 48);

/// The runtime version `info` reports: the CopilotKit runtime whose routes and payloads these
/// are.
pub const RUNTIME_VERSION: &str = "1.54.1";

pub fn router() -> Router<AppState> {
    let at = |p: &str| format!("{COPILOTKIT_BASE}{p}");
    Router::new()
        .route(COPILOTKIT_BASE, post(single))
        .route(&at("/info"), get(info))
        .route(&at("/agent/{agent_id}/run"), post(run))
        .route(&at("/agent/{agent_id}/connect"), post(connect))
        .route(&at("/agent/{agent_id}/stop/{thread_id}"), post(stop))
}

async fn info(State(state): State<AppState>) -> Json<Value> {
    Json(info_body(&state))
}

fn info_body(state: &AppState) -> Value {
    let agents: Map<String, Value> = state
        .agents
        .all()
        .map(|a| {
            let info = a.info();
            let entry = json!({
                "name": info.id,
                "description": info.description,
                "className": "AguiStudioAgent",
            });
            (info.id, entry)
        })
        .collect();
    json!({
        "version": RUNTIME_VERSION,
        "agents": agents,
        "audioFileTranscriptionEnabled": false,
        "mode": "sse",
        "a2uiEnabled": false,
    })
}

async fn run(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(agent_id): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let agent = agent(&state, &agent_id)?;
    let value = read_body(&state, req).await?;
    start_run(&state, user, agent, value).await
}

async fn connect(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(agent_id): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    agent(&state, &agent_id)?;
    let value = read_body(&state, req).await?;
    join(&state, &user, value).await
}

async fn stop(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path((agent_id, thread_id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    agent(&state, &agent_id)?;
    Ok(Json(stop_thread(&state, &user, &thread_id)?))
}

/// `POST {base}`: one route for every method, the method and its parameters in the body.
async fn single(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    req: Request,
) -> Result<Response, ApiError> {
    use axum::response::IntoResponse;
    let value = read_body(&state, req).await?;
    let Value::Object(mut envelope) = value else {
        return Err(ApiError::InvalidRequest(
            "the body must be an object {method, params, body}".into(),
        ));
    };
    let method = match envelope.get("method") {
        Some(Value::String(m)) => m.clone(),
        None | Some(Value::Null) => {
            return Err(ApiError::InvalidRequest("missing method field".into()))
        }
        Some(_) => return Err(ApiError::InvalidRequest("method must be a string".into())),
    };
    let params = envelope.remove("params").unwrap_or(Value::Null);
    let body = envelope.remove("body").filter(|b| !b.is_null());
    let body = move || {
        body.ok_or_else(|| ApiError::InvalidRequest("missing request body for this method".into()))
    };
    match method.as_str() {
        "info" => Ok(Json(info_body(&state)).into_response()),
        "agent/run" => {
            let agent = agent(&state, param(&params, "agentId")?)?;
            start_run(&state, user, agent, body()?).await
        }
        "agent/connect" => {
            agent(&state, param(&params, "agentId")?)?;
            join(&state, &user, body()?).await
        }
        "agent/stop" => {
            agent(&state, param(&params, "agentId")?)?;
            let thread_id = param(&params, "threadId")?;
            Ok(Json(stop_thread(&state, &user, thread_id)?).into_response())
        }
        "transcribe" => Err(ApiError::InvalidRequest(
            "audio transcription is not offered here".into(),
        )),
        other => Err(ApiError::InvalidRequest(format!(
            "unsupported method '{}'",
            other.chars().take(64).collect::<String>()
        ))),
    }
}

/// A non-empty string parameter of the single route.
fn param<'a>(params: &'a Value, key: &str) -> Result<&'a str, ApiError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ApiError::InvalidRequest(format!("missing or invalid parameter '{key}'")))
}

fn agent(state: &AppState, agent_id: &str) -> Result<std::sync::Arc<dyn Agent>, ApiError> {
    state.agents.get(agent_id).ok_or_else(|| {
        let shown: String = agent_id.chars().take(64).collect();
        ApiError::NotFound(format!("no agent '{shown}' is served here"))
    })
}

async fn read_body(state: &AppState, req: Request) -> Result<Value, ApiError> {
    let declared = content_length(&req);
    read_json(state, req.into_body(), declared).await
}

/// The version to downgrade to: the one the request declares, else CopilotKit's.
fn peer_of(declared: Option<&str>) -> Version {
    declared.and_then(parse_version).unwrap_or(COPILOTKIT_PEER)
}

/// Start `agent` on the `RunAgentInput` in `value`; the run outlives the response (see the
/// module).
async fn start_run(
    state: &AppState,
    user: User,
    agent: std::sync::Arc<dyn Agent>,
    value: Value,
) -> Result<Response, ApiError> {
    let input = parse_run_input(value)?;
    let peer = peer_of(input.protocol_version.as_deref());
    stream_run(state, user, agent, input, true, Some(peer), Transport::Sse).await
}

/// `connect`: the thread named by the `RunAgentInput` in `value`, restated, then its live run.
async fn join(state: &AppState, user: &User, value: Value) -> Result<Response, ApiError> {
    let input = parse_run_input(value)?;
    let limits = state.runs.limits();
    limits.check_key("threadId", &input.thread_id)?;
    let peer = peer_of(input.protocol_version.as_deref());
    let joined = state
        .runs
        .join_thread(user, &input.thread_id, Some(peer))
        .await;
    let (prefix, live) = match joined {
        Some(joined) => {
            let replay_id = format!("replay-{}", uuid::Uuid::new_v4());
            replay::restate(&input.thread_id, joined, peer, replay_id)
        }
        None => (Vec::new(), None),
    };
    // A stream that follows a live run stays open as an observer's does, and counts as one
    // against the user's `--max-observers-per-user` (429 past it) while it lives.
    let live = match live {
        Some(reader) => Some((reader, state.runs.observer_slot(user.name())?)),
        None => None,
    };
    Ok(replay::connect_response(
        prefix,
        live,
        state.config.keep_alive,
    ))
}

/// `stop`: cancel `user`'s run on `thread_id`.
fn stop_thread(state: &AppState, user: &User, thread_id: &str) -> Result<Value, ApiError> {
    state.runs.limits().check_key("threadId", thread_id)?;
    let n = state.runs.abort_for(user, None, Some(thread_id));
    Ok(if n > 0 {
        json!({ "stopped": true, "runs": n })
    } else {
        json!({
            "stopped": false,
            "message": format!("No active run for thread '{thread_id}'."),
        })
    })
}
