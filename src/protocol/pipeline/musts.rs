//! Consumer MUSTs of AG-UI 1.1 checked on whole streams: a stream that ends without a terminal
//! event is a truncated, failed run (never a success, never an invented `RUN_FINISHED`), and
//! deltas split anywhere — multi-byte UTF-8 across SSE chunk boundaries, a base letter and its
//! combining mark, a ZWJ emoji sequence across deltas — assemble exactly.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::protocol::event::EventKind;
use crate::protocol::reduce::RunStatus;

fn frames(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

fn input() -> RunAgentInput {
    serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": []})).unwrap()
}

fn consume(bytes: &[u8]) -> (Pipeline, Vec<Delivered>) {
    let mut p = Pipeline::for_input(&input(), PipelineOptions::default());
    let mut out = p.push_bytes(bytes);
    out.extend(p.finish());
    (p, out)
}

#[test]
fn a_stream_without_a_terminal_event_is_truncated_never_a_success() {
    let opened = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "half"}),
    ];
    let finished = json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"});
    let whole = frames(&opened)
        + &frames(&[
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            finished,
        ]);
    let cases = [
        ("no events at all", String::new()),
        ("a run left open", frames(&opened)),
        // Cut inside the terminal frame's JSON: what a broken connection leaves is a
        // truncation, not a malformed event.
        (
            "the terminal frame cut mid-JSON",
            whole[..whole.len() - 10].to_string(),
        ),
        (
            "the terminal frame cut after `data:`",
            whole[..whole.rfind("data:").unwrap() + 6].to_string(),
        ),
    ];
    for (what, stream) in cases {
        let (p, delivered) = consume(stream.as_bytes());
        assert_eq!(p.outcome(), StreamOutcome::Truncated, "{what}");
        assert_eq!(p.error(), None, "{what}: not a protocol error");
        assert!(
            !delivered
                .iter()
                .any(|d| matches!(d.event.kind, EventKind::RunFinished { .. })),
            "{what}: no RUN_FINISHED is invented"
        );
        assert!(
            !matches!(p.conversation.run, RunStatus::Finished { .. }),
            "{what}: the run is not finished: {:?}",
            p.conversation.run
        );
    }
    let (p, _) = consume(whole.as_bytes());
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    // Only the blank line missing: the decoder is lenient, the run is complete.
    let (p, _) = consume(&whole.as_bytes()[..whole.len() - 1]);
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    // Malformed JSON in a complete frame is still a protocol error.
    let (p, _) = consume((frames(&opened) + "data: {\"type\": \n\n").as_bytes());
    assert_eq!(p.outcome(), StreamOutcome::Failed);
}

/// Text with what splits badly: multi-byte letters, combining marks, ZWJ and flag sequences,
/// variation selectors, 4-byte characters, and any char at all.
fn hard_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_string()),
        Just(" ".to_string()),
        Just("é".to_string()),
        Just("e\u{301}".to_string()),
        Just("a\u{308}\u{332}".to_string()),
        Just("👩\u{200D}👩\u{200D}👧\u{200D}👦".to_string()),
        Just("🏳\u{FE0F}\u{200D}🌈".to_string()),
        Just("🇫🇷".to_string()),
        Just("👍🏽".to_string()),
        Just("한국어".to_string()),
        Just("𝄞".to_string()),
        Just("ك\u{64E}".to_string()),
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 1..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The text is cut into deltas at arbitrary char boundaries (inside grapheme clusters), the
    /// SSE bytes into chunks at arbitrary byte offsets (inside UTF-8 sequences); the message
    /// and the tool call's arguments assemble to exactly the text.
    #[test]
    fn deltas_split_anywhere_assemble_exactly(
        text in hard_text(),
        delta_cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        byte_cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..24),
    ) {
        let chars: Vec<char> = text.chars().collect();
        let mut at: Vec<usize> = delta_cuts.iter().map(|i| i.index(chars.len())).filter(|&i| i > 0).collect();
        at.push(chars.len());
        at.sort_unstable();
        at.dedup();
        let mut deltas = Vec::new();
        let mut from = 0;
        for to in at {
            deltas.push(chars[from..to].iter().collect::<String>());
            from = to;
        }
        let mut events = vec![
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        ];
        events.extend(deltas.iter().map(|d| json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": d})));
        events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}));
        events.push(json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"}));
        events.extend(deltas.iter().map(|d| json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": d})));
        events.push(json!({"type": "TOOL_CALL_END", "toolCallId": "c"}));
        events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
        let bytes = frames(&events).into_bytes();
        let mut cuts: Vec<usize> = byte_cuts.iter().map(|i| i.index(bytes.len())).collect();
        cuts.push(bytes.len());
        cuts.sort_unstable();
        let mut p = Pipeline::for_input(&input(), PipelineOptions::default());
        let mut from = 0;
        for to in cuts {
            p.push_bytes(&bytes[from..to]);
            from = to;
        }
        p.finish();
        prop_assert_eq!(p.error(), None);
        prop_assert_eq!(p.outcome(), StreamOutcome::Completed);
        prop_assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let m = p.conversation.messages_json();
        prop_assert_eq!(m[0]["content"].as_str(), Some(text.as_str()));
        prop_assert_eq!(m[0]["toolCalls"][0]["function"]["arguments"].as_str(), Some(text.as_str()));
    }
}
