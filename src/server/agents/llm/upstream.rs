//! The HTTP side of a model turn: POST the request, turn HTTP and transport failures into
//! stable `RUN_ERROR` codes with the server's own message, and read the streamed answer through
//! the project's SSE decoder, stopping at once when the run is cancelled.
//!
//! Redirects are not followed: the request carries the key and the conversation, and a model
//! server (or whoever answers for it) must not be able to send them to another host. Every
//! byte and chunk of the answer is counted against the run's upstream limits before it is
//! decoded.

use crate::wire::RunErrorCode;
use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::protocol::sse::Decoder;
use crate::server::agents::upstream::UpstreamMeter;
use crate::server::agents::{AgentError, RunContext};

use super::spec::LlmSpec;
use super::stream::{brief, error_message, ChunkError, Turn};

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the server may stay silent (a local server loading a model is slow to start).
pub const READ_TIMEOUT: Duration = Duration::from_secs(300);
/// The most of an error body or a non-streamed answer read into memory.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// The HTTP client every run of one agent shares (connection pool).
pub fn client() -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .user_agent(concat!("agui-studio/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// Run one model turn: send `body`, emit its events as they stream, return the turn (its
/// text, tool calls and usage). Everything the turn opened is closed, also when it fails.
pub async fn turn(
    ctx: &mut RunContext,
    cancel: &CancellationToken,
    http: &reqwest::Client,
    spec: &LlmSpec,
    body: &Value,
    taken: &mut HashSet<String>,
    meter: &mut UpstreamMeter,
) -> Result<Turn, AgentError> {
    let mut turn = Turn::new(ctx.new_id("msg"), ctx.new_id("llm"));
    let mut request = http
        .post(spec.endpoint())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(body.to_string());
    if let Some(key) = &spec.key {
        request = request.bearer_auth(key);
    }
    // Dropping the pending request (or, below, the body stream) closes the connection, which
    // is how a server learns to stop generating.
    let response = tokio::select! {
        _ = cancel.cancelled() => return Err(AgentError::Cancelled),
        r = request.send() => r.map_err(|e| send_error(&e, spec))?,
    };
    let status = response.status();
    if !status.is_success() {
        let body = tokio::select! {
            _ = cancel.cancelled() => return Err(AgentError::Cancelled),
            b = read_capped(response, MAX_BODY) => b.unwrap_or_default(),
        };
        return Err(status_error(status, &body, spec));
    }
    let json_answer = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    let read = if json_answer {
        read_whole(ctx, cancel, response, &mut turn, taken, meter).await
    } else {
        read_stream(ctx, cancel, response, &mut turn, taken, meter).await
    };
    for e in turn.close() {
        ctx.emit(e).await?;
    }
    read?;
    if !turn.is_complete() {
        return Err(AgentError::failed(
            RunErrorCode::LlmStreamTruncated,
            format!(
                "the model server's stream ended before the answer was complete (no finish_reason and no [DONE]) — {}",
                spec.host()
            ),
        ));
    }
    Ok(turn)
}

async fn read_stream(
    ctx: &mut RunContext,
    cancel: &CancellationToken,
    response: reqwest::Response,
    turn: &mut Turn,
    taken: &mut HashSet<String>,
    meter: &mut UpstreamMeter,
) -> Result<(), AgentError> {
    let mut body = response.bytes_stream();
    let mut decoder = Decoder::new();
    loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => return Err(AgentError::Cancelled),
            n = body.next() => n,
        };
        let (frames, ended) = match next {
            Some(Ok(bytes)) => {
                meter.bytes(bytes.len())?;
                (decoder.push(&bytes), false)
            }
            // Whatever came before a break is kept; a break after the answer is complete
            // (finish_reason seen, only the usage chunk or [DONE] lost) is not worth failing.
            Some(Err(_)) if turn.is_complete() => return Ok(()),
            Some(Err(e)) => return Err(body_error(&e)),
            None => (decoder.finish(), true),
        };
        // The decoder fails only on a line or frame past its size limit.
        let frames = frames.map_err(|e| meter.too_large(e))?;
        for frame in frames {
            if frame.data.trim().is_empty() {
                continue;
            }
            meter.events(1)?;
            let events = turn.data(&frame.data, taken).map_err(chunk_error)?;
            for e in events {
                ctx.emit(e).await?;
            }
            if turn.done {
                return Ok(());
            }
        }
        if ended {
            return Ok(());
        }
    }
}

