//! The wire text of the delta events (`TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`,
//! `REASONING_MESSAGE_CONTENT`), written directly: nearly every event of a streamed answer is
//! one. Through serde's internally tagged enum, each of their six strings (three keys, the type,
//! the id, the delta) was escaped byte by byte: 12 % of the server's instructions on a single
//! stream (`callgrind`), the largest item. The text is exactly serde_json's (test below, and
//! `to_json_is_the_printed_value_for_every_event`).

use super::EventKind;
use crate::protocol::bytes::json_special;

/// A delta event's (type, id field, id, delta); None for other kinds.
fn delta_parts(kind: &EventKind) -> Option<(&'static str, &'static str, &str, &str)> {
    match kind {
        EventKind::TextMessageContent { message_id, delta } => {
            Some(("TEXT_MESSAGE_CONTENT", "messageId", message_id, delta))
        }
        EventKind::ToolCallArgs {
            tool_call_id,
            delta,
        } => Some(("TOOL_CALL_ARGS", "toolCallId", tool_call_id, delta)),
        EventKind::ReasoningMessageContent { message_id, delta } => {
            Some(("REASONING_MESSAGE_CONTENT", "messageId", message_id, delta))
        }
        _ => None,
    }
}

/// The body of a delta event as serde_json prints it, without its closing brace; None for
/// other kinds.
pub(super) fn open_delta_body(kind: &EventKind) -> Option<Vec<u8>> {
    let (ty, id_field, id, delta) = delta_parts(kind)?;
    // Room for the base fields a run adds (a timestamp) too: no reallocation on the way.
    let mut out = Vec::with_capacity(96 + ty.len() + id_field.len() + id.len() + delta.len());
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(ty.as_bytes());
    out.extend_from_slice(b"\",\"");
    out.extend_from_slice(id_field.as_bytes());
    out.extend_from_slice(b"\":");
    push_json_str(&mut out, id);
    out.extend_from_slice(b",\"delta\":");
    push_json_str(&mut out, delta);
    Some(out)
}

/// `s` as a JSON string, as serde_json writes it: copied whole when nothing in it needs an
/// escape (a quote, a backslash, a control character), else written by serde_json.
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    if json_special(s.as_bytes()).is_some() {
        serde_json::to_writer(&mut *out, s).expect("a string serialises");
    } else {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::event::Event;

    #[test]
    fn a_delta_event_is_written_as_serde_json_writes_it() {
        let texts = [
            "",
            "plain words ",
            "\"quoted\"",
            "back\\slash",
            "line\nbreak\r\n",
            "tab\tand \u{1} \u{1f} \u{7f}",
            "ünïcödé ✓ 🚀 e\u{301} 👩‍👩‍👧",
            "exactly8",
            "seven 7",
            "sixteen bytes ok",
            "a long run of text with one \" near the end of it, after many words",
            "{\"json\": [1, 2, {\"k\": \"v\"}]}",
        ];
        for id in ["m-1", "id \"odd\"", "é\u{0}"] {
            for delta in texts {
                for kind in [
                    EventKind::TextMessageContent {
                        message_id: id.into(),
                        delta: delta.into(),
                    },
                    EventKind::ToolCallArgs {
                        tool_call_id: id.into(),
                        delta: delta.into(),
                    },
                    EventKind::ReasoningMessageContent {
                        message_id: id.into(),
                        delta: delta.into(),
                    },
                ] {
                    let mut event = Event::from(kind);
                    event.timestamp = Some(1_700_000_000_123);
                    assert_eq!(
                        event.to_json(),
                        serde_json::to_string(&event.to_value()).unwrap(),
                        "{id:?} {delta:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_escape_is_found_at_every_position() {
        for len in 0..24 {
            for at in 0..len {
                for bad in [b'"', b'\\', 0u8, 0x1f, b'\n'] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = bad;
                    assert!(json_special(&bytes).is_some(), "{bad} at {at} of {len}");
                }
            }
            let mut fine = vec![b'a'; len];
            for (i, b) in fine.iter_mut().enumerate() {
                *b = [b' ', b'~', 0x7f, 0x80, 0xff, b'!', b'#', b'['][i % 8];
            }
            assert!(json_special(&fine).is_none(), "{len}");
        }
    }
}
