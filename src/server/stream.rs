//! Turning a run's events into an SSE response: our encoder, keep-alive comments while idle,
//! batching of events that are already waiting, and cancellation of the run when the client
//! goes away before the run ends (unless the run was detached from its client).

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use crate::protocol::sse;

use super::runs::{Frame, RunReader};

/// How many already-waiting events go into one write.
const BATCH: usize = 64;

/// An SSE response streaming what `reader` yields. `encode` turns an event (with its number in
/// the run) into SSE text (None skips it). Dropping the response before the run ended cancels
/// `cancel` when one is given.
pub fn sse_response<F>(
    reader: RunReader,
    cancel: Option<CancellationToken>,
    keep_alive: Duration,
    encode: F,
) -> Response
where
    F: FnMut(&Frame) -> Option<String> + Send + 'static,
{
    let state = (reader, cancel.map(|c| c.drop_guard()), encode);
    let body = futures::stream::unfold(state, move |(mut rx, mut guard, mut enc)| async move {
        loop {
            match tokio::time::timeout(keep_alive, rx.next()).await {
                Ok(Some(first)) => {
                    let mut out = String::new();
                    let mut next = Some(first);
                    let mut taken = 0;
                    while let Some(frame) = next.take() {
                        if let Some(s) = enc(&frame) {
                            out.push_str(&s);
                        }
                        taken += 1;
                        if taken < BATCH {
                            next = rx.ready();
                        }
                    }
                    if !out.is_empty() {
                        let chunk = Ok::<_, Infallible>(Bytes::from(out));
                        return Some((chunk, (rx, guard, enc)));
                    }
                }
                Ok(None) => {
                    // The run ended: nothing to cancel.
                    if let Some(g) = guard.take() {
                        g.disarm();
                    }
                    return None;
                }
                Err(_) => {
                    let chunk = Ok(Bytes::from_static(sse::KEEP_ALIVE.as_bytes()));
                    return Some((chunk, (rx, guard, enc)));
                }
            }
        }
    });
    event_stream(Body::from_stream(body))
}

/// `body` as an SSE response: `text/event-stream`, not cached, not buffered by proxies.
pub fn event_stream(body: Body) -> Response {
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// The canonical AG-UI encoding: `id: <n>` and `data: <event JSON>`.
pub fn agui_frame(frame: &Frame) -> Option<String> {
    // Number 0 is an event the server made up without storing it (a run whose events could
    // not be stored ends so): it carries no id, so a client's Last-Event-ID stays on a stored one.
    let id = (frame.seq > 0).then(|| frame.seq.to_string());
    Some(sse::encode_event(&frame.json(), id.as_deref(), None))
}