/// A server that answered `stream: true` with one JSON completion (some proxies do).
async fn read_whole(
    ctx: &mut RunContext,
    cancel: &CancellationToken,
    response: reqwest::Response,
    turn: &mut Turn,
    taken: &mut HashSet<String>,
    meter: &mut UpstreamMeter,
) -> Result<(), AgentError> {
    // One byte more than the budget allows is enough to know it is past it.
    let cap = usize::try_from(meter.bytes_left().saturating_add(1)).unwrap_or(usize::MAX);
    let bytes = tokio::select! {
        _ = cancel.cancelled() => return Err(AgentError::Cancelled),
        b = read_capped(response, cap.min(MAX_BODY)) => b.map_err(|e| body_error(&e))?,
    };
    meter.bytes(bytes.len())?;
    meter.events(1)?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
        AgentError::failed(
            RunErrorCode::LlmBadResponse,
            format!(
                "the model server answered with invalid JSON ({e}): {}",
                brief(&String::from_utf8_lossy(&bytes))
            ),
        )
    })?;
    for e in turn.chunk(&v, taken).map_err(chunk_error)? {
        ctx.emit(e).await?;
    }
    turn.done = true;
    Ok(())
}

/// At most `cap` bytes of the body (what comes after is not read).
async fn read_capped(response: reqwest::Response, cap: usize) -> Result<Vec<u8>, reqwest::Error> {
    let mut body = response.bytes_stream();
    let mut out = Vec::new();
    while let Some(b) = body.next().await {
        let b = b?;
        out.extend_from_slice(&b[..b.len().min(cap - out.len())]);
        if out.len() >= cap {
            break;
        }
    }
    Ok(out)
}

fn chunk_error(e: ChunkError) -> AgentError {
    match e {
        ChunkError::Upstream(m) => AgentError::failed(
            RunErrorCode::LlmStreamError,
            format!("the model server reported an error mid-stream: {m}"),
        ),
        ChunkError::Malformed(m) => AgentError::failed(
            RunErrorCode::LlmBadResponse,
            format!("the model server sent a chunk that is not valid: {m}"),
        ),
    }
}

/// The request never got an answer.
fn send_error(e: &reqwest::Error, spec: &LlmSpec) -> AgentError {
    let detail = chain(e);
    if e.is_timeout() {
        AgentError::failed(
            RunErrorCode::LlmTimeout,
            format!(
                "the model server at {} did not answer in time: {detail}",
                spec.host()
            ),
        )
    } else {
        AgentError::failed(
            RunErrorCode::LlmUnreachable,
            format!(
                "cannot reach the model server at {}: {detail}",
                spec.base_url
            ),
        )
    }
}

fn body_error(e: &reqwest::Error) -> AgentError {
    if e.is_timeout() {
        AgentError::failed(
            RunErrorCode::LlmTimeout,
            format!(
                "the model server sent nothing for {} s mid-answer",
                READ_TIMEOUT.as_secs()
            ),
        )
    } else {
        AgentError::failed(
            RunErrorCode::LlmStreamTruncated,
            format!(
                "the model server's stream broke off before the answer was complete: {}",
                chain(e)
            ),
        )
    }
}

