//! The site's static files (WASM, JS, CSS, `public/`), embedded in the release binary at build
//! time so the binary alone serves the full app. Debug builds read the same files from
//! `target/site` on each request, so `cargo leptos watch` picks up rebuilds.
//!
//! Release builds must compile the site before the server (`cargo leptos build --release
//! --precompress` does: precompression makes cargo-leptos build the front end first), and the
//! `.br`/`.gz` files it writes are served to clients that accept them.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use leptos::prelude::LeptosOptions;
use rust_embed::RustEmbed;

use crate::ui::app::shell;

#[derive(RustEmbed)]
#[folder = "target/site"]
#[allow_missing = true]
struct Site;

/// Whether the binary carries the site (false for a server built without the front end).
pub fn has_site() -> bool {
    Site::iter().next().is_some()
}

/// Whether `path` (from the URL, with its leading `/`) is one of the site's static files.
pub fn is_asset(path: &str) -> bool {
    let path = path.trim_start_matches('/');
    !path.is_empty() && Site::get(path).is_some()
}

/// Serve an embedded file, or render the app (whose router shows "not found").
pub async fn static_or_not_found(
    axum::extract::State(options): axum::extract::State<LeptosOptions>,
    req: Request,
) -> Response {
    let path = req.uri().path().trim_start_matches('/').to_string();
    if let Some(resp) = file_response(&path, req.headers()) {
        return resp;
    }
    let handler = leptos_axum::render_app_to_stream(move || shell(options.clone()));
    let mut resp = handler(req).await.into_response();
    if resp.status() == StatusCode::OK {
        *resp.status_mut() = StatusCode::NOT_FOUND;
    }
    resp
}

fn file_response(path: &str, headers: &HeaderMap) -> Option<Response> {
    if path.is_empty() || path.ends_with(".br") || path.ends_with(".gz") {
        return None;
    }
    let plain = Site::get(path)?;
    let etag = format!("\"{}\"", hex(&plain.metadata.sha256_hash()[..16]));
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        return Some((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    let accepts = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let (file, encoding) = [("br", ".br"), ("gzip", ".gz")]
        .iter()
        .filter(|(enc, _)| accepts.split(',').any(|a| a.trim().starts_with(enc)))
        .find_map(|(enc, ext)| Site::get(&format!("{path}{ext}")).map(|f| (f, Some(*enc))))
        .unwrap_or((plain, None));
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let mut resp = Response::new(Body::from(file.data.into_owned()));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(mime.as_ref())
            .unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Some(enc) = encoding {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(enc));
    }
    Some(resp)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
