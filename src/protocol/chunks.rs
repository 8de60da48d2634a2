//! Chunk expansion: `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and `REASONING_MESSAGE_CHUNK`
//! become explicit start/content/end triads, so everything after this stage sees one shape.
//!
//! One chunk item may be open per lane (a lane is the subagent run an event is attributed to,
//! or the run itself). Any other event closes its lane's open item first, except the events
//! that may interleave with a stream (`RAW`, `ACTIVITY_*`, `REASONING_ENCRYPTED_VALUE`); a run
//! terminal closes every lane and a subagent terminal closes its own. An item still open when
//! the stream ends is left open: a truncated stream is the verifier's business.

use std::collections::HashMap;

use super::event::{Event, EventKind};
use super::types::{ReasoningRole, TextRole};

#[derive(Debug, Clone, PartialEq)]
enum Open {
    Text {
        id: String,
        role: TextRole,
        name: Option<String>,
    },
    Tool {
        id: String,
        name: String,
        parent: Option<String>,
    },
    Reasoning {
        id: String,
    },
}

/// The chunk expander of one stream.
#[derive(Debug, Default)]
pub struct ChunkExpander {
    lanes: HashMap<Option<String>, Open>,
}

impl ChunkExpander {
    pub fn new() -> Self {
        Self::default()
    }

