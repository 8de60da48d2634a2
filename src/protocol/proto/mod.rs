//! The protobuf binding of AG-UI (`application/vnd.ag-ui.event+proto`): each event is a 4-byte
//! big-endian length followed by the protobuf `Event` message of `proto/events.proto`.
//!
//! The mapping works on the JSON wire form of an event (what an SSE `data:` line carries), in
//! both directions, the way the official TypeScript binding (`@ag-ui/proto`) does: open JSON
//! (`state`, `rawEvent`, patch values, …) travels as `google.protobuf.Value`/`Struct`, a message's
//! or tool result's content list as `content_parts`, activity content as `activity_content`, the
//! run and subagent outcomes as a string plus flat `interrupts`/`pending_tool_call_ids`/
//! `interrupt_ids`, patch ops as an enum. So a decoded frame goes through the same pipeline
//! (enforcement, verification) as an SSE event, and an encoded one is what `@ag-ui/proto`
//! decodes. Pure Rust without I/O: the server and the browser share it.

pub mod frame;
mod from_proto;
mod scan;
mod to_proto;
mod value;

pub use frame::{encode_frame, FrameDecoder, FrameError};
pub use from_proto::event_to_json;
pub use to_proto::json_to_event;

/// The generated types of `proto/*.proto` (package `ag_ui`).
#[allow(clippy::all, missing_docs)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/ag_ui.rs"));
}

/// The media type of the binding, exactly as it goes into `Accept` and `Content-Type`.
pub const MEDIA_TYPE: &str = "application/vnd.ag-ui.event+proto";

/// The compiled descriptors of `proto/*.proto` (a `google.protobuf.FileDescriptorSet`), for
/// checking field numbers against the frozen ledger.
pub const DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ag_ui_descriptor.bin"));

/// How deep protobuf messages may nest in one frame: the limit prost (and the C++ and Java
/// runtimes) enforce while decoding. One JSON object level costs three (`Value` → `Struct` →
/// map entry), one array level two (`Value` → `ListValue`).
pub const MAX_MESSAGE_DEPTH: usize = 100;

/// How deep open JSON inside an event may nest to travel as protobuf: deeper values would pass
/// [`MAX_MESSAGE_DEPTH`] on the reader's side, so the writer refuses them up front.
pub const MAX_JSON_DEPTH: usize = 30;

/// Why an event could not be mapped to or from protobuf.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtoError {
    /// The frame is not a protobuf `Event` (bad bytes, a field of the wrong wire type, …).
    #[error("invalid protobuf event: {0}")]
    Decode(String),
    /// The envelope names no event this build knows (a later protocol's, or none at all).
    #[error("the protobuf event names no event type this build knows")]
    UnknownEventType,
    /// The event is not one the binding can carry as it stands.
    #[error("cannot encode the event as protobuf: {0}")]
    Encode(String),
    /// Open JSON nested deeper than [`MAX_JSON_DEPTH`].
    #[error("a JSON value nests deeper than {MAX_JSON_DEPTH} levels, which protobuf cannot carry")]
    TooDeep,
    /// A frame holds more nested messages than its budget (see [`scan`]).
    #[error("the frame holds more than {0} nested messages")]
    TooManyMessages(usize),
}

/// Encode one event (its JSON wire form) as a framed protobuf message.
pub fn encode_event_json(event: &serde_json::Value) -> Result<Vec<u8>, ProtoError> {
    let pb = json_to_event(event)?;
    Ok(encode_frame(&pb))
}

/// Encode one of our events as a framed protobuf message.
pub fn encode_event(event: &crate::protocol::Event) -> Result<Vec<u8>, ProtoError> {
    encode_event_json(&event.to_value())
}

/// Decode one frame's payload (without the length prefix) into the event's JSON wire form.
pub fn decode_payload(payload: &[u8]) -> Result<serde_json::Value, ProtoError> {
    event_to_json(decode_message(payload)?)
}

/// One frame's payload as its protobuf message, once the pre-decode scan has passed it.
fn decode_message(payload: &[u8]) -> Result<pb::Event, ProtoError> {
    scan::check(payload)?;
    <pb::Event as prost::Message>::decode(payload).map_err(|e| ProtoError::Decode(e.to_string()))
}

/// A decoded payload: a plain delta as its event, anything else as its JSON wire form.
// Matched as soon as it is made: boxing the event would cost an allocation per delta, which is
// what the typed decoding saves.
#[allow(clippy::large_enum_variant)]
pub enum Decoded {
    Event(crate::protocol::Event),
    Json(serde_json::Value),
}

/// [`decode_payload`], except that a text or tool-argument delta carrying nothing but its id,
/// its delta and at most a timestamp (what a stream is mostly made of) comes back as the event
/// itself, without the JSON tree the general path would build and parse again: its wire form
/// would have no other field, so enforcement would find nothing to strip.
pub fn decode_payload_typed(payload: &[u8]) -> Result<Decoded, ProtoError> {
    use crate::protocol::event::{Event, EventKind};
    use pb::event::Event as Arm;
    let pb = decode_message(payload)?;
    let plain = |base: &Option<pb::BaseEvent>, sub: &Option<String>, ty: pb::EventType| {
        sub.is_none()
            && base.as_ref().is_some_and(|b| {
                b.r#type == ty as i32 && b.raw_event.is_none() && b.metadata.is_none()
            })
    };
    let (kind, base) = match pb.event {
        Some(Arm::TextMessageContent(e))
            if plain(
                &e.base_event,
                &e.subagent_run_id,
                pb::EventType::TextMessageContent,
            ) =>
        {
            let kind = EventKind::TextMessageContent {
                message_id: e.message_id,
                delta: e.delta,
            };
            (kind, e.base_event)
        }
        Some(Arm::ToolCallArgs(e))
            if plain(
                &e.base_event,
                &e.subagent_run_id,
                pb::EventType::ToolCallArgs,
            ) =>
        {
            let kind = EventKind::ToolCallArgs {
                tool_call_id: e.tool_call_id,
                delta: e.delta,
            };
            (kind, e.base_event)
        }
        _ => return event_to_json(pb).map(Decoded::Json),
    };
    let mut event = Event::from(kind);
    event.timestamp = base.and_then(|b| b.timestamp);
    Ok(Decoded::Event(event))
}

#[cfg(test)]
mod tests;
