//! The protocol's single reducer: folds verified AG-UI 1.1 events into a [`Conversation`].
//!
//! Used by the server (to persist threads and answer snapshots) and by the browser (to render).
//! Input is assumed enforced, chunk-expanded and verified, but nothing here may panic on any
//! input: anything that cannot be applied becomes a warning and leaves the conversation as it was.
//!
//! Layout: `model` holds the types; this file holds [`Conversation::apply`], which dispatches each event to
//! the part that owns it: `runs` (run lifecycle and subagents), `messages` (text, reasoning,
//! snapshots, encrypted values), `tool_calls`, `state` (state and activity patches); `index`
//! keeps the id lookups every part relies on exact.

mod index;
mod messages;
mod model;
mod patch;
mod runs;
mod state;
mod tool_calls;

use serde_json::Value;

use super::dialect::RENDER_HINT_CUSTOM_NAME;
use super::event::{Event, EventKind};
use super::types::{Message, ReasoningMessage, RunAgentInput, SubagentOutcome};

use index::register_tool_calls;
use messages::no_message;
use model::{changed, merge, Step, CUSTOM_LIMIT, RENDER_HINT_LIMIT, WARNING_LIMIT};
pub use model::{
    Change, Conversation, PlacedHint, Refused, RunStatus, SubagentRecord, SubagentStatus,
    STATE_LIMIT,
};

impl Conversation {
    pub fn new() -> Self {
        Self::default()
    }

    /// Start from a `RunAgentInput`'s messages and state (the conversation the run continues).
    pub fn from_input(input: &RunAgentInput) -> Self {
        let mut c = Self::new();
        c.thread_id = Some(input.thread_id.clone());
        c.state = input.state.clone();
        c.append_new(&input.messages);
        c
    }

    pub fn message(&self, id: &str) -> Option<&Message> {
        match self.index.get(id).and_then(|&i| self.messages.get(i)) {
            Some(m) if m.id() == id => Some(m),
            _ => self.messages.iter().find(|m| m.id() == id),
        }
    }

