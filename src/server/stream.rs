//! Turning a run's events into a response: SSE (our encoder, keep-alive comments while idle) or
//! the protobuf binding (length-prefixed frames, chosen by `Accept`, see [`accept`]); batching
//! of events that are already waiting, and cancellation of the run when the client goes away
//! before the run ends (unless the run was detached from its client).
//!
//! Resuming over protobuf: frames carry no id, so the position is counted. A response to
//! `POST /api/agents/{id}` starts at the run's first event, one to
//! `GET /api/runs/{id}/events` with `Last-Event-ID: N` (or `?after=N`) at event N+1, and every
//! frame is the next event, without gaps; so after K frames the client resumes with
//! `Last-Event-ID` = start + K, exactly as an SSE client echoes the last `id:`.

pub mod accept;

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use crate::protocol::{proto, sse};
use crate::wire::RunErrorCode;

use super::runs::{Frame, RunReader};
pub use accept::{negotiate, Transport};

/// How many already-waiting events go into one write.
const BATCH: usize = 64;
/// Most bytes a write reserves ahead for the events waiting after its first.
const MAX_RESERVE: usize = 64 * 1024;

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
    let mut encode = encode;
    sse_writing(reader, cancel, keep_alive, move |f, out| {
        if let Some(text) = encode(f) {
            out.extend_from_slice(text.as_bytes());
        }
        Encoded::More
    })
}

/// [`sse_response`] with an encoder that appends each event's bytes to the write.
fn sse_writing<F>(
    reader: RunReader,
    cancel: Option<CancellationToken>,
    keep_alive: Duration,
    encode: F,
) -> Response
where
    F: FnMut(&Frame, &mut Vec<u8>) -> Encoded + Send + 'static,
{
    let keep_alive_bytes = Some(Bytes::from_static(sse::KEEP_ALIVE.as_bytes()));
    let body = body(reader, cancel, keep_alive, keep_alive_bytes, encode);
    event_stream(Body::from_stream(body))
}

/// What an encoder did with one event, having appended its bytes (if any) to the write.
enum Encoded {
    /// Go on.
    More,
    /// The event cannot travel: the stream ends after these bytes.
    Last,
}

/// A run's events as the request's `Accept` asks: the canonical SSE encoding, or protobuf.
pub fn event_response(
    reader: RunReader,
    cancel: Option<CancellationToken>,
    keep_alive: Duration,
    transport: Transport,
) -> Response {
    match transport {
        Transport::Sse => sse_writing(reader, cancel, keep_alive, |f, out| {
            agui_frame(f, out);
            Encoded::More
        }),
        // No keep-alive: the binding has no comment frame (an empty frame is an event with no
        // type, which a client rejects).
        Transport::Proto => with_type(
            Body::from_stream(body(reader, cancel, keep_alive, None, proto_frame)),
            proto::MEDIA_TYPE,
        ),
    }
}

/// One event as a protobuf frame. An event the binding cannot carry (open JSON nested past
/// [`proto::MAX_JSON_DEPTH`]) ends the stream with a `RUN_ERROR` saying so.
fn proto_frame(frame: &Frame, out: &mut Vec<u8>) -> Encoded {
    match proto::encode_event(frame.event()) {
        Ok(bytes) => {
            out.extend_from_slice(&bytes);
            Encoded::More
        }
        Err(e) => {
            tracing::warn!(seq = frame.seq, "event not sent over protobuf: {e}");
            let end = crate::protocol::Event::from(crate::protocol::EventKind::RunError {
                message: format!(
                    "event {} cannot be sent over protobuf: {e}; read this run over SSE",
                    frame.seq
                ),
                code: Some(RunErrorCode::InternalError.to_string()),
                usage: None,
            });
            out.extend_from_slice(&proto::encode_event(&end).unwrap_or_default());
            Encoded::Last
        }
    }
}

type Chunks = std::pin::Pin<Box<dyn futures::Stream<Item = Result<Bytes, Infallible>> + Send>>;

fn body<F>(
    reader: RunReader,
    cancel: Option<CancellationToken>,
    keep_alive: Duration,
    keep_alive_bytes: Option<Bytes>,
    encode: F,
) -> Chunks
where
    F: FnMut(&Frame, &mut Vec<u8>) -> Encoded + Send + 'static,
{
    let state = (Some(reader), cancel.map(|c| c.drop_guard()), encode);
    let body = futures::stream::unfold(state, move |(rx, mut guard, mut enc)| {
        let keep_alive_bytes = keep_alive_bytes.clone();
        async move {
            // None: the stream was ended by its encoder.
            let mut rx = rx?;
            loop {
                match tokio::time::timeout(keep_alive, rx.next()).await {
                    Ok(Some(first)) => {
                        let mut out = Vec::new();
                        let mut next = Some(first);
                        let mut taken = 0;
                        let mut last = false;
                        while let Some(frame) = next.take() {
                            if let Encoded::Last = enc(&frame, &mut out) {
                                last = true;
                                break;
                            }
                            taken += 1;
                            if taken < BATCH {
                                next = rx.ready();
                                if taken == 1 && next.is_some() {
                                    // More are waiting: room for a batch of frames like the
                                    // first, instead of growing the write a doubling at a time.
                                    out.reserve((out.len() * (BATCH - 1)).min(MAX_RESERVE));
                                }
                            }
                        }
                        if last {
                            // Dropping the reader (and the guard, which cancels a run still tied
                            // to this client) once these bytes are out.
                            let chunk = Ok::<_, Infallible>(Bytes::from(out));
                            return Some((chunk, (None, guard, enc)));
                        }
                        if !out.is_empty() {
                            let chunk = Ok::<_, Infallible>(Bytes::from(out));
                            return Some((chunk, (Some(rx), guard, enc)));
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
                        if let Some(k) = &keep_alive_bytes {
                            return Some((Ok(k.clone()), (Some(rx), guard, enc)));
                        }
                    }
                }
            }
        }
    });
    Box::pin(body)
}

/// `body` as an SSE response: `text/event-stream`, not cached, not buffered by proxies.
pub fn event_stream(body: Body) -> Response {
    with_type(body, "text/event-stream")
}

/// `body` as a streamed response of `content_type`, not cached, not buffered by proxies.
fn with_type(body: Body, content_type: &'static str) -> Response {
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

/// The canonical AG-UI encoding, appended to `out`: `id: <n>` and `data: <event JSON>`.
pub fn agui_frame(frame: &Frame, out: &mut Vec<u8>) {
    // Number 0 is an event the server made up without storing it (a run whose events could
    // not be stored ends so): it carries no id, so a client's Last-Event-ID stays on a stored one.
    if frame.seq > 0 {
        sse::push_numbered_event(out, &frame.json(), frame.seq);
    } else {
        out.extend_from_slice(sse::encode_event(&frame.json(), None, None).as_bytes());
    }
}
