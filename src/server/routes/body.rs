//! Reading a request's JSON body within the configured limits (size, time, memory budget).

use axum::body::Body;
use axum::extract::Request;
use axum::http::header;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::server::error::ApiError;
use crate::server::state::AppState;

/// Read a JSON body under the configured size limit: 413 past the limit, 400 if it is not
/// JSON. The limit is checked on the declared length first, then on the bytes received.
pub async fn read_json(
    state: &AppState,
    body: Body,
    declared: Option<usize>,
) -> Result<Value, ApiError> {
    let limit = state.config.body_limit;
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::PayloadTooLarge(limit));
    }
    // Bodies being read and parsed share a budget of twice the body limit (in KiB): a parsed
    // JSON value takes several times the bytes it came from, so many large bodies at once
    // would otherwise multiply memory. Past the budget, requests wait their turn.
    let kib = declared.unwrap_or(limit).min(limit).div_ceil(1024).max(1);
    let permits = u32::try_from(kib)
        .unwrap_or(u32::MAX)
        .min(state.config.body_budget_kib);
    let _permit = state
        .config
        .body_budget
        .acquire_many(permits)
        .await
        .map_err(|_| ApiError::Internal("the body budget is closed".into()))?;
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|e| {
        if is_timeout(&e) {
            ApiError::BodyTimeout
        } else {
            ApiError::PayloadTooLarge(limit)
        }
    })?;
    // Parsing is CPU work: off the async workers.
    tokio::task::spawn_blocking(move || serde_json::from_slice::<Value>(&bytes))
        .await
        .map_err(|e| ApiError::Internal(format!("parsing the body failed: {e}")))?
        .map_err(|e| ApiError::BadRequest(format!("the body is not valid JSON: {e}")))
}

/// Whether reading a body failed because it did not arrive in time (tower-http's body
/// timeout), rather than because it was too long.
fn is_timeout(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// Parse a JSON value into a request type: 422 naming what is wrong.
pub fn parse_body<T: DeserializeOwned>(value: Value, what: &str) -> Result<T, ApiError> {
    serde_json::from_value(value)
        .map_err(|e| ApiError::Unprocessable(format!("not a valid {what}: {e}")))
}

/// The declared `Content-Length` of a request.
pub fn content_length(req: &Request) -> Option<usize> {
    req.headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}
