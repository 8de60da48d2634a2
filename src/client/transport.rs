//! A run's transport in the browser (`fetch` through `gloo-net`): POST of the `RunAgentInput`, the response body
//! read as a `ReadableStream` and handed over chunk by chunk as it arrives; `fetch` GET of a
//! run's event stream to resume it after `Last-Event-ID`. No `EventSource` (it cannot POST, and
//! it reconnects on its own terms). An `AbortController` cancels the request, which ends the
//! server's run unless the run was detached.
//!
//! Cookies go only to this page's own server (`credentials: same-origin`, which signs the UI's
//! own calls in); a request to any other URL carries none (`credentials: omit`), and only the
//! headers its caller gives it.

use gloo_net::http::{Method, RequestBuilder};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Headers, ReadableStreamDefaultReader, RequestCredentials, Response};

/// Why a run's request failed before or while streaming.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportError {
    /// The server answered with an error status before streaming (its JSON or text body).
    Http { status: u16, body: String },
    /// The network failed or the request was refused.
    Network(String),
    /// The request was aborted (Stop).
    Aborted,
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            TransportError::Network(m) => write!(f, "network error: {m}"),
            TransportError::Aborted => write!(f, "stopped"),
        }
    }
}

fn js_err(v: JsValue) -> TransportError {
    let name = Reflect::get(&v, &"name".into())
        .ok()
        .and_then(|n| n.as_string());
    if name.as_deref() == Some("AbortError") {
        return TransportError::Aborted;
    }
    let msg = Reflect::get(&v, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| v.as_string())
        .unwrap_or_else(|| "request failed".into());
    TransportError::Network(msg)
}

/// A `gloo-net` failure in our terms (an abort is `Aborted`, not a network error).
fn gloo_err(e: gloo_net::Error) -> TransportError {
    match e {
        gloo_net::Error::JsError(js) if js.name == "AbortError" => TransportError::Aborted,
        gloo_net::Error::JsError(js) => TransportError::Network(js.message),
        other => TransportError::Network(other.to_string()),
    }
}

/// Send a request through `gloo-net`; `body` makes it a JSON POST, `stream` asks for an event
/// stream. The response stays a `web_sys::Response`: its body is read as a stream.
async fn send(
    method: Method,
    url: &str,
    body: Option<&str>,
    headers: &[(String, String)],
    signal: Option<&AbortSignal>,
    stream: bool,
) -> Result<Response, TransportError> {
    // Built here, not with gloo's `header()`, which throws on a value the browser refuses (a
    // header typed by the user): that must be an error, not a panic.
    let h = Headers::new().map_err(js_err)?;
    if body.is_some() {
        h.set("Content-Type", "application/json").map_err(js_err)?;
    }
    if stream {
        // The caller's headers may ask for another format (the protobuf binding).
        h.set("Accept", "text/event-stream").map_err(js_err)?;
    }
    for (k, v) in headers {
        h.set(k, v).map_err(js_err)?;
    }
    let builder = RequestBuilder::new(url)
        .method(method)
        .headers(gloo_net::http::Headers::from_raw(h))
        .credentials(if is_same_origin(url) {
            RequestCredentials::SameOrigin
        } else {
            RequestCredentials::Omit
        })
        .abort_signal(signal);
    let request = match body {
        Some(body) => builder.body(body),
        None => builder.build(),
    }
    .map_err(gloo_err)?;
    Ok(request.send().await.map_err(gloo_err)?.into())
}

async fn post(
    url: &str,
    body: &str,
    headers: &[(String, String)],
    signal: Option<&AbortSignal>,
    stream: bool,
) -> Result<Response, TransportError> {
    send(Method::POST, url, Some(body), headers, signal, stream).await
}