    /// The messages as their wire JSON array.
    pub fn messages_json(&self) -> Value {
        Value::Array(
            self.messages
                .iter()
                .filter_map(|m| serde_json::to_value(m).ok())
                .collect(),
        )
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, RunStatus::Running { .. })
    }

    /// Rebuild the private lookups after `messages` was edited directly. Ids must be unique, so
    /// later duplicates are dropped (with a warning).
    pub fn reindex(&mut self) {
        self.index.clear();
        self.tool_owner.clear();
        let mut dropped = Vec::new();
        let mut kept = Vec::with_capacity(self.messages.len());
        for m in std::mem::take(&mut self.messages) {
            if self.index.contains_key(m.id()) {
                dropped.push(m.id().to_string());
                continue;
            }
            self.index.insert(m.id().to_string(), kept.len());
            register_tool_calls(&mut self.tool_owner, &m);
            kept.push(m);
        }
        self.messages = kept;
        for id in dropped {
            self.warn(format!("dropped a duplicate message with id {id}"));
        }
    }

    /// Fold one event in. Never panics; what cannot be applied is pushed to `warnings` and
    /// reported as [`Change::None`].
    pub fn apply(&mut self, event: &Event) -> Change {
        match self.apply_checked(event) {
            Ok(change) => change,
            Err(refused) => {
                self.warn(refused.message);
                Change::None
            }
        }
    }

    /// [`Conversation::apply`], except that an event refused because it would pass a bound
    /// (the state limits) is returned as [`Refused`] instead of becoming a warning. Either way
    /// the conversation is as before the event. Never panics.
    pub fn apply_checked(&mut self, event: &Event) -> Result<Change, Refused> {
        if self.index.len() != self.messages.len() {
            self.reindex();
        }
        self.refused = None;
        match self.step(event) {
            Ok(change) => Ok(change),
            Err(warning) => match self.refused.take() {
                Some(refused) => Err(refused),
                None => {
                    self.warn(warning);
                    Ok(Change::None)
                }
            },
        }
    }

    fn step(&mut self, event: &Event) -> Step {
        use EventKind as K;
        let meta = event.metadata.as_deref();
        let sub = event.subagent_run_id.as_ref();
        match &event.kind {
            K::RunStarted {
                thread_id,
                run_id,
                input,
                ..
            } => Ok(self.run_started(thread_id, run_id, input.as_deref())),
            K::RunFinished {
                run_id,
                result,
                outcome,
                usage,
                ..
            } => Ok(self.run_finished(run_id, result.as_ref(), outcome.as_ref(), usage.as_deref())),
            K::RunError {
                message,
                code,
                usage,
            } => {
                self.run = RunStatus::Error {
                    message: message.clone(),
                    code: code.clone(),
                };
                Ok(self.run_ended(usage.as_deref()))
            }
            K::TextMessageStart {
                message_id,
                role,
                name,
            } => {
                let make = || {
                    Message::new_text(role.unwrap_or_default(), message_id.clone(), name.clone())
                };
                Ok(self.open_message(message_id, make, name.as_ref(), meta, sub))
            }
            K::ReasoningMessageStart { message_id, .. } => {
                let make = || {
                    Message::Reasoning(ReasoningMessage {
                        id: message_id.clone(),
                        ..Default::default()
                    })
                };
                Ok(self.open_message(message_id, make, None, meta, sub))
            }
            K::TextMessageContent { message_id, delta }
            | K::ReasoningMessageContent { message_id, delta } => {
                self.append_text(message_id, delta, meta)
            }
            K::TextMessageEnd { message_id } | K::ReasoningMessageEnd { message_id } => {
                let i = self
                    .locate(message_id)
                    .ok_or_else(|| no_message(message_id))?;
                merge(self.messages[i].metadata_mut(), meta);
                Ok(Change::MessageUpdated { index: i })
            }
            K::ToolCallStart {
                tool_call_id,
                tool_call_name,
                parent_message_id,
            } => {
                self.open_tool_calls.insert(tool_call_id.clone());
                Ok(self.tool_call_start(
                    tool_call_id,
                    tool_call_name,
                    parent_message_id.as_deref(),
                    meta,
                    sub,
                ))
            }
            K::ToolCallArgs {
                tool_call_id,
                delta,
            } => self.edit_tool_call(tool_call_id, meta, |tc| {
                tc.function.arguments.push_str(delta)
            }),
            K::ToolCallEnd { tool_call_id } => {
                self.open_tool_calls.remove(tool_call_id);
                self.edit_tool_call(tool_call_id, meta, |_| ())
            }
            K::ToolCallResult {
                message_id,
                tool_call_id,
                content,
                ..
            } => self.tool_result(message_id, tool_call_id, content, meta, sub),
            K::StateSnapshot { snapshot } => self.state_snapshot(snapshot),
            K::StateDelta { delta } => self.state_delta(delta),
            K::MessagesSnapshot { messages } => Ok(self.messages_snapshot(messages)),
            K::ActivitySnapshot {
                message_id,
                activity_type,
                content,
                replace,
            } => self.activity_snapshot(message_id, activity_type, content, *replace, meta, sub),
            K::ActivityDelta {
                message_id,
                activity_type,
                patch,
            } => self.activity_delta(message_id, activity_type, patch, meta),
            K::ReasoningStart { message_id } => {
                if self.reasoning_spans.contains(message_id) {
                    return Ok(Change::None);
                }
                self.reasoning_spans.push(message_id.clone());
                Ok(Change::Reasoning)
            }
            K::ReasoningEnd { message_id } => {
                let before = self.reasoning_spans.len();
                self.reasoning_spans.retain(|s| s != message_id);
                Ok(changed(
                    before != self.reasoning_spans.len(),
                    Change::Reasoning,
                ))
            }
            K::ReasoningEncryptedValue {
                subtype,
                entity_id,
                encrypted_value,
                encrypted_value_type,
            } => self.encrypted_value(
                *subtype,
                entity_id,
                encrypted_value,
                encrypted_value_type.as_ref(),
            ),
            K::StepStarted { step_name } => {
                let key = (sub.cloned(), step_name.clone());
                if self.active_steps.contains(&key) {
                    return Ok(Change::None);
                }
                self.active_steps.push(key);
                Ok(Change::Steps)
            }
            K::StepFinished { step_name } => {
                let found = self
                    .active_steps
                    .iter()
                    .position(|(s, n)| s.as_ref() == sub && n == step_name);
                if let Some(p) = found {
                    self.active_steps.remove(p);
                }
                Ok(changed(found.is_some(), Change::Steps))
            }
            K::SubagentStarted {
                subagent_run_id,
                name,
                description,
                parent_tool_call_id,
                ..
            } => Ok(self.subagent_started(
                subagent_run_id,
                name,
                description.as_ref(),
                parent_tool_call_id.as_ref(),
            )),
            K::SubagentFinished {
                subagent_run_id,
                outcome,
                ..
            } => {
                let status = match outcome {
                    Some(SubagentOutcome::Suspended { .. }) => SubagentStatus::Suspended,
                    _ => SubagentStatus::Finished,
                };
                self.set_subagent_status(subagent_run_id, status)
            }
            K::SubagentError {
                subagent_run_id,
                message,
                ..
            } => self.set_subagent_status(subagent_run_id, SubagentStatus::Error(message.clone())),
            K::Custom { name, value } => {
                if name == RENDER_HINT_CUSTOM_NAME {
                    let run_id = match &self.run {
                        RunStatus::Running { run_id } => Some(run_id.clone()),
                        _ => None,
                    };
                    self.render_hints.push(PlacedHint::from_value(
                        value,
                        self.messages.len(),
                        run_id,
                    ));
                    if self.render_hints.len() > RENDER_HINT_LIMIT {
                        let excess = self.render_hints.len() - RENDER_HINT_LIMIT;
                        self.render_hints.drain(..excess);
                    }
                }
                self.custom_events.push((name.clone(), value.clone()));
                if self.custom_events.len() > CUSTOM_LIMIT {
                    let excess = self.custom_events.len() - CUSTOM_LIMIT;
                    self.custom_events.drain(..excess);
                }
                Ok(Change::Custom)
            }
            K::Raw { .. } => {
                self.raw_events += 1;
                Ok(Change::Raw)
            }
            K::TextMessageChunk { .. }
            | K::ToolCallChunk { .. }
            | K::ReasoningMessageChunk { .. } => Err(format!(
                "{} reached the reducer unexpanded; ignored",
                event.type_name()
            )),
        }
    }

    fn warn(&mut self, warning: String) {
        if self.warnings.len() >= WARNING_LIMIT {
            self.warnings.remove(0);
        }
        self.warnings.push(warning);
    }
}

#[cfg(test)]
mod tests;
