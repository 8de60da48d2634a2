//! The protobuf binding (`application/vnd.ag-ui.event+proto`) as a pipeline's input: the body
//! is cut into frames ([`FrameDecoder`], bounded like an SSE line), each frame decoded to the
//! event's JSON wire form and fed on exactly as an SSE `data:` line is.
//!
//! Frames carry no id, so the position is counted: the first frame of a run's POST is event 1,
//! the first frame of a resume after `Last-Event-ID: N` is event N+1 (see `server::stream`), and
//! [`Pipeline::last_event_id`] is the last frame's number, which is what a resume sends.

use crate::protocol::proto::{self, FrameDecoder, ProtoError};

use super::{Delivered, Pipeline};

/// The framing state of a protobuf body.
#[derive(Debug)]
pub struct Frames {
    decoder: FrameDecoder,
    /// The stream position of the next frame.
    next_id: u64,
}

impl Frames {
    /// A new connection: a frame the break cut in two is dropped (the resume sends it again
    /// whole); the count goes on.
    pub(super) fn restart(self) -> Self {
        Frames {
            decoder: FrameDecoder::new(),
            next_id: self.next_id,
        }
    }
}

/// What a response body is, from its `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Sse,
    Protobuf,
}

impl BodyKind {
    /// The kind a `Content-Type` names (parameters ignored); `None` for anything else.
    pub fn of(content_type: &str) -> Option<BodyKind> {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("text/event-stream") {
            Some(BodyKind::Sse)
        } else if essence.eq_ignore_ascii_case(proto::MEDIA_TYPE) {
            Some(BodyKind::Protobuf)
        } else {
            None
        }
    }
}

impl Pipeline {
    /// The next response body (a run's POST, or a resume) is of `kind`. A protobuf body counts
    /// its frames on from [`Pipeline::last_event_id`]: the server starts it right after that
    /// event, so nothing is skipped.
    pub fn expect_body(&mut self, kind: BodyKind) {
        match kind {
            BodyKind::Sse => self.binary = None,
            BodyKind::Protobuf => {
                let last = self
                    .last_event_id
                    .as_deref()
                    .and_then(|id| id.trim().parse::<u64>().ok())
                    .unwrap_or(0);
                self.skip_through = None;
                self.cut_inside_frame = None;
                self.binary = Some(Frames {
                    decoder: FrameDecoder::new(),
                    next_id: last + 1,
                });
            }
        }
    }

    /// Whether the current body is read as the protobuf binding.
    pub fn reads_protobuf(&self) -> bool {
        self.binary.is_some()
    }

