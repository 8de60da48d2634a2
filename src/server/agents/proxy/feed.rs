//! How a foreign agent's response body reaches the pipeline: SSE bytes as they are, or protobuf
//! frames (`--proxy ID=URL,transport=proto`) decoded to events first. Both are bounded the same
//! way: one event by the decoder's limit (an SSE line or a frame, 10 MiB), the body by the
//! proxy's totals (`--max-upstream-bytes`/`-events`), silence by the read timeout.

use reqwest::header::{HeaderMap, CONTENT_TYPE};

use crate::protocol::pipeline::{Delivered, Pipeline};
use crate::protocol::proto::{self, FrameDecoder, ProtoError};
use crate::server::runs::context::AgentError;
use crate::wire::RunErrorCode;

use super::spec::Transport;

/// The `Accept` a request for `transport` sends. Asking for protobuf still admits SSE, which
/// the binding requires a server without protobuf to answer with.
pub fn accept(transport: Transport) -> &'static str {
    match transport {
        Transport::Sse => "text/event-stream",
        Transport::Proto => "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5",
    }
}

/// What the response's `Content-Type` says its body is (None: neither stream format).
pub fn detect(headers: &HeaderMap) -> Option<Feed> {
    let essence = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())?
        .trim();
    if essence.eq_ignore_ascii_case("text/event-stream") {
        Some(Feed::Sse)
    } else if essence.eq_ignore_ascii_case(proto::MEDIA_TYPE) {
        Some(Feed::Proto(FrameDecoder::new()))
    } else {
        None
    }
}

/// A body being decoded.
pub enum Feed {
    Sse,
    Proto(FrameDecoder),
}

impl Feed {
    pub fn name(&self) -> &'static str {
        match self {
            Feed::Sse => "SSE",
            Feed::Proto(_) => "protobuf",
        }
    }

    /// Feed body bytes: the events delivered, and the error that ends the run if the bytes
    /// broke a bound or the binding (the events before it are still delivered).
    pub fn push(
        &mut self,
        pipeline: &mut Pipeline,
        bytes: &[u8],
        who: &str,
    ) -> (Vec<Delivered>, Option<AgentError>) {
        match self {
            // SSE errors surface through the pipeline (see `ProxyAgent::check`).
            Feed::Sse => (pipeline.push_bytes(bytes), None),
            Feed::Proto(frames) => match frames.push(bytes) {
                Ok(payloads) => decode(pipeline, payloads, who),
                Err(e) => (Vec::new(), Some(too_large(who, e))),
            },
        }
    }

    /// The body ended: what the pipeline still had, and an error if it ended inside a frame.
    pub fn finish(
        &mut self,
        pipeline: &mut Pipeline,
        who: &str,
    ) -> (Vec<Delivered>, Option<AgentError>) {
        let cut = match self {
            Feed::Sse => None,
            Feed::Proto(frames) => frames.finish().err().map(|e| {
                AgentError::failed(RunErrorCode::ForeignStreamTruncated, format!("{who}: {e}"))
            }),
        };
        (pipeline.finish(), cut)
    }
}

fn decode(
    pipeline: &mut Pipeline,
    payloads: Vec<Vec<u8>>,
    who: &str,
) -> (Vec<Delivered>, Option<AgentError>) {
    let mut out = Vec::new();
    for payload in payloads {
        match proto::decode_payload(&payload) {
            Ok(event) => out.extend(pipeline.push_value(None, event)),
            // A later protocol's event: dropped with a warning, as an unknown type off SSE is.
            Err(ProtoError::UnknownEventType) => pipeline
                .warnings
                .push("dropped a protobuf event of a type this build does not know".into()),
            Err(e @ ProtoError::TooManyMessages(_)) => {
                return (out, Some(too_large(who, e)));
            }
            Err(e) => {
                let e = AgentError::failed(
                    RunErrorCode::ForeignProtocolError,
                    format!("{who} broke the protocol: {e}"),
                );
                return (out, Some(e));
            }
        }
    }
    (out, None)
}

fn too_large(who: &str, e: impl std::fmt::Display) -> AgentError {
    AgentError::failed(
        RunErrorCode::UpstreamLimit,
        format!("{who} sent too much at once: {e}"),
    )
}
