//! Errors before a stream starts: one enum, answered as an HTTP status with a JSON body that
//! names the problem. Internal details are logged, never sent.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::store::StoreError;

#[derive(Debug)]
pub enum ApiError {
    /// 400: the body is not JSON.
    BadRequest(String),
    /// 422: JSON, but not the shape the endpoint takes.
    Unprocessable(String),
    /// 400: a request the endpoint cannot act on (an unknown method, a missing parameter).
    InvalidRequest(String),
    /// 401: missing or wrong bearer token.
    Unauthorized,
    /// 403: a state-changing request from a foreign origin.
    ForbiddenOrigin,
    /// 415: a state-changing request whose body is not `application/json`.
    UnsupportedMediaType,
    /// 421: the `Host` names no host this server answers for.
    MisdirectedRequest,
    /// 404: no such agent, run or pending tool call.
    NotFound(String),
    /// 409: the request conflicts with a run in progress.
    Conflict(String),
    /// 413: the body is over the configured limit.
    PayloadTooLarge(usize),
    /// 408: the body did not arrive within the configured time.
    BodyTimeout,
    /// 413: a part of the request (state, messages) is over its configured limit.
    TooLarge(String),
    /// 422: an id is too long or has characters ids may not have.
    InvalidId(String),
    /// 422: JSON nested deeper than the configured limit.
    TooDeep(String),
    /// 400: a `Last-Event-ID` that is not the number of an event of the run.
    InvalidLastEventId(String),
    /// 429: too many runs in progress (in total or for this user).
    TooManyRuns(String),
    /// 429: too many observer streams open for this user.
    TooManyObservers(String),
    /// 500: something broke on our side (logged; the client sees a generic message).
    Internal(String),
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str, String) {
        match self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, "invalid_json", m.clone()),
            ApiError::Unprocessable(m) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_request",
                m.clone(),
            ),
            ApiError::InvalidRequest(m) => (StatusCode::BAD_REQUEST, "invalid_request", m.clone()),
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "a valid 'Authorization: Bearer <token>' header is required".into(),
            ),
            ApiError::ForbiddenOrigin => (
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "cross-site requests may not change anything here".into(),
            ),
            ApiError::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be 'Content-Type: application/json'".into(),
            ),
            ApiError::MisdirectedRequest => (
                StatusCode::MISDIRECTED_REQUEST,
                "misdirected_request",
                "this server does not answer for that Host (see --allowed-host)".into(),
            ),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, "not_found", m.clone()),
            ApiError::Conflict(m) => (StatusCode::CONFLICT, "conflict", m.clone()),
            ApiError::PayloadTooLarge(limit) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("the request body is over the {limit}-byte limit"),
            ),
            ApiError::BodyTimeout => (
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                "the request body did not arrive in time".into(),
            ),
            ApiError::TooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, "too_large", m.clone()),
            ApiError::InvalidId(m) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_id", m.clone()),
            ApiError::TooDeep(m) => (StatusCode::UNPROCESSABLE_ENTITY, "too_deep", m.clone()),
            ApiError::InvalidLastEventId(m) => {
                (StatusCode::BAD_REQUEST, "invalid_last_event_id", m.clone())
            }
            ApiError::TooManyRuns(m) => (StatusCode::TOO_MANY_REQUESTS, "too_many_runs", m.clone()),
            ApiError::TooManyObservers(m) => (
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_observers",
                m.clone(),
            ),
            ApiError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal server error".into(),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(detail) = &self {
            tracing::error!("internal error: {detail}");
        }
        let (status, code, message) = self.parts();
        let mut resp = (
            status,
            Json(json!({ "error": { "code": code, "message": message } })),
        )
            .into_response();
        if status == StatusCode::UNAUTHORIZED {
            resp.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        resp
    }
}

/// A database failure is ours: logged, answered 500.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::Internal(e.to_string())
    }
}
