//! `GET /sandbox/frame`: the loader of the sandboxed frame that runs agent HTML (see
//! [`crate::wire::frame`]), served under a policy built from its query's validated domains.

use axum::extract::RawQuery;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::server::state::AppState;
use crate::wire::frame::{loader_html, FrameCsp, FRAME_PATH};

pub fn router() -> Router<AppState> {
    Router::new().route(FRAME_PATH, get(frame))
}

async fn frame(RawQuery(query): RawQuery) -> Response {
    let csp = FrameCsp::from_query(query.as_deref().unwrap_or(""));
    let mut resp = loader_html().into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // The security-headers layer leaves a policy that is already set alone.
    if let Ok(v) = HeaderValue::from_str(&csp.policy()) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    resp
}
