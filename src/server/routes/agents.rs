//! The canonical AG-UI endpoints: `POST /api/agents/{agent_id}` runs an agent and streams its
//! events (SSE, or protobuf frames when `Accept` prefers `application/vnd.ag-ui.event+proto`);
//! `GET /api/agents` lists the agents with their capabilities.

use axum::extract::{Extension, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use std::sync::Arc;

use crate::protocol::compat::{parse_version, prepare_request, Version, V1_0};
use crate::protocol::enforce::strip_unknown_parts_in_messages;
use crate::protocol::types::RunAgentInput;
use crate::server::accounts::User;
use crate::server::agents::Agent;
use crate::server::error::ApiError;
use crate::server::state::AppState;
use crate::server::stream::{event_response, negotiate, Transport};
use crate::wire::{run_events_url, DETACH_HEADER, RUN_EVENTS_HEADER};

use super::body::{content_length, parse_body, read_json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/agents", get(list))
        .route("/api/agents/{agent_id}", post(run))
}

async fn list(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "agents": state.agents.summaries() }))
}

/// Parse a run request: legacy content shapes upgraded, unknown content parts dropped, then the
/// typed `RunAgentInput` (absent `tools`, `context`, `state`, `forwardedProps` are empty).
pub fn parse_run_input(value: Value) -> Result<RunAgentInput, ApiError> {
    if !value.is_object() {
        return Err(ApiError::Unprocessable(
            "a RunAgentInput must be a JSON object".into(),
        ));
    }
    // The declared version is the peer's: keep it as sent (prepare_request would set ours).
    let declared = value.get("protocolVersion").cloned();
    let (mut value, _) = prepare_request(value, None);
    match declared {
        Some(v) => value["protocolVersion"] = v,
        None => {
            value.as_object_mut().map(|o| o.remove("protocolVersion"));
        }
    }
    if let Some(Value::Array(msgs)) = value.get_mut("messages") {
        strip_unknown_parts_in_messages(msgs, "/messages", &mut Vec::new());
    }
    parse_body(value, "RunAgentInput")
}

async fn run(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    Path(agent_id): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let agent = state
        .agents
        .get(&agent_id)
        .ok_or_else(|| ApiError::NotFound(format!("no agent '{agent_id}' is served here")))?;
    let declared = content_length(&req);
    let detach = wants_detach(req.headers());
    let transport = negotiate(req.headers());
    let value = read_json(&state, req.into_body(), declared).await?;
    let input = parse_run_input(value)?;
    // A 0.x client gets its events downgraded, and the downgrade leaves some out; over
    // protobuf the resume position counts frames, so such a stream could not be resumed.
    let pre_1_0 = input
        .protocol_version
        .as_deref()
        .and_then(parse_version)
        .is_some_and(|v| v < V1_0);
    if transport == Transport::Proto && pre_1_0 {
        return Err(ApiError::InvalidRequest(
            "the protobuf binding carries AG-UI 1.x events; a client declaring a 0.x \
             protocolVersion reads the run over SSE (Accept: text/event-stream)"
                .into(),
        ));
    }
    stream_run(&state, user, agent, input, detach, None, transport).await
}

/// Start `agent` on `input` for `user` and answer with the run's events, naming its event
/// stream in `X-AGUI-Run-Events`. Unless `detach`, the client going away cancels the run.
/// Events are downgraded for `peer` when given, else for the version the input declares.
pub async fn stream_run(
    state: &AppState,
    user: User,
    agent: Arc<dyn Agent>,
    input: RunAgentInput,
    detach: bool,
    peer: Option<Version>,
    transport: Transport,
) -> Result<Response, ApiError> {
    let events_url = run_events_url(&input.run_id);
    let run = state
        .runs
        .start_for(agent, input, state.config.run_settings(), user)
        .await?;
    let cancel = (!detach).then_some(run.cancel);
    let events = match peer {
        Some(p) => run.events.for_peer(Some(p)),
        None => run.events,
    };
    let mut resp = event_response(events, cancel, state.config.keep_alive, transport);
    if let Ok(v) = HeaderValue::from_str(&events_url) {
        resp.headers_mut().insert(RUN_EVENTS_HEADER, v);
    }
    Ok(resp)
}

/// Whether the request asks for the run to outlive its client (`X-AGUI-Detach`, any value but
/// `0`/`false`).
fn wants_detach(headers: &HeaderMap) -> bool {
    headers
        .get(DETACH_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | ""
            )
        })
}
