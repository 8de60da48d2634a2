//! Framework quirks the proxy repairs before relaying, so that the conversation our clients
//! build (and the thread we store) is the one the foreign agent meant. Each is legal event by
//! event, but corrupts a conversation reconciled by ids — ours and the official clients' alike
//! (see `docs/proxy.md`, "Framework quirks"):
//!
//! - **Re-used tool-call ids.** A model that numbers its calls per response (`call_0`, a
//!   scripted id) starts a call under an id the thread already has. Reducers then append the new
//!   arguments to the old call and lose the new one. The proxy gives such a call a fresh id
//!   (`ID-2`, `ID-3`, …) for the whole run: its args, end, result, pending list and the
//!   snapshots that name it.
//! - **Re-ided tool results in `MESSAGES_SNAPSHOT`.** `ag-ui-langgraph` streams a tool result as
//!   `TOOL_CALL_RESULT` with `messageId` = the tool call's id, then ends the run with a snapshot
//!   in which that tool message has the id LangGraph gave it. A snapshot is reconciled by id, so
//!   the "new" tool message went to the end of the conversation, after the answer that used it.
//!   The proxy relays the snapshot's messages before that tool message as a snapshot first; the
//!   full snapshot then brings the rest in its own order, under LangGraph's ids (which the next
//!   run must send back, or LangGraph adds the tool message to its state a second time).
//!
//! Everything here is bounded by what the run relays: one entry per tool call started or
//! answered (the run's events are capped by `--max-upstream-events`) plus the input's history.

use std::collections::{HashMap, HashSet};

use crate::protocol::event::{EncryptedSubtype, Event, EventKind};
use crate::protocol::types::{Message, RunAgentInput, RunOutcome};

/// The id bookkeeping of one proxied run.
#[derive(Debug, Default)]
pub(super) struct Quirks {
    /// Every tool-call id the conversation has: the input's and those started in this run.
    taken: HashSet<String>,
    /// Foreign tool-call id → ours, for calls that had to be renamed (the latest start wins).
    renamed: HashMap<String, String>,
    /// Foreign tool-call id → the suffix its next rename tries first: a stream that starts
    /// one id over and over costs one probe per start, not one per earlier start.
    next_suffix: HashMap<String, u64>,
    /// Ids of the input's messages: a snapshot's message with one of these is not the run's.
    input_messages: HashSet<String>,
    /// `toolCallId` (ours) → id of the `TOOL_CALL_RESULT` message this run relayed for it.
    results: HashMap<String, String>,
}

impl Quirks {
    pub(super) fn for_input(input: &RunAgentInput) -> Self {
        let mut q = Quirks::default();
        for m in &input.messages {
            q.input_messages.insert(m.id().to_string());
            if let Message::Assistant(a) = m {
                for tc in a.tool_calls.iter().flatten() {
                    q.taken.insert(tc.id.clone());
                }
            }
        }
        q
    }

    /// Our id for a foreign tool-call id.
    fn ours(&self, foreign: &str) -> String {
        self.renamed
            .get(foreign)
            .cloned()
            .unwrap_or_else(|| foreign.to_string())
    }

    fn map(&self, id: &mut String) {
        if let Some(ours) = self.renamed.get(id.as_str()) {
            *id = ours.clone();
        }
    }

