//! The outbound translation AG-UI 1.1 → the named-SSE-event dialect of seed 000 ("API
//! contract"), used by `POST /agent/chat/stream` and `POST /agent/agent/stream`.
//!
//! It is the inverse of the inbound translation in `crate::protocol::dialect` as far as the
//! dialect allows: translating our output back in yields 1.1 events that reduce to the same
//! messages (roles, texts, tool calls and results, reasoning). What the dialect cannot say is
//! lost:
//! - text message ids and boundaries (consecutive assistant messages of the same speaker merge
//!   into one on the way back), `parentMessageId` of tool calls, run ids;
//! - state, activities, messages snapshots, custom and raw events, subagent lifecycle,
//!   `STEP_FINISHED` and encrypted reasoning values, which have no seed-000 equivalent.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::sse;
use crate::protocol::types::RunOutcome;

/// One 1.1 event as a seed-000 named event: its SSE `event:` name and its `data`, or None when
/// the dialect has no equivalent. `thread_id` is the run's thread; every payload carries it.
///
/// `TEXT_MESSAGE_START/END` produce nothing (the dialect streams bare text deltas); chunks are
/// mapped as far as one event can be on its own, but [`Encoder`] expands them first.
pub fn to_named(event: &Event, thread_id: &str) -> Option<(&'static str, Value)> {
    use EventKind as K;
    let t = thread_id;
    Some(match &event.kind {
        K::RunStarted { .. } => ("status", json!({"type": "start", "thread_id": t})),
        K::RunFinished { outcome, .. } => {
            let mut data = json!({"type": "complete", "thread_id": t});
            match outcome {
                Some(RunOutcome::Cancelled) => data["message"] = "cancelled".into(),
                Some(RunOutcome::Interrupt { .. }) => data["message"] = "interrupted".into(),
                _ => {}
            }
            ("status", data)
        }
        K::RunError { message, code, .. } => {
            let mut data = json!({"type": "error", "message": message});
            if let Some(code) = code {
                data["code"] = code.as_str().into();
            }
            data["thread_id"] = t.into();
            ("error", data)
        }
        K::StepStarted { step_name } => (
            "status",
            json!({"type": "running", "message": step_name, "thread_id": t}),
        ),
        K::TextMessageContent { delta, .. } => {
            ("message", json!({"content": delta, "thread_id": t}))
        }
        K::TextMessageChunk {
            delta: Some(delta), ..
        } => ("message", json!({"content": delta, "thread_id": t})),
        K::ToolCallStart {
            tool_call_id,
            tool_call_name,
            ..
        } => (
            "tool_call_start",
            json!({"toolCallId": tool_call_id, "toolCallName": tool_call_name, "thread_id": t}),
        ),
        K::ToolCallArgs {
            tool_call_id,
            delta,
        } => (
            "tool_call_args",
            json!({"toolCallId": tool_call_id, "delta": delta, "thread_id": t}),
        ),
        K::ToolCallEnd { tool_call_id } => (
            "tool_call_end",
            json!({"toolCallId": tool_call_id, "thread_id": t}),
        ),
        // `messageId` is not in the seed's payload, but the inbound translation keeps it when
        // present, so the tool message keeps its id on a round trip.
        K::ToolCallResult {
            message_id,
            tool_call_id,
            content,
            ..
        } => (
            "tool_result",
            json!({"toolCallId": tool_call_id, "content": content.text(), "role": "tool", "messageId": message_id, "thread_id": t}),
        ),
        K::ReasoningStart { message_id } => (
            "reasoning_start",
            json!({"messageId": message_id, "thread_id": t}),
        ),
        K::ReasoningEnd { message_id } => (
            "reasoning_end",
            json!({"messageId": message_id, "thread_id": t}),
        ),
        // The seed labels reasoning messages "assistant" (1.1 says "reasoning").
        K::ReasoningMessageStart { message_id, .. } => (
            "reasoning_message_start",
            json!({"messageId": message_id, "role": "assistant", "thread_id": t}),
        ),
        K::ReasoningMessageContent { message_id, delta }
        | K::ReasoningMessageChunk {
            message_id: Some(message_id),
            delta: Some(delta),
        } => (
            "reasoning_message_content",
            json!({"messageId": message_id, "delta": delta, "thread_id": t}),
        ),
        K::ReasoningMessageEnd { message_id } => (
            "reasoning_message_end",
            json!({"messageId": message_id, "thread_id": t}),
        ),
        _ => return None,
    })
}

/// The encoder of one response: chunks expanded into their triads first (so a chunked tool call
/// still becomes `tool_call_start/args/end`), and the dialect's `agent` field filled on
/// `message` and `tool_call_start` from the text message's `name` or the subagent the event is
/// attributed to.
#[derive(Debug)]
pub struct Encoder {
    thread_id: String,
    chunks: ChunkExpander,
    text_names: HashMap<String, String>,
    subagent_names: HashMap<String, String>,
}

impl Encoder {
    pub fn new(thread_id: impl Into<String>) -> Self {
        Encoder {
            thread_id: thread_id.into(),
            chunks: ChunkExpander::new(),
            text_names: HashMap::new(),
            subagent_names: HashMap::new(),
        }
    }

    /// The named events for one 1.1 event, in order (possibly none).
    pub fn encode(&mut self, event: &Event) -> Vec<(&'static str, Value)> {
        let is_chunk = matches!(
            event.kind,
            EventKind::TextMessageChunk { .. }
                | EventKind::ToolCallChunk { .. }
                | EventKind::ReasoningMessageChunk { .. }
        );
        if !is_chunk && !self.chunks.has_open() {
            return self.encode_one(event).into_iter().collect();
        }
        // A chunk the expander rejects is mapped on its own, as far as that goes.
        let expanded = self
            .chunks
            .expand(event.clone())
            .unwrap_or_else(|_| vec![event.clone()]);
        expanded.iter().filter_map(|e| self.encode_one(e)).collect()
    }

    /// The SSE text for one 1.1 event (None when it has no seed-000 equivalent); the dialect
    /// has no event ids.
    pub fn frames(&mut self, event: &Event) -> Option<String> {
        let out: String = self
            .encode(event)
            .into_iter()
            .map(|(name, data)| sse::encode_event(&data.to_string(), None, Some(name)))
            .collect();
        (!out.is_empty()).then_some(out)
    }

    fn encode_one(&mut self, event: &Event) -> Option<(&'static str, Value)> {
        let sub = event.subagent_run_id.as_ref();
        let text_id = match &event.kind {
            EventKind::TextMessageStart {
                message_id,
                name: Some(name),
                ..
            } => {
                self.text_names.insert(message_id.clone(), name.clone());
                None
            }
            EventKind::TextMessageEnd { message_id } => {
                self.text_names.remove(message_id);
                None
            }
            EventKind::TextMessageContent { message_id, .. } => Some(message_id),
            EventKind::SubagentStarted {
                subagent_run_id,
                name,
                ..
            } => {
                self.subagent_names
                    .insert(subagent_run_id.clone(), name.clone());
                None
            }
            _ => None,
        };
        let (name, mut data) = to_named(event, &self.thread_id)?;
        if name == "message" || name == "tool_call_start" {
            let agent = text_id
                .and_then(|id| self.text_names.get(id))
                .or_else(|| sub.and_then(|s| self.subagent_names.get(s)));
            if let Some(agent) = agent {
                data["agent"] = agent.as_str().into();
            }
        }
        Some((name, data))
    }
}

#[cfg(test)]
mod tests;