/// An error and its causes, joined: reqwest's own message alone says little
/// ("error sending request"); the cause says "Connection refused".
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// An HTTP error status with the server's message (OpenAI, Ollama and llama.cpp send
/// `{"error": {"message"}}`, vLLM `{"message"}`, FastAPI servers `{"detail"}`).
pub fn status_error(status: StatusCode, body: &[u8], spec: &LlmSpec) -> AgentError {
    let text = String::from_utf8_lossy(body);
    let message = match serde_json::from_str::<Value>(&text) {
        Ok(v) => ["error", "message", "detail"]
            .iter()
            .find_map(|k| v.get(k).filter(|e| !e.is_null()))
            .map(error_message)
            .unwrap_or_else(|| brief(&text)),
        Err(_) => brief(&text),
    };
    let code = match status.as_u16() {
        401 | 403 => RunErrorCode::LlmUnauthorized,
        404 => RunErrorCode::LlmNotFound,
        429 => RunErrorCode::LlmRateLimited,
        400 | 413 | 422 => RunErrorCode::LlmBadRequest,
        _ => RunErrorCode::LlmHttpError,
    };
    let mut message = if status.is_redirection() {
        // Its body is a web page at best; what the operator needs is what to change.
        format!(
            "the model server at {} answered {status}: redirects are not followed (the request carries the key and the conversation); configure the base URL the server redirects to",
            spec.host()
        )
    } else if message.is_empty() {
        format!("the model server at {} answered {status}", spec.host())
    } else {
        format!(
            "the model server at {} answered {status}: {message}",
            spec.host()
        )
    };
    // A server may quote the key it refused; it must not reach the client.
    if let Some(key) = spec.key.as_deref().filter(|k| k.len() >= 4) {
        message = message.replace(key, "[redacted]");
    }
    AgentError::failed(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(key: Option<&str>) -> LlmSpec {
        let mut s = LlmSpec::parse("t=http://127.0.0.1:9/v1", |_| None).unwrap();
        s.key = key.map(str::to_string);
        s
    }

    fn failed(e: AgentError) -> (String, String) {
        match e {
            AgentError::Failed { message, code } => (code.to_string(), message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn status_errors_carry_the_upstream_message() {
        let s = spec(Some("sk-abcdef"));
        for (status, body, want_code, want_msg) in [
            (
                401,
                r#"{"error": {"message": "Incorrect API key provided: sk-abcdef", "type": "invalid_request_error", "code": "invalid_api_key"}}"#,
                "LLM_UNAUTHORIZED",
                "Incorrect API key provided: [redacted]",
            ),
            (
                404,
                r#"{"error": {"message": "model \"llama9\" not found, try pulling it first", "type": "api_error"}}"#,
                "LLM_NOT_FOUND",
                "model \"llama9\" not found",
            ),
            (
                404,
                r#"{"object": "error", "message": "The model `x` does not exist.", "type": "NotFoundError", "code": 404}"#,
                "LLM_NOT_FOUND",
                "The model `x` does not exist.",
            ),
            (
                429,
                r#"{"error": "slow down"}"#,
                "LLM_RATE_LIMITED",
                "slow down",
            ),
            (
                422,
                r#"{"detail": [{"msg": "field required"}]}"#,
                "LLM_BAD_REQUEST",
                "field required",
            ),
            (
                503,
                "<html>Bad gateway</html>",
                "LLM_HTTP_ERROR",
                "503 Service Unavailable: <html>Bad gateway</html>",
            ),
            (
                500,
                "",
                "LLM_HTTP_ERROR",
                "answered 500 Internal Server Error",
            ),
            (
                307,
                "<a href=\"http://elsewhere/\">moved</a>",
                "LLM_HTTP_ERROR",
                "answered 307 Temporary Redirect: redirects are not followed",
            ),
        ] {
            let (code, msg) = failed(status_error(
                StatusCode::from_u16(status).unwrap(),
                body.as_bytes(),
                &s,
            ));
            assert_eq!(code, want_code, "{status}");
            assert!(msg.contains(want_msg), "{status}: {msg}");
            assert!(!msg.contains("sk-abcdef"), "{msg}");
        }
    }
}