/// The body of a response as text (empty if it cannot be read).
async fn text_of(resp: &Response) -> String {
    match resp.text() {
        Ok(p) => JsFuture::from(p)
            .await
            .ok()
            .and_then(|t| t.as_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// An error status as a [`TransportError::Http`] with its body.
async fn check(resp: Response) -> Result<Response, TransportError> {
    if resp.ok() {
        Ok(resp)
    } else {
        Err(TransportError::Http {
            status: resp.status(),
            body: text_of(&resp).await,
        })
    }
}

/// Bytes of a response handed on at once (see [`read_body`]): about 60 events of a text
/// stream, a few milliseconds of decoding and reducing even before the WASM is warm, so a
/// burst (the first read of a run, a replay) never becomes one long task.
const READ_SLICE: usize = 8 * 1024;

/// Hand each piece of the response body to `on_chunk` as it arrives, until it ends.
async fn read_body(resp: &Response, mut on_chunk: impl FnMut(&[u8])) -> Result<(), TransportError> {
    let Some(stream) = resp.body() else {
        return Ok(());
    };
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(js_err)?;
        let done = Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(());
        }
        if let Ok(value) = Reflect::get(&chunk, &"value".into()) {
            // A large piece (a fast agent, a replayed run) is handed on in slices with a yield
            // to the page between them, so no single task reads megabytes.
            let bytes = Uint8Array::new(&value).to_vec();
            let mut slices = bytes.chunks(READ_SLICE).peekable();
            while let Some(slice) = slices.next() {
                on_chunk(slice);
                if slices.peek().is_some() {
                    sleep_ms(0).await;
                }
            }
        }
    }
}

/// POST `body` to `url` and call `on_chunk` with each piece of the response body as it arrives.
/// `on_open` sees the response (its headers) once it is known to be a success, before any of
/// its body.
pub async fn post_stream(
    url: &str,
    body: &str,
    headers: &[(String, String)],
    signal: &AbortSignal,
    on_open: impl FnOnce(&Response),
    on_chunk: impl FnMut(&[u8]),
) -> Result<(), TransportError> {
    let resp = check(post(url, body, headers, Some(signal), true).await?).await?;
    on_open(&resp);
    read_body(&resp, on_chunk).await
}

/// GET an event stream (a run's events, resumed after `Last-Event-ID` when the caller sends it
/// in `headers`) and call `on_chunk` with each piece as it arrives; `on_open` as for
/// [`post_stream`].
pub async fn get_stream(
    url: &str,
    headers: &[(String, String)],
    signal: &AbortSignal,
    on_open: impl FnOnce(&Response),
    on_chunk: impl FnMut(&[u8]),
) -> Result<(), TransportError> {
    let resp = check(send(Method::GET, url, None, headers, Some(signal), true).await?).await?;
    on_open(&resp);
    read_body(&resp, on_chunk).await
}

/// GET a JSON document: `Ok(None)` for 404.
pub async fn get_json<T: serde::de::DeserializeOwned>(
    url: &str,
    headers: &[(String, String)],
) -> Result<Option<T>, TransportError> {
    let resp = send(Method::GET, url, None, headers, None, false).await?;
    if resp.status() == 404 {
        return Ok(None);
    }
    let resp = check(resp).await?;
    let text = text_of(&resp).await;
    // Through `Value`: the types' parse is compiled for `Value` already, not again for text
    // (see `protocol::types::tagged`).
    serde_json::from_str::<serde_json::Value>(&text)
        .and_then(T::deserialize)
        .map(Some)
        .map_err(|e| TransportError::Network(format!("unexpected answer from {url}: {e}")))
}

/// GET a JSON document of at most `max` bytes (a foreign one: a longer answer is refused and
/// its reading stops there).
pub async fn get_json_within(
    url: &str,
    headers: &[(String, String)],
    max: usize,
) -> Result<serde_json::Value, TransportError> {
    let controller = web_sys::AbortController::new().map_err(js_err)?;
    let signal = controller.signal();
    let resp = check(send(Method::GET, url, None, headers, Some(&signal), false).await?).await?;
    let mut bytes = Vec::new();
    let mut over = false;
    let read = read_body(&resp, |chunk| {
        if over {
            return;
        }
        if bytes.len() + chunk.len() > max {
            over = true;
            controller.abort();
            return;
        }
        bytes.extend_from_slice(chunk);
    })
    .await;
    if over {
        return Err(TransportError::Network(format!(
            "the answer of {url} is over {max} bytes"
        )));
    }
    read?;
    serde_json::from_slice(&bytes)
        .map_err(|e| TransportError::Network(format!("unexpected answer from {url}: {e}")))
}

/// Wait `ms` milliseconds (a `setTimeout` promise).
pub async fn sleep_ms(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Whether `url` is served by the page's own origin (a relative URL, or an absolute one with
/// the page's origin).
pub fn is_same_origin(url: &str) -> bool {
    if url.starts_with('/') && !url.starts_with("//") {
        return true;
    }
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    !origin.is_empty()
        && url
            .strip_prefix(origin.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Put `url` in the address bar without navigating (`history.replaceState`).
pub fn replace_url(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// POST a small JSON body and return the status (for `POST /api/ag-ui/tool-result`).
pub async fn post_json(
    url: &str,
    body: &str,
    headers: &[(String, String)],
) -> Result<u16, TransportError> {
    let resp = post(url, body, headers, None, false).await?;
    Ok(resp.status())
}

/// A request to this page's own API with an optional JSON body (`PATCH`, `PUT`, `DELETE`,
/// `POST`): its status and body text.
pub async fn send_json(
    method: &str,
    url: &str,
    body: Option<&str>,
) -> Result<(u16, String), TransportError> {
    let method = match method {
        "PATCH" => Method::PATCH,
        "PUT" => Method::PUT,
        "DELETE" => Method::DELETE,
        _ => Method::POST,
    };
    let resp = send(method, url, body, &[], None, false).await?;
    Ok((resp.status(), text_of(&resp).await))
}

/// A random id (`crypto.randomUUID()`).
pub fn random_id() -> String {
    web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| format!("{}", js_sys::Math::random().to_bits()))
}

/// Milliseconds since the page loaded (for the inspector and durations).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}