    /// Expand one event into the events to deliver, in order.
    pub fn expand(&mut self, event: Event) -> Result<Vec<Event>, String> {
        let lane = event.subagent_run_id.clone();
        let mut out = Vec::new();
        match &event.kind {
            EventKind::TextMessageChunk {
                message_id,
                role,
                delta,
                name,
            } => {
                let continues = match self.lanes.get(&lane) {
                    Some(Open::Text {
                        id,
                        role: open_role,
                        name: open_name,
                    }) if message_id.as_ref().is_none_or(|m| m == id) => {
                        if role.is_some_and(|r| r != *open_role) {
                            return Err(format!(
                                "TEXT_MESSAGE_CHUNK role {:?} does not match the open stream's role {:?}",
                                role.unwrap_or_default(),
                                open_role
                            ));
                        }
                        if name.is_some() && open_name.is_some() && name != open_name {
                            return Err(format!(
                                "TEXT_MESSAGE_CHUNK name {:?} does not match the open stream's name {:?}",
                                name, open_name
                            ));
                        }
                        Some(id.clone())
                    }
                    _ => None,
                };
                let id = match continues {
                    Some(id) => id,
                    None => {
                        self.close_lane(&lane, &mut out);
                        let Some(id) = message_id.clone() else {
                            return Err("First TEXT_MESSAGE_CHUNK must have a messageId".into());
                        };
                        let role = role.unwrap_or_default();
                        out.push(derived(
                            &event,
                            EventKind::TextMessageStart {
                                message_id: id.clone(),
                                role: Some(role),
                                name: name.clone(),
                            },
                        ));
                        self.lanes.insert(
                            lane.clone(),
                            Open::Text {
                                id: id.clone(),
                                role,
                                name: name.clone(),
                            },
                        );
                        id
                    }
                };
                push_content(&event, delta, &mut out, |delta| {
                    EventKind::TextMessageContent {
                        message_id: id.clone(),
                        delta,
                    }
                });
            }
            EventKind::ToolCallChunk {
                tool_call_id,
                tool_call_name,
                parent_message_id,
                delta,
            } => {
                let continues = match self.lanes.get(&lane) {
                    Some(Open::Tool { id, name, parent })
                        if tool_call_id.as_ref().is_none_or(|t| t == id) =>
                    {
                        if tool_call_name.as_ref().is_some_and(|n| n != name) {
                            return Err(format!(
                                "TOOL_CALL_CHUNK toolCallName '{}' does not match the open stream's toolCallName '{name}'",
                                tool_call_name.as_deref().unwrap_or_default()
                            ));
                        }
                        if parent_message_id.is_some() && parent_message_id != parent {
                            return Err(format!(
                                "TOOL_CALL_CHUNK parentMessageId {parent_message_id:?} does not match the open stream's parentMessageId {parent:?}"
                            ));
                        }
                        Some(id.clone())
                    }
                    _ => None,
                };
                let id = match continues {
                    Some(id) => id,
                    None => {
                        self.close_lane(&lane, &mut out);
                        let Some(id) = tool_call_id.clone() else {
                            return Err("First TOOL_CALL_CHUNK must have a toolCallId".into());
                        };
                        let Some(name) = tool_call_name.clone() else {
                            return Err("First TOOL_CALL_CHUNK must have a toolCallName".into());
                        };
                        out.push(derived(
                            &event,
                            EventKind::ToolCallStart {
                                tool_call_id: id.clone(),
                                tool_call_name: name.clone(),
                                parent_message_id: parent_message_id.clone(),
                            },
                        ));
                        self.lanes.insert(
                            lane.clone(),
                            Open::Tool {
                                id: id.clone(),
                                name,
                                parent: parent_message_id.clone(),
                            },
                        );
                        id
                    }
                };
                push_content(&event, delta, &mut out, |delta| EventKind::ToolCallArgs {
                    tool_call_id: id.clone(),
                    delta,
                });
            }
            EventKind::ReasoningMessageChunk { message_id, delta } => {
                let continues = match self.lanes.get(&lane) {
                    Some(Open::Reasoning { id }) if message_id.as_ref().is_none_or(|m| m == id) => {
                        Some(id.clone())
                    }
                    _ => None,
                };
                let id = match continues {
                    Some(id) => id,
                    None => {
                        self.close_lane(&lane, &mut out);
                        let Some(id) = message_id.clone() else {
                            return Err(
                                "First REASONING_MESSAGE_CHUNK must have a messageId".into()
                            );
                        };
                        out.push(derived(
                            &event,
                            EventKind::ReasoningMessageStart {
                                message_id: id.clone(),
                                role: ReasoningRole::Reasoning,
                            },
                        ));
                        self.lanes
                            .insert(lane.clone(), Open::Reasoning { id: id.clone() });
                        id
                    }
                };
                push_content(&event, delta, &mut out, |delta| {
                    EventKind::ReasoningMessageContent {
                        message_id: id.clone(),
                        delta,
                    }
                });
            }
            EventKind::Raw { .. }
            | EventKind::ActivitySnapshot { .. }
            | EventKind::ActivityDelta { .. }
            | EventKind::ReasoningEncryptedValue { .. } => out.push(event),
            EventKind::RunFinished { .. } | EventKind::RunError { .. } => {
                let lanes: Vec<_> = self.lanes.keys().cloned().collect();
                for l in lanes {
                    self.close_lane(&l, &mut out);
                }
                out.push(event);
            }
            EventKind::SubagentFinished {
                subagent_run_id, ..
            }
            | EventKind::SubagentError {
                subagent_run_id, ..
            } => {
                self.close_lane(&Some(subagent_run_id.clone()), &mut out);
                out.push(event);
            }
            _ => {
                self.close_lane(&lane, &mut out);
                out.push(event);
            }
        }
        Ok(out)
    }

    /// Whether a chunk item is open in any lane.
    pub fn has_open(&self) -> bool {
        !self.lanes.is_empty()
    }

    fn close_lane(&mut self, lane: &Option<String>, out: &mut Vec<Event>) {
        let Some(open) = self.lanes.remove(lane) else {
            return;
        };
        let kind = match open {
            Open::Text { id, .. } => EventKind::TextMessageEnd { message_id: id },
            Open::Tool { id, .. } => EventKind::ToolCallEnd { tool_call_id: id },
            Open::Reasoning { id } => EventKind::ReasoningMessageEnd { message_id: id },
        };
        let mut end = Event::from(kind);
        end.subagent_run_id = lane.clone();
        out.push(end);
    }
}

/// An event synthesised from a chunk: it keeps the chunk's attribution and timestamp.
fn derived(chunk: &Event, kind: EventKind) -> Event {
    Event {
        kind,
        timestamp: chunk.timestamp,
        raw_event: None,
        metadata: None,
        subagent_run_id: chunk.subagent_run_id.clone(),
    }
}

