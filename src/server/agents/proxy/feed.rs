//! How a foreign agent's response body reaches the pipeline: what to ask for, and what the
//! answer's `Content-Type` says the body is — SSE, or protobuf frames
//! (`--proxy ID=URL,transport=proto`), both read by the pipeline itself
//! ([`Pipeline::expect_body`](crate::protocol::pipeline::Pipeline::expect_body)). Both are bounded
//! the same way: one event by the decoder's limit (an SSE line or a frame, 10 MiB), the body by
//! the proxy's totals (`--max-upstream-bytes`/`-events`), silence by the read timeout.

use reqwest::header::{HeaderMap, CONTENT_TYPE};

use crate::protocol::pipeline::binary::BodyKind;

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
pub fn detect(headers: &HeaderMap) -> Option<BodyKind> {
    let content_type = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    BodyKind::of(content_type)
}

/// The body's format, as logs and errors name it.
pub fn name(kind: BodyKind) -> &'static str {
    match kind {
        BodyKind::Sse => "SSE",
        BodyKind::Protobuf => "protobuf",
    }
}
