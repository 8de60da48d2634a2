//! HTTP routes, one router per module, merged in [`api_router`].

pub mod agents;
pub mod seed000;
pub mod seed004;
pub mod threads;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header;
use axum::Router;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;
use super::AppState;

/// Every API route (AG-UI run endpoint, agents list, seed endpoints). Authentication is a
/// layer of the whole app ([`crate::server::auth::authenticate`]): handlers take the
/// [`crate::server::auth::User`] it puts in the request.
pub fn api_router(_state: &AppState) -> Router<AppState> {
    Router::new()
        .merge(agents::router())
        .merge(seed000::router())
        .merge(seed004::router())
        .merge(threads::router())
}

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
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| ApiError::PayloadTooLarge(limit))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::BadRequest(format!("the body is not valid JSON: {e}")))
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
