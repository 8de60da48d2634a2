//! The common case read straight into its event: a text or tool-argument delta in its 1.1 shape
//! (`type`, the id, `delta`, and at most an integer `timestamp`, nothing else) whose JSON text
//! begins with its type. A stream is nearly all such events, and the general path builds a JSON
//! tree of each, hands it to the dialect translator (which passes it through), then to the
//! enforcement stage (which parses it into the same event and finds nothing to strip). Read
//! directly, they skip all three; anything else — another field, a `null`, a duplicate key, a
//! number that is not an integer — fails the typed parse here and takes the general path, which
//! says what is wrong with it. A test checks both paths agree event by event and warning by
//! warning.
//!
//! The text producers write — the members in the order of the 1.1 schema, no whitespace, strings
//! without escapes — is read by [`scan`] without serde's machinery (half the pipeline's time
//! in the page went to serde's generic parse of these few members); any other text of a delta
//! (escapes, another order, spaces) takes the typed parse, and a test checks the two agree.

use serde::Deserialize;

use crate::protocol::bytes::json_special;
use crate::protocol::event::{Event, EventKind};

const TEXT: &str = r#"{"type":"TEXT_MESSAGE_CONTENT","#;
const ARGS: &str = r#"{"type":"TOOL_CALL_ARGS","#;
const MESSAGE_ID: &str = r#""messageId":""#;
const TOOL_CALL_ID: &str = r#""toolCallId":""#;
const DELTA: &str = r#"","delta":""#;
const STAMP: &str = r#","timestamp":"#;

/// An integer timestamp, or absent (`null` is left to the general path).
#[derive(Default, Debug, PartialEq)]
pub(super) enum Stamp {
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
    if let Some(rest) = data.strip_prefix(TEXT) {
        if let Some((message_id, delta, stamp)) = scan(rest, MESSAGE_ID) {
            let kind = EventKind::TextMessageContent { message_id, delta };
            return Some(event(kind, stamp));
        }
        let d: TextDelta = serde_json::from_str(data).ok()?;
        return Some(event(
            EventKind::TextMessageContent {
                message_id: d.message_id,
                delta: d.delta,
            },
            d.timestamp,
        ));
    }
    if let Some(rest) = data.strip_prefix(ARGS) {
        if let Some((tool_call_id, delta, stamp)) = scan(rest, TOOL_CALL_ID) {
            let kind = EventKind::ToolCallArgs {
                tool_call_id,
                delta,
            };
            return Some(event(kind, stamp));
        }
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

/// The members after the type, `"<id_key>":"…","delta":"…"` and an optional
/// `,"timestamp":<integer>`, then `}` and nothing after, with strings that have no escape and
/// integers of at most 18 digits (so no overflow); None for any other text, which the typed
/// parse reads instead.
pub(super) fn scan(rest: &str, id_key: &str) -> Option<(String, String, Stamp)> {
    let rest = rest.strip_prefix(id_key)?;
    let (id, rest) = plain_string(rest)?;
    let rest = rest.strip_prefix(DELTA)?;
    let (delta, rest) = plain_string(rest)?;
    let rest = rest.strip_prefix('"')?;
    let (stamp, rest) = match rest.strip_prefix(STAMP) {
        Some(number) => {
            let (t, rest) = plain_integer(number)?;
            (Stamp::At(t), rest)
        }
        None => (Stamp::Absent, rest),
    };
    (rest == "}").then(|| (id.to_owned(), delta.to_owned(), stamp))
}

/// The text of a JSON string up to its closing quote (which stays in what follows), when it has
/// no escape and no control character (which JSON forbids raw; the typed parse reports it).
fn plain_string(s: &str) -> Option<(&str, &str)> {
    let end = json_special(s.as_bytes())?;
    (s.as_bytes()[end] == b'"').then(|| s.split_at(end))
}

/// `0`, or an optional `-` and 1–18 digits without a leading zero (JSON's integers that fit an
/// `i64` without a check; not `-0`, which serde_json reads as a float); what follows it.
fn plain_integer(s: &str) -> Option<(i64, &str)> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    // An indexed loop that adds the digits up as it goes (see `protocol::bytes` on loops in the
    // page); at most 18 digits cannot overflow.
    let bytes = digits.as_bytes();
    let (mut len, mut value) = (0, 0i64);
    while len < bytes.len() && bytes[len].is_ascii_digit() {
        if len == 18 {
            return None;
        }
        value = value * 10 + i64::from(bytes[len] - b'0');
        len += 1;
    }
    if len == 0 || (bytes[0] == b'0' && (len > 1 || negative)) {
        return None;
    }
    Some((if negative { -value } else { value }, &digits[len..]))
}
