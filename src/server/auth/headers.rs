//! Security headers: `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` on
//! every response, and on HTML a `Content-Security-Policy` whose script nonce is made per
//! response. The nonce travels to the renderer in the request's extensions (the shell provides
//! it to Leptos, whose hydration and resource scripts carry it), so the header and the page
//! always agree.

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use leptos::nonce::Nonce;

use crate::server::state::AppState;

/// Add the security headers (and a fresh CSP nonce for the page renderer).
pub async fn security_headers(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let nonce = Nonce::new();
    req.extensions_mut().insert(nonce.clone());
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    let html = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    // A route that set its own policy (the sandboxed frame's loader) keeps it.
    if html && !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        if let Ok(v) = HeaderValue::from_str(&policy(&nonce, &state.config.frame_ancestors)) {
            h.insert(header::CONTENT_SECURITY_POLICY, v);
        }
    }
    resp
}

/// The page's policy. Scripts: ours only — the nonce for the inline ones, `'self'` for the
/// modules they import (`/pkg/*.js`), `'wasm-unsafe-eval'` to compile the app's WASM.
/// `connect-src` stays open: the UI talks to any Agent URL the user types.
pub fn policy(nonce: &str, frame_ancestors: &str) -> String {
    format!(
        "script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; object-src 'none'; \
         base-uri 'none'; form-action 'self'; frame-ancestors {frame_ancestors}"
    )
}
