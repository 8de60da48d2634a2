//! A recorded response body through the client pipeline alone (decoding, translation, the 1.1
//! rules, verification, the reducer), callable from the page's scripts as
//! `replay_body` of the page's own module (`/pkg/agui-studio.js`, already initialised once the
//! page has hydrated; a promise, as the pipeline is in the chunk of a run's code, fetched the
//! first time: the export is in `browser/engine.rs`, which reaches [`replay`] in the chunk).
//! `end2end/bench/pipeline.mjs` times it against the official TS client's `HttpAgent` on the
//! same bytes in the same Chromium page. It draws nothing and touches no signal, storage or
//! network: the page is as it was.

use crate::protocol::pipeline::binary::BodyKind;
use crate::protocol::pipeline::{Pipeline, PipelineOptions};
use crate::protocol::types::{Message, RunAgentInput};

/// Feed `body` (SSE, or the protobuf binding when `protobuf`) through a fresh pipeline of a run
/// `run_id` on `thread_id` with no messages, in pieces of `piece` bytes as network reads would
/// split it, and say what it built, as one line of JSON:
/// `{"delivered":N,"outcome":"completed","messages":M,"lastText":T,"failed":false}` where `T`
/// is the length (in UTF-16 units, as JavaScript counts) of the last message's text.
pub(in crate::client) fn replay(
    thread_id: &str,
    run_id: &str,
    body: &[u8],
    protobuf: bool,
    piece: usize,
) -> String {
    let mut p = Pipeline::for_input(
        &RunAgentInput::new(thread_id, run_id),
        PipelineOptions::default(),
    );
    if protobuf {
        p.expect_body(BodyKind::Protobuf);
    }
    let mut delivered = 0;
    for piece in body.chunks(piece.max(1)) {
        delivered += p.push_bytes(piece).len();
    }
    delivered += p.finish().len();
    let outcome = p.outcome().as_str();
    let last_text = match p.conversation.messages.last() {
        Some(Message::Assistant(m)) => m.content.as_deref().unwrap_or_default(),
        _ => "",
    };
    // Written by hand: the page's module carries no JSON printer of its own for this.
    format!(
        r#"{{"delivered":{delivered},"outcome":"{outcome}","messages":{},"lastText":{},"failed":{}}}"#,
        p.conversation.messages.len(),
        last_text.encode_utf16().count(),
        p.error().is_some(),
    )
}
