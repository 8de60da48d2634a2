//! The common case read straight into its event: a text or tool-argument delta in its 1.1 shape
//! (`type`, the id, `delta`, and at most an integer `timestamp`, nothing else) whose JSON text
//! begins with its type. A stream is nearly all such events, and the general path builds a JSON
//! tree of each, hands it to the dialect translator (which passes it through), then to the
//! enforcement stage (which parses it into the same event and finds nothing to strip). Read
//! directly, they skip all three; anything else — another field, another order, a `null`, a
//! duplicate key, a number that is not an integer — fails the typed parse here and takes the
//! general path, which says what is wrong with it. A test checks both paths agree event by
//! event and warning by warning.

use serde::Deserialize;

use crate::protocol::event::{Event, EventKind};

const TEXT: &str = r#"{"type":"TEXT_MESSAGE_CONTENT","#;
const ARGS: &str = r#"{"type":"TOOL_CALL_ARGS","#;

/// An integer timestamp, or absent (`null` is left to the general path).
#[derive(Default)]
enum Stamp {
    #[default]
    Absent,
    At(i64),
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Stamp::At)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextDelta {
    #[serde(rename = "type")]
    _type: serde::de::IgnoredAny,
    #[serde(rename = "messageId")]
    message_id: String,
    delta: String,
    #[serde(default)]
    timestamp: Stamp,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgsDelta {
    #[serde(rename = "type")]
    _type: serde::de::IgnoredAny,
    #[serde(rename = "toolCallId")]
    tool_call_id: String,
    delta: String,
    #[serde(default)]
    timestamp: Stamp,
}

fn event(kind: EventKind, timestamp: Stamp) -> Event {
    let mut e = Event::from(kind);
    if let Stamp::At(t) = timestamp {
        e.timestamp = Some(t);
    }
    e
}

/// The event `data` is, when it is a delta in its plain 1.1 shape; None sends it down the
/// general path.
pub(super) fn flat_delta(data: &str) -> Option<Event> {
    if data.starts_with(TEXT) {
        let d: TextDelta = serde_json::from_str(data).ok()?;
        return Some(event(
            EventKind::TextMessageContent {
                message_id: d.message_id,
                delta: d.delta,
            },
            d.timestamp,
        ));
    }
    if data.starts_with(ARGS) {
        let d: ArgsDelta = serde_json::from_str(data).ok()?;
        return Some(event(
            EventKind::ToolCallArgs {
                tool_call_id: d.tool_call_id,
                delta: d.delta,
            },
            d.timestamp,
        ));
    }
    None
}