/// The content event of a chunk. It carries the chunk's metadata and raw event; a chunk with
/// metadata but no delta still yields an empty content event so the metadata is not lost.
fn push_content(
    chunk: &Event,
    delta: &Option<String>,
    out: &mut Vec<Event>,
    make: impl FnOnce(String) -> EventKind,
) {
    if delta.is_none() && chunk.metadata.is_none() {
        return;
    }
    let mut e = derived(chunk, make(delta.clone().unwrap_or_default()));
    e.metadata = chunk.metadata.clone();
    e.raw_event = chunk.raw_event.clone();
    out.push(e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(v: serde_json::Value) -> Event {
        Event::from_value(v).unwrap()
    }

    fn types(events: &[Event]) -> Vec<&'static str> {
        events.iter().map(|e| e.type_name()).collect()
    }

    #[test]
    fn opener_and_continuation_expand_and_terminal_closes() {
        let mut x = ChunkExpander::new();
        let a = x
            .expand(ev(
                json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"}),
            ))
            .unwrap();
        assert_eq!(types(&a), ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]);
        let b = x
            .expand(ev(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "b"})))
            .unwrap();
        assert_eq!(types(&b), ["TEXT_MESSAGE_CONTENT"]);
        let c = x
            .expand(ev(
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
            ))
            .unwrap();
        assert_eq!(types(&c), ["TEXT_MESSAGE_END", "RUN_FINISHED"]);
    }

    #[test]
    fn raw_does_not_close_but_custom_does() {
        let mut x = ChunkExpander::new();
        x.expand(ev(
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f"}),
        ))
        .unwrap();
        let r = x.expand(ev(json!({"type": "RAW", "event": 1}))).unwrap();
        assert_eq!(types(&r), ["RAW"]);
        let c = x
            .expand(ev(json!({"type": "CUSTOM", "name": "n", "value": null})))
            .unwrap();
        assert_eq!(types(&c), ["TOOL_CALL_END", "CUSTOM"]);
        assert!(x
            .expand(ev(json!({"type": "TOOL_CALL_CHUNK", "delta": "{}"})))
            .is_err());
    }

    #[test]
    fn conflicting_continuations_are_fatal() {
        let mut x = ChunkExpander::new();
        x.expand(ev(
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant"}),
        ))
        .unwrap();
        let e = x
            .expand(ev(
                json!({"type": "TEXT_MESSAGE_CHUNK", "role": "user", "delta": "x"}),
            ))
            .unwrap_err();
        assert!(e.contains("does not match the open stream's role"));
        let mut x = ChunkExpander::new();
        x.expand(ev(
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f"}),
        ))
        .unwrap();
        let e = x
            .expand(ev(json!({"type": "TOOL_CALL_CHUNK", "toolCallName": "g"})))
            .unwrap_err();
        assert!(e.contains("does not match the open stream's toolCallName"));
    }

    #[test]
    fn a_new_id_closes_the_previous_item() {
        let mut x = ChunkExpander::new();
        x.expand(ev(
            json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "a"}),
        ))
        .unwrap();
        let out = x
            .expand(ev(
                json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "b"}),
            ))
            .unwrap();
        assert_eq!(
            types(&out),
            [
                "REASONING_MESSAGE_END",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT"
            ]
        );
    }

    #[test]
    fn lanes_are_per_subagent_and_closed_by_their_terminal() {
        let mut x = ChunkExpander::new();
        x.expand(ev(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a", "subagentRunId": "s"})))
            .unwrap();
        let other = x
            .expand(ev(json!({"type": "STEP_STARTED", "stepName": "x"})))
            .unwrap();
        assert_eq!(types(&other), ["STEP_STARTED"]);
        let fin = x
            .expand(ev(
                json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s"}),
            ))
            .unwrap();
        assert_eq!(types(&fin), ["TEXT_MESSAGE_END", "SUBAGENT_FINISHED"]);
        assert_eq!(fin[0].subagent_run_id.as_deref(), Some("s"));
    }
}
