//! A run's transport in the browser: `fetch` POST of the `RunAgentInput`, the response body
//! read as a `ReadableStream` and handed over chunk by chunk as it arrives. No `EventSource`
//! (it cannot POST). An `AbortController` cancels the request, which ends the server's run.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestInit, Response};

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

/// POST a JSON body; `stream` asks for an event stream.
async fn post(
    url: &str,
    body: &str,
    headers: &[(String, String)],
    signal: Option<&AbortSignal>,
    stream: bool,
) -> Result<Response, TransportError> {
    let h = Headers::new().map_err(js_err)?;
    h.set("Content-Type", "application/json").map_err(js_err)?;
    if stream {
        h.set("Accept", "text/event-stream").map_err(js_err)?;
    }
    for (k, v) in headers {
        h.set(k, v).map_err(js_err)?;
    }
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&h);
    init.set_body(&JsValue::from_str(body));
    if let Some(signal) = signal {
        init.set_signal(Some(signal));
    }
    let request = Request::new_with_str_and_init(url, &init).map_err(js_err)?;
    let window = web_sys::window().ok_or_else(|| TransportError::Network("no window".into()))?;
    Ok(JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(js_err)?
        .unchecked_into())
}

/// POST `body` to `url` and call `on_chunk` with each piece of the response body as it arrives.
pub async fn post_stream(
    url: &str,
    body: &str,
    headers: &[(String, String)],
    signal: &AbortSignal,
    mut on_chunk: impl FnMut(&[u8]),
) -> Result<(), TransportError> {
    let resp = post(url, body, headers, Some(signal), true).await?;
    if !resp.ok() {
        let text = match resp.text() {
            Ok(p) => JsFuture::from(p)
                .await
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        return Err(TransportError::Http {
            status: resp.status(),
            body: text,
        });
    }
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
            let bytes = Uint8Array::new(&value).to_vec();
            on_chunk(&bytes);
        }
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