    pub(super) fn push_binary(&mut self, bytes: &[u8]) -> Vec<Delivered> {
        let Some(frames) = self.binary.as_mut() else {
            return Vec::new();
        };
        let payloads = match frames.decoder.push(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.fail_on_bound(format!("protobuf decoding failed: {e}"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for payload in payloads {
            if self.error.is_some() {
                break;
            }
            let id = match self.binary.as_mut() {
                Some(f) => {
                    f.next_id += 1;
                    f.next_id - 1
                }
                None => break,
            };
            self.last_event_id = Some(id.to_string());
            let decoded = match self.fast_path {
                true => proto::decode_payload_typed(&payload),
                false => proto::decode_payload(&payload).map(proto::Decoded::Json),
            };
            match decoded {
                // A plain delta skips the translator (which passes it through unless a
                // named-event text message is open) and enforcement, as off SSE.
                Ok(proto::Decoded::Event(event)) if self.translator.passes_typed_through() => {
                    self.push_enforced_into(event, &mut out)
                }
                Ok(proto::Decoded::Event(event)) => {
                    out.extend(self.push_value(None, event.to_value()))
                }
                Ok(proto::Decoded::Json(value)) => out.extend(self.push_value(None, value)),
                // A later protocol's event: dropped with a warning, as an unknown type off SSE is.
                Err(ProtoError::UnknownEventType) => self
                    .warnings
                    .push("dropped a protobuf event of a type this build does not know".into()),
                Err(e @ ProtoError::TooManyMessages(_)) => {
                    self.fail_on_bound(format!("protobuf decoding failed: {e}"))
                }
                Err(e) => self.fail(format!("protobuf decoding failed: {e}")),
            }
        }
        out
    }

    /// The body ended: a frame it cut short is what a broken connection leaves (the stream is
    /// truncated, and [`Pipeline::cut_inside_frame`] says so); a resume starts a new frame.
    pub(super) fn finish_binary(&mut self) {
        if let Some(mut frames) = self.binary.take() {
            if let Err(e) = frames.decoder.finish() {
                self.cut_inside_frame = Some(e.to_string());
            }
            self.binary = Some(frames.restart());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::protocol::pipeline::{PipelineOptions, StreamOutcome};
    use crate::protocol::proto::encode_event_json;
    use crate::protocol::reduce::RunStatus;
    use crate::protocol::types::RunAgentInput;

    fn run() -> Vec<Value> {
        vec![
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "héllo "}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "wörld 👋"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1, "deep": {"a": [1, 2]}}}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]
    }

    fn body(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .flat_map(|e| encode_event_json(e).expect("encodes"))
            .collect()
    }

    fn pipeline() -> Pipeline {
        let mut p = Pipeline::for_input(&RunAgentInput::new("t", "r"), PipelineOptions::default());
        p.expect_body(BodyKind::Protobuf);
        p
    }

    fn text(p: &Pipeline) -> String {
        p.conversation
            .messages
            .iter()
            .filter_map(|m| m.text())
            .collect()
    }

    #[test]
    fn a_framed_body_split_anywhere_builds_the_same_conversation() {
        let bytes = body(&run());
        for size in [1, 3, 7, 64, bytes.len()] {
            let mut p = pipeline();
            let mut n = 0;
            for piece in bytes.chunks(size) {
                n += p.push_bytes(piece).len();
            }
            n += p.finish().len();
            assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
            assert_eq!(n, run().len(), "split in pieces of {size}");
            assert_eq!(text(&p), "héllo wörld 👋");
            assert_eq!(p.conversation.state, json!({"n": 1, "deep": {"a": [1, 2]}}));
            assert_eq!(p.last_event_id(), Some("7"));
        }
    }

    #[test]
    fn a_resume_counts_on_from_the_last_frame_and_drops_the_cut_one() {
        let events = run();
        let first = body(&events[..3]);
        let cut = encode_event_json(&events[3]).expect("encodes");
        let mut p = pipeline();
        p.push_bytes(&first);
        // The connection breaks inside the fourth frame.
        p.push_bytes(&cut[..cut.len() / 2]);
        assert_eq!(p.last_event_id(), Some("3"));
        p.reconnect();
        // The resume after event 3 comes back as protobuf, from event 4 on.
        p.expect_body(BodyKind::Protobuf);
        p.push_bytes(&body(&events[3..]));
        p.finish();
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
        assert_eq!(text(&p), "héllo wörld 👋");
        assert_eq!(p.last_event_id(), Some("7"));
    }

    #[test]
    fn a_resume_may_come_back_as_sse() {
        let events = run();
        let mut p = pipeline();
        p.push_bytes(&body(&events[..2]));
        p.reconnect();
        p.expect_body(BodyKind::Sse);
        let sse: String = events
            .iter()
            .enumerate()
            .map(|(i, e)| format!("id: {}\ndata: {e}\n\n", i + 1))
            .collect();
        // The server resumes after event 2; a server that sends all again is skipped through 2.
        p.push_bytes(sse.as_bytes());
        p.finish();
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
        assert_eq!(text(&p), "héllo wörld 👋");
    }

    #[test]
    fn a_body_cut_inside_a_frame_is_truncated_never_a_success() {
        let bytes = body(&run());
        let mut p = pipeline();
        p.push_bytes(&bytes[..bytes.len() - 3]);
        p.finish();
        assert_eq!(p.outcome(), StreamOutcome::Truncated);
        let cut = p.cut_inside_frame().unwrap_or("");
        assert!(cut.contains("ended inside a protobuf frame"), "{cut}");
        assert!(!p.exceeded_a_bound());
        assert!(matches!(p.conversation.run, RunStatus::Running { .. }));
    }

    #[test]
    fn a_hostile_length_fails_before_anything_is_buffered() {
        let mut p = pipeline();
        p.push_bytes(&body(&run()[..1]));
        p.push_bytes(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]);
        assert_eq!(p.outcome(), StreamOutcome::Failed);
        assert!(
            p.error().unwrap_or("").contains("over the limit"),
            "{:?}",
            p.error()
        );
        assert!(p.exceeded_a_bound());
    }

    #[test]
    fn garbage_in_a_frame_fails_the_stream() {
        let mut p = pipeline();
        p.push_bytes(&body(&run()[..1]));
        p.push_bytes(&[0, 0, 0, 3, 0xff, 0xff, 0xff]);
        assert_eq!(p.outcome(), StreamOutcome::Failed);
        assert!(
            p.error().unwrap_or("").contains("protobuf"),
            "{:?}",
            p.error()
        );
        assert!(!p.exceeded_a_bound(), "a protocol question, not a bound");
    }

    #[test]
    fn an_unknown_event_type_is_dropped_with_a_warning_and_still_counted() {
        let mut p = pipeline();
        p.push_bytes(&body(&run()[..2]));
        // An envelope with no known event set: field 1000, a varint.
        let unknown = [0xc0, 0x3e, 0x01];
        let mut frame = (unknown.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&unknown);
        p.push_bytes(&frame);
        p.push_bytes(&body(&run()[2..]));
        p.finish();
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
        assert!(
            p.warnings.iter().any(|w| w.contains("does not know")),
            "{:?}",
            p.warnings
        );
        assert_eq!(p.last_event_id(), Some("8"));
    }

    #[test]
    fn content_types_name_their_body() {
        assert_eq!(
            BodyKind::of("text/event-stream; charset=utf-8"),
            Some(BodyKind::Sse)
        );
        assert_eq!(BodyKind::of(proto::MEDIA_TYPE), Some(BodyKind::Protobuf));
        assert_eq!(
            BodyKind::of("Application/Vnd.Ag-Ui.Event+Proto"),
            Some(BodyKind::Protobuf)
        );
        assert_eq!(BodyKind::of("application/json"), None);
    }

    /// Plain deltas decoded straight into their events give what the general path gives.
    #[test]
    fn plain_deltas_decoded_directly_match_the_general_path() {
        use serde_json::json;
        let deltas = [
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "é", "timestamp": 17}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "subagentRunId": "s"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "rawEvent": {"a": 1}}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "metadata": {"a": 1}}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "other", "delta": "x"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}", "timestamp": 3}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "nope", "delta": "{}"}),
        ];
        for d in &deltas {
            let stream = body(&[
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
                json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}),
                d.clone(),
                d.clone(),
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
            ]);
            let run = |fast_path: bool| {
                let mut p = Pipeline::new(PipelineOptions::default());
                p.fast_path = fast_path;
                p.expect_body(BodyKind::Protobuf);
                let mut delivered = Vec::new();
                for piece in stream.chunks(5) {
                    delivered.extend(p.push_bytes(piece));
                }
                delivered.extend(p.finish());
                let error = p.error().map(str::to_string);
                (delivered, p.warnings.clone(), error, p.outcome())
            };
            assert_eq!(run(true), run(false), "{d}");
        }
        // The plain ones are decoded as events, the others as their JSON.
        let typed: Vec<bool> = deltas
            .iter()
            .map(|d| {
                let frame = encode_event_json(d).unwrap();
                matches!(
                    proto::decode_payload_typed(&frame[4..]),
                    Ok(proto::Decoded::Event(_))
                )
            })
            .collect();
        assert_eq!(
            typed,
            [true, true, false, false, false, true, true, true, true]
        );
    }
}