    /// Repair one verified foreign event in place. Returns a line for the log when it changed
    /// something, and an event to relay before this one, if any.
    pub(super) fn repair(&mut self, event: &mut Event) -> (Option<String>, Option<Event>) {
        let log = match &mut event.kind {
            EventKind::ToolCallStart { tool_call_id, .. } => {
                if !self.taken.contains(tool_call_id.as_str()) {
                    self.renamed.remove(tool_call_id.as_str());
                    self.taken.insert(tool_call_id.clone());
                    return (None, None);
                }
                let foreign = tool_call_id.clone();
                let first = self.next_suffix.get(&foreign).copied().unwrap_or(2);
                let (n, fresh) = (first..)
                    .map(|n| (n, format!("{foreign}-{n}")))
                    .find(|(_, c)| !self.taken.contains(c))
                    .unwrap_or_default();
                self.next_suffix.insert(foreign.clone(), n + 1);
                self.taken.insert(fresh.clone());
                self.renamed.insert(foreign.clone(), fresh.clone());
                *tool_call_id = fresh.clone();
                Some(format!(
                    "tool call id {foreign:?} was already used in this conversation; relayed as {fresh:?}"
                ))
            }
            EventKind::ToolCallArgs { tool_call_id, .. }
            | EventKind::ToolCallEnd { tool_call_id } => {
                self.map(tool_call_id);
                None
            }
            EventKind::ToolCallResult {
                tool_call_id,
                message_id,
                ..
            } => {
                self.map(tool_call_id);
                self.results
                    .insert(tool_call_id.clone(), message_id.clone());
                None
            }
            EventKind::ReasoningEncryptedValue {
                subtype: EncryptedSubtype::ToolCall,
                entity_id,
                ..
            } => {
                self.map(entity_id);
                None
            }
            EventKind::SubagentStarted {
                parent_tool_call_id: Some(id),
                ..
            } => {
                self.map(id);
                None
            }
            EventKind::RunFinished {
                outcome: Some(outcome),
                ..
            } => {
                match outcome {
                    RunOutcome::Success {
                        pending_tool_call_ids: Some(ids),
                    } => ids.iter_mut().for_each(|id| self.map(id)),
                    RunOutcome::Interrupt { interrupts } => interrupts
                        .iter_mut()
                        .filter_map(|i| i.tool_call_id.as_mut())
                        .for_each(|id| self.map(id)),
                    _ => {}
                }
                None
            }
            EventKind::MessagesSnapshot { messages } => return self.repair_snapshot(messages),
            _ => None,
        };
        (log, None)
    }

    /// The run's own messages in a snapshot (those the input did not have) name the renamed
    /// calls by our ids. A tool message that answers a call whose result this run relayed
    /// under another id is the LangGraph re-id: the snapshot's messages before it go first, as
    /// a snapshot of their own, so the re-ided message and everything after it are new to a
    /// reconciling client and land in the snapshot's order. Its ids are kept: they are the
    /// ones the framework knows its messages by when the history comes back.
    fn repair_snapshot(&mut self, messages: &mut [Message]) -> (Option<String>, Option<Event>) {
        let present: HashSet<&str> = messages.iter().map(Message::id).collect();
        let mut first_reided = None;
        let mut reided = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            if let Message::Tool(t) = m {
                if self.input_messages.contains(&t.id) {
                    continue;
                }
                let Some(known) = self.results.get(&self.ours(&t.tool_call_id)) else {
                    continue;
                };
                if *known != t.id && !present.contains(known.as_str()) {
                    first_reided.get_or_insert(i);
                    reided.push(format!("{known} → {}", t.id));
                }
            }
        }
        for m in messages.iter_mut() {
            if self.input_messages.contains(m.id()) {
                continue;
            }
            match m {
                Message::Assistant(a) => {
                    for tc in a.tool_calls.iter_mut().flatten() {
                        tc.id = self.ours(&tc.id);
                    }
                }
                Message::Tool(t) => t.tool_call_id = self.ours(&t.tool_call_id),
                _ => {}
            }
        }
        let Some(i) = first_reided else {
            return (None, None);
        };
        let before = Event::from(EventKind::MessagesSnapshot {
            messages: messages[..i].to_vec(),
        });
        let log = format!(
            "MESSAGES_SNAPSHOT gave tool messages the stream had relayed other ids ({}); \
             relayed the {i} messages before them as a snapshot first, to keep the order",
            reided.join(", ")
        );
        (Some(log), Some(before))
    }
}

#[cfg(test)]
mod tests;
