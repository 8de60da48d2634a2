//! The protocol's single reducer: folds verified AG-UI 1.1 events into a [`Conversation`].
//!
//! Used by the server (to persist threads and answer snapshots) and by the browser (to render).
//! Input is assumed enforced, chunk-expanded and verified, but nothing here may panic on any
//! input: anything that cannot be applied becomes a warning and leaves the conversation as it was.

use std::collections::HashMap;

use json_patch::PatchOperation;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::event::{EncryptedSubtype, Event, EventKind};
use super::types::{
    ActivityMessage, AssistantMessage, Content, ContentPart, Interrupt, JsonObject, Message,
    ReasoningMessage, RunAgentInput, RunOutcome, SubagentOutcome, TextPart, TokenUsage, ToolCall,
    ToolMessage,
};

/// `custom_events` keeps only this many (the newest).
const CUSTOM_LIMIT: usize = 256;
/// A stream of broken events must not grow memory without bound.
const WARNING_LIMIT: usize = 1024;

/// Where the current (or last) run stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RunStatus {
    #[default]
    Idle,
    Running {
        run_id: String,
    },
    Finished {
        run_id: String,
        outcome: Option<RunOutcome>,
    },
    Error {
        message: String,
        code: Option<String>,
    },
}

/// One subagent invocation seen in the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentRecord {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub status: SubagentStatus,
    pub parent_tool_call_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SubagentStatus {
    Running,
    Finished,
    Suspended,
    Error(String),
}

/// What one event changed, so a UI can update only that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    None,
    /// A message was inserted at `index` (later ones shifted).
    MessageAdded {
        index: usize,
    },
    /// The message at `index` changed (text, tool call, metadata, result…).
    MessageUpdated {
        index: usize,
    },
    /// Many messages changed (`MESSAGES_SNAPSHOT`; `RUN_STARTED` whose input added messages,
    /// in which case `run` changed too).
    MessagesReset,
    State,
    Run,
    Steps,
    Reasoning,
    Subagents,
    Custom,
    Raw,
}

/// The conversation an event stream builds.
///
/// Mutate `messages` only through [`Conversation::apply`]; after editing it directly, call
/// [`Conversation::reindex`] (stale lookups are detected and repaired, but not every edit is).
#[derive(Debug, Clone)]
pub struct Conversation {
    pub messages: Vec<Message>,
    pub state: Value,
    pub thread_id: Option<String>,
    pub run: RunStatus,
    /// From the last `RUN_FINISHED` with an interrupt outcome; kept across `RUN_STARTED` (the
    /// client needs them to build `resume`) unless that run's input carries `resume`.
    pub pending_interrupts: Vec<Interrupt>,
    /// From the last success outcome; answered ones are removed by `TOOL_CALL_RESULT`.
    pub pending_tool_call_ids: Vec<String>,
    /// The last successful run's result.
    pub result: Option<Value>,
    pub usage: Vec<TokenUsage>,
    /// `(subagentRunId, stepName)` currently running.
    pub active_steps: Vec<(Option<String>, String)>,
    /// Open `REASONING_START` span ids.
    pub reasoning_spans: Vec<String>,
    pub subagents: Vec<SubagentRecord>,
    /// `CUSTOM` name/value pairs in order, the newest 256.
    pub custom_events: Vec<(String, Value)>,
    pub raw_events: usize,
    pub warnings: Vec<String>,
    /// Message id → position; kept exact so deltas are O(1).
    index: HashMap<String, usize>,
    /// Tool call id → id of the assistant message that owns it.
    tool_owner: HashMap<String, String>,
}

impl Default for Conversation {
    fn default() -> Self {
        Conversation {
            messages: Vec::new(),
            state: Value::Object(Map::new()),
            thread_id: None,
            run: RunStatus::Idle,
            pending_interrupts: Vec::new(),
            pending_tool_call_ids: Vec::new(),
            result: None,
            usage: Vec::new(),
            active_steps: Vec::new(),
            reasoning_spans: Vec::new(),
            subagents: Vec::new(),
            custom_events: Vec::new(),
            raw_events: 0,
            warnings: Vec::new(),
            index: HashMap::new(),
            tool_owner: HashMap::new(),
        }
    }
}

/// A reducer step: `Err` is a warning (nothing changed).
type Step = Result<Change, String>;

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
        if self.index.len() != self.messages.len() {
            self.reindex();
        }
        match self.step(event) {
            Ok(change) => change,
            Err(warning) => {
                self.warn(warning);
                Change::None
            }
        }
    }

    fn step(&mut self, event: &Event) -> Step {
        use EventKind as K;
        let meta = event.metadata.as_ref();
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
            } => {
                self.run = RunStatus::Finished {
                    run_id: run_id.clone(),
                    outcome: outcome.clone(),
                };
                self.pending_interrupts.clear();
                self.pending_tool_call_ids.clear();
                self.result = None;
                match outcome {
                    Some(RunOutcome::Interrupt { interrupts }) => {
                        self.pending_interrupts = interrupts.clone()
                    }
                    Some(RunOutcome::Success {
                        pending_tool_call_ids,
                    }) => {
                        self.pending_tool_call_ids =
                            pending_tool_call_ids.clone().unwrap_or_default();
                        self.result = result.clone();
                    }
                    None => self.result = result.clone(),
                    Some(RunOutcome::Cancelled) => {}
                }
                Ok(self.run_ended(usage.as_deref()))
            }
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
            } => Ok(self.tool_call_start(
                tool_call_id,
                tool_call_name,
                parent_message_id.as_deref(),
                meta,
                sub,
            )),
            K::ToolCallArgs {
                tool_call_id,
                delta,
            } => self.edit_tool_call(tool_call_id, meta, |tc| {
                tc.function.arguments.push_str(delta)
            }),
            K::ToolCallEnd { tool_call_id } => self.edit_tool_call(tool_call_id, meta, |_| ()),
            K::ToolCallResult {
                message_id,
                tool_call_id,
                content,
                ..
            } => self.tool_result(message_id, tool_call_id, content, meta, sub),
            K::StateSnapshot { snapshot } => {
                self.state = snapshot.clone();
                Ok(Change::State)
            }
            K::StateDelta { delta } => patch_atomically(&mut self.state, delta, false)
                .map(|()| Change::State)
                .map_err(|e| format!("Failed to apply state patch: {e}")),
            K::MessagesSnapshot { messages } => Ok(self.messages_snapshot(messages)),
            K::ActivitySnapshot {
                message_id,
                activity_type,
                content,
                replace,
            } => {
                let Some(i) = self.locate(message_id) else {
                    let index = self.push_message(Message::Activity(ActivityMessage {
                        id: message_id.clone(),
                        activity_type: activity_type.clone(),
                        content: content.clone(),
                        metadata: meta.filter(|m| !m.is_empty()).cloned(),
                        subagent_run_id: sub.cloned(),
                    }));
                    return Ok(Change::MessageAdded { index });
                };
                let Message::Activity(a) = &mut self.messages[i] else {
                    return Err(not_activity("ACTIVITY_SNAPSHOT", message_id));
                };
                if *replace == Some(false) {
                    return Ok(Change::None);
                }
                a.content = content.clone();
                a.activity_type = activity_type.clone();
                merge(&mut a.metadata, meta);
                Ok(Change::MessageUpdated { index: i })
            }
            K::ActivityDelta {
                message_id,
                activity_type,
                patch,
            } => {
                let Some(i) = self.locate(message_id) else {
                    return Ok(Change::None);
                };
                let Message::Activity(a) = &mut self.messages[i] else {
                    return Err(not_activity("ACTIVITY_DELTA", message_id));
                };
                let mut doc = Value::Object(std::mem::take(&mut a.content));
                let applied = patch_atomically(&mut doc, patch, true);
                // On failure `doc` is the untouched original; on success it is still an object.
                if let Value::Object(content) = doc {
                    a.content = content;
                }
                applied
                    .map_err(|e| format!("Failed to apply activity patch to {message_id}: {e}"))?;
                a.activity_type = activity_type.clone();
                merge(&mut a.metadata, meta);
                Ok(Change::MessageUpdated { index: i })
            }
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
            } => {
                let record = SubagentRecord {
                    id: subagent_run_id.clone(),
                    name: name.clone(),
                    description: description.clone(),
                    status: SubagentStatus::Running,
                    parent_tool_call_id: parent_tool_call_id.clone(),
                };
                match self.subagents.iter_mut().find(|r| r.id == *subagent_run_id) {
                    Some(r) => *r = record,
                    None => self.subagents.push(record),
                }
                Ok(Change::Subagents)
            }
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

    fn run_started(
        &mut self,
        thread_id: &str,
        run_id: &str,
        input: Option<&RunAgentInput>,
    ) -> Change {
        self.thread_id = Some(thread_id.to_string());
        self.run = RunStatus::Running {
            run_id: run_id.to_string(),
        };
        self.pending_tool_call_ids.clear();
        self.result = None;
        let Some(input) = input else {
            return Change::Run;
        };
        if input.resume.is_some() {
            self.pending_interrupts.clear();
        }
        changed(self.append_new(&input.messages) > 0, Change::MessagesReset).or(Change::Run)
    }

    /// Shared tail of `RUN_FINISHED` and `RUN_ERROR`: nothing stays open after a run.
    fn run_ended(&mut self, usage: Option<&[TokenUsage]>) -> Change {
        self.usage.extend(usage.unwrap_or_default().iter().cloned());
        self.active_steps.clear();
        self.reasoning_spans.clear();
        Change::Run
    }

    /// `TEXT_MESSAGE_START` / `REASONING_MESSAGE_START`: create, or reuse an existing id (a
    /// reopened message keeps its content and later deltas append).
    fn open_message(
        &mut self,
        id: &str,
        make: impl FnOnce() -> Message,
        name: Option<&String>,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        let (i, change) = match self.locate(id) {
            Some(i) => (i, Change::MessageUpdated { index: i }),
            None => {
                let i = self.push_message(make());
                (i, Change::MessageAdded { index: i })
            }
        };
        let m = &mut self.messages[i];
        if let Some(name) = name {
            set_name(m, name);
        }
        merge(m.metadata_mut(), meta);
        if let Some(s) = sub {
            *m.subagent_run_id_mut() = Some(s.clone());
        }
        change
    }

    fn append_text(&mut self, id: &str, delta: &str, meta: Option<&JsonObject>) -> Step {
        let i = self.locate(id).ok_or_else(|| no_message(id))?;
        let m = &mut self.messages[i];
        match m {
            Message::Assistant(a) => a.content.get_or_insert_with(String::new).push_str(delta),
            Message::Developer(t) | Message::System(t) => t.content.push_str(delta),
            Message::Reasoning(r) => r.content.push_str(delta),
            Message::User(u) => push_content(&mut u.content, delta),
            Message::Tool(t) => push_content(&mut t.content, delta),
            Message::Activity(_) => return Err(format!("cannot append text to activity {id}")),
        }
        merge(m.metadata_mut(), meta);
        Ok(Change::MessageUpdated { index: i })
    }

    fn tool_call_start(
        &mut self,
        tc_id: &str,
        name: &str,
        parent: Option<&str>,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        if let Some((i, j)) = self.find_tool_call(tc_id) {
            if let Some(tc) = self.tool_call_mut(i, j) {
                tc.function.name = name.to_string();
                merge(&mut tc.metadata, meta);
            }
            return Change::MessageUpdated { index: i };
        }
        let is_assistant = |c: &Self, i: usize| matches!(c.messages[i], Message::Assistant(_));
        let existing = match parent.map(|p| (p, self.locate(p))) {
            Some((_, Some(i))) if is_assistant(self, i) => Some(i),
            Some((p, None)) => return self.new_call_message(p.to_string(), tc_id, name, meta, sub),
            // Absent, or names a non-assistant message: the call gets a message of its own.
            _ => self.locate(tc_id).filter(|&i| is_assistant(self, i)),
        };
        let Some(i) = existing else {
            let id = self.unique_id(tc_id);
            return self.new_call_message(id, tc_id, name, meta, sub);
        };
        self.attach_call(i, tc_id, name, meta);
        Change::MessageUpdated { index: i }
    }

    fn new_call_message(
        &mut self,
        id: String,
        tc_id: &str,
        name: &str,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        let i = self.push_message(Message::Assistant(AssistantMessage {
            id,
            subagent_run_id: sub.cloned(),
            ..Default::default()
        }));
        self.attach_call(i, tc_id, name, meta);
        Change::MessageAdded { index: i }
    }

    fn attach_call(&mut self, i: usize, tc_id: &str, name: &str, meta: Option<&JsonObject>) {
        let mut call = ToolCall::new(tc_id.to_string(), name.to_string());
        merge(&mut call.metadata, meta);
        if let Message::Assistant(a) = &mut self.messages[i] {
            a.tool_calls.get_or_insert_with(Vec::new).push(call);
            self.tool_owner.insert(tc_id.to_string(), a.id.clone());
        }
    }

    fn edit_tool_call(
        &mut self,
        tc_id: &str,
        meta: Option<&JsonObject>,
        edit: impl FnOnce(&mut ToolCall),
    ) -> Step {
        let (i, j) = self
            .find_tool_call(tc_id)
            .ok_or_else(|| format!("no tool call {tc_id}; event ignored"))?;
        if let Some(tc) = self.tool_call_mut(i, j) {
            edit(tc);
            merge(&mut tc.metadata, meta);
        }
        Ok(Change::MessageUpdated { index: i })
    }

    fn tool_result(
        &mut self,
        id: &str,
        tc_id: &str,
        content: &Content,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Step {
        if let Some(i) = self.locate(id) {
            let Message::Tool(t) = &mut self.messages[i] else {
                return Err(format!(
                    "TOOL_CALL_RESULT {id} names a non-tool message; ignored"
                ));
            };
            t.content = content.clone();
            t.tool_call_id = tc_id.to_string();
            merge(&mut t.metadata, meta);
            self.pending_tool_call_ids.retain(|p| p != tc_id);
            return Ok(Change::MessageUpdated { index: i });
        }
        let mut at = self.messages.len();
        if let Some((owner, _)) = self.find_tool_call(tc_id) {
            at = owner + 1;
            while matches!(self.messages.get(at), Some(Message::Tool(_))) {
                at += 1;
            }
        }
        let message = Message::Tool(ToolMessage {
            id: id.to_string(),
            content: content.clone(),
            tool_call_id: tc_id.to_string(),
            error: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: meta.filter(|m| !m.is_empty()).cloned(),
            subagent_run_id: sub.cloned(),
        });
        self.messages.insert(at, message);
        self.index.insert(id.to_string(), at);
        for (k, m) in self.messages.iter().enumerate().skip(at + 1) {
            if let Some(slot) = self.index.get_mut(m.id()) {
                *slot = k;
            }
        }
        self.pending_tool_call_ids.retain(|p| p != tc_id);
        Ok(Change::MessageAdded { index: at })
    }

    /// Reconcile by id: snapshot copies replace local ones in place, new ones append in snapshot
    /// order, the rest are dropped — except client-side activity/reasoning messages when the
    /// snapshot carries none of that role (the agent does not know about them).
    fn messages_snapshot(&mut self, snapshot: &[Message]) -> Change {
        use super::types::Role;
        let has = |role| snapshot.iter().any(|m| m.role() == role);
        let (keep_activity, keep_reasoning) = (!has(Role::Activity), !has(Role::Reasoning));
        // Last occurrence wins when a snapshot repeats an id.
        let mut incoming: HashMap<&str, &Message> = snapshot.iter().map(|m| (m.id(), m)).collect();
        let mut next = Vec::with_capacity(snapshot.len().max(self.messages.len()));
        for local in std::mem::take(&mut self.messages) {
            match incoming.remove(local.id()) {
                Some(m) => next.push(m.clone()),
                None => match local.role() {
                    Role::Activity if keep_activity => next.push(local),
                    Role::Reasoning if keep_reasoning => next.push(local),
                    _ => {}
                },
            }
        }
        for m in snapshot {
            if let Some(m) = incoming.remove(m.id()) {
                next.push(m.clone());
            }
        }
        self.messages = next;
        self.reindex();
        Change::MessagesReset
    }

    fn encrypted_value(
        &mut self,
        subtype: EncryptedSubtype,
        entity: &str,
        value: &str,
        kind: Option<&String>,
    ) -> Step {
        let (i, slots) = match subtype {
            EncryptedSubtype::Message => {
                let Some(i) = self.locate(entity) else {
                    return Ok(Change::None);
                };
                let slots = match &mut self.messages[i] {
                    Message::Developer(m) | Message::System(m) => {
                        (&mut m.encrypted_value, &mut m.encrypted_value_type)
                    }
                    Message::Assistant(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::User(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Tool(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Reasoning(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Activity(_) => {
                        return Err(format!("encrypted value for activity {entity} ignored"))
                    }
                };
                (i, slots)
            }
            EncryptedSubtype::ToolCall => {
                let Some((i, j)) = self.find_tool_call(entity) else {
                    return Ok(Change::None);
                };
                let Some(tc) = self.tool_call_mut(i, j) else {
                    return Ok(Change::None);
                };
                (i, (&mut tc.encrypted_value, &mut tc.encrypted_value_type))
            }
        };
        *slots.0 = Some(value.to_string());
        *slots.1 = kind.cloned();
        Ok(Change::MessageUpdated { index: i })
    }

    fn set_subagent_status(&mut self, id: &str, status: SubagentStatus) -> Step {
        let record = self.subagents.iter_mut().find(|r| r.id == id);
        record
            .ok_or_else(|| format!("unknown subagent {id}"))?
            .status = status;
        Ok(Change::Subagents)
    }

    /// Position of message `id`; a stale entry (after direct edits to `messages`) triggers a
    /// rebuild instead of a wrong answer.
    fn locate(&mut self, id: &str) -> Option<usize> {
        match self.index.get(id) {
            Some(&i) if self.messages.get(i).is_some_and(|m| m.id() == id) => Some(i),
            Some(_) => {
                self.reindex();
                self.index.get(id).copied()
            }
            None => None,
        }
    }

    /// (message position, position in its `toolCalls`) of tool call `tc_id`.
    fn find_tool_call(&mut self, tc_id: &str) -> Option<(usize, usize)> {
        if let Some(found) = self.lookup_tool_call(tc_id) {
            return Some(found);
        }
        if !self.tool_owner.contains_key(tc_id) {
            return None;
        }
        self.reindex();
        self.lookup_tool_call(tc_id)
    }

    fn lookup_tool_call(&self, tc_id: &str) -> Option<(usize, usize)> {
        let owner = self.tool_owner.get(tc_id)?;
        let i = *self.index.get(owner)?;
        let Some(Message::Assistant(a)) = self.messages.get(i) else {
            return None;
        };
        let calls = a.tool_calls.as_ref().filter(|_| a.id == *owner)?;
        Some((i, calls.iter().rposition(|tc| tc.id == tc_id)?))
    }

    fn tool_call_mut(&mut self, i: usize, j: usize) -> Option<&mut ToolCall> {
        match self.messages.get_mut(i)? {
            Message::Assistant(a) => a.tool_calls.as_mut()?.get_mut(j),
            _ => None,
        }
    }

    /// Append the messages whose id is not present yet; returns how many were added.
    fn append_new(&mut self, messages: &[Message]) -> usize {
        let before = self.messages.len();
        for m in messages {
            if !self.index.contains_key(m.id()) {
                self.push_message(m.clone());
            }
        }
        self.messages.len() - before
    }

    fn push_message(&mut self, m: Message) -> usize {
        let i = self.messages.len();
        self.index.insert(m.id().to_string(), i);
        register_tool_calls(&mut self.tool_owner, &m);
        self.messages.push(m);
        i
    }

    /// `base`, or `base-2`, `base-3`… if a message already uses it (ids must stay unique).
    fn unique_id(&self, base: &str) -> String {
        let mut id = base.to_string();
        let mut n = 2;
        while self.index.contains_key(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }

    fn warn(&mut self, warning: String) {
        if self.warnings.len() >= WARNING_LIMIT {
            self.warnings.remove(0);
        }
        self.warnings.push(warning);
    }
}

impl Change {
    fn or(self, other: Change) -> Change {
        if self == Change::None {
            other
        } else {
            self
        }
    }
}

fn changed(did: bool, change: Change) -> Change {
    if did {
        change
    } else {
        Change::None
    }
}

fn no_message(id: &str) -> String {
    format!("no message {id}; event ignored")
}

fn not_activity(event: &str, id: &str) -> String {
    format!("{event} targets {id}, which is not an activity message; ignored")
}

fn register_tool_calls(owner: &mut HashMap<String, String>, m: &Message) {
    if let Message::Assistant(a) = m {
        for tc in a.tool_calls.iter().flatten() {
            owner.insert(tc.id.clone(), a.id.clone());
        }
    }
}

/// Shallow merge: per key, last write wins; an empty object adds nothing.
fn merge(target: &mut Option<JsonObject>, source: Option<&JsonObject>) {
    if let Some(source) = source.filter(|s| !s.is_empty()) {
        let target = target.get_or_insert_with(Map::new);
        for (k, v) in source {
            target.insert(k.clone(), v.clone());
        }
    }
}

fn set_name(m: &mut Message, name: &str) {
    let slot = match m {
        Message::Developer(t) | Message::System(t) => &mut t.name,
        Message::Assistant(a) => &mut a.name,
        Message::User(u) => &mut u.name,
        _ => return,
    };
    *slot = Some(name.to_string());
}

/// Append to text content; multimodal content grows its trailing text part (or gets one).
fn push_content(content: &mut Content, delta: &str) {
    match content {
        Content::Text(s) => s.push_str(delta),
        Content::Parts(parts) => match parts.last_mut() {
            Some(ContentPart::Text(t)) => t.text.push_str(delta),
            _ => parts.push(ContentPart::Text(TextPart {
                text: delta.to_string(),
                id: None,
                metadata: None,
            })),
        },
    }
}

/// Apply RFC 6902 ops all-or-nothing. `json_patch::patch` undoes a failed patch in place, but its
/// undo hits `unreachable!` when a `move` lands on an ancestor of its source, so patches with a
/// `move` (and, for activity content, ones that could replace the root) run on a copy instead.
fn patch_atomically(doc: &mut Value, ops: &[Value], keep_object: bool) -> Result<(), String> {
    let ops = ops
        .iter()
        .map(PatchOperation::deserialize)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let on_copy = ops
        .iter()
        .any(|op| matches!(op, PatchOperation::Move(_)) || (keep_object && op.path().is_root()));
    if !on_copy {
        return json_patch::patch(doc, &ops).map_err(|e| e.to_string());
    }
    let mut copy = doc.clone();
    json_patch::patch_unsafe(&mut copy, &ops).map_err(|e| e.to_string())?;
    if keep_object && !copy.is_object() {
        return Err("the patch would replace the object with a non-object".into());
    }
    *doc = copy;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ev(v: Value) -> Event {
        Event::from_value(v.clone()).unwrap_or_else(|e| panic!("bad test event {v}: {e}"))
    }

    fn feed(c: &mut Conversation, events: Value) -> Vec<Change> {
        let Value::Array(events) = events else {
            panic!("expected an array")
        };
        events.into_iter().map(|e| c.apply(&ev(e))).collect()
    }

    fn conv(events: Value) -> Conversation {
        let mut c = Conversation::new();
        feed(&mut c, events);
        c.assert_consistent();
        c
    }

    fn ids(c: &Conversation) -> Vec<&str> {
        c.messages.iter().map(Message::id).collect()
    }

    fn json_of(c: &Conversation, id: &str) -> Value {
        serde_json::to_value(c.message(id).expect("message")).unwrap()
    }

    impl Conversation {
        fn assert_consistent(&self) {
            assert_eq!(self.index.len(), self.messages.len(), "index size");
            for (i, m) in self.messages.iter().enumerate() {
                assert_eq!(self.index.get(m.id()), Some(&i), "index of {}", m.id());
            }
            for (tc, owner) in &self.tool_owner {
                let Some(Message::Assistant(a)) = self.message(owner) else {
                    panic!("owner {owner} of {tc} is not an assistant message")
                };
                assert!(a.tool_calls.iter().flatten().any(|c| c.id == *tc));
            }
        }
    }

    #[test]
    fn reopened_text_appends_and_metadata_merges_shallowly() {
        let mut c = Conversation::new();
        let changes = feed(
            &mut c,
            json!([
                {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": {"a": 1, "o": {"x": 1}}},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hel"},
                {"type": "TEXT_MESSAGE_END", "messageId": "m", "metadata": {"o": {"y": 2}}},
                {"type": "TEXT_MESSAGE_START", "messageId": "m", "name": "bot", "subagentRunId": "s1"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "lo", "metadata": {"a": 3}},
            ]),
        );
        assert_eq!(changes[0], Change::MessageAdded { index: 0 });
        assert!(changes[1..]
            .iter()
            .all(|c| *c == Change::MessageUpdated { index: 0 }));
        assert_eq!(
            json_of(&c, "m"),
            json!({"role": "assistant", "id": "m", "content": "Hello",
            "name": "bot", "metadata": {"a": 3, "o": {"y": 2}}, "subagentRunId": "s1"})
        );
    }

    #[test]
    fn text_deltas_reach_every_text_role_and_unknown_ids_warn() {
        let mut c = conv(json!([
            {"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "p", "role": "user", "content": [{"type": "text", "text": "a"}]},
                {"id": "i", "role": "user", "content": [{"type": "image",
                    "source": {"type": "url", "value": "https://x/i.png"}}]}]},
            {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "hi"},
            {"type": "TEXT_MESSAGE_START", "messageId": "s", "role": "system"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "s", "delta": "sys"},
            {"type": "TEXT_MESSAGE_START", "messageId": "p", "role": "user"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "p", "delta": "b"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "i", "delta": "caption"},
            {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"},
            {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "hmm"},
            {"type": "REASONING_MESSAGE_END", "messageId": "r", "metadata": {"k": 1}},
        ]));
        assert_eq!(
            json_of(&c, "u"),
            json!({"role": "user", "id": "u", "content": "hi"})
        );
        assert_eq!(
            json_of(&c, "s"),
            json!({"role": "system", "id": "s", "content": "sys"})
        );
        assert_eq!(
            json_of(&c, "p")["content"],
            json!([{"type": "text", "text": "ab"}])
        );
        assert_eq!(
            json_of(&c, "i")["content"][1],
            json!({"type": "text", "text": "caption"})
        );
        assert_eq!(
            json_of(&c, "r"),
            json!({"role": "reasoning", "id": "r", "content": "hmm", "metadata": {"k": 1}})
        );
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let before = c.messages.clone();
        let changes = feed(
            &mut c,
            json!([
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"},
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "u", "delta": "x"},
            ]),
        );
        assert_eq!(changes, [Change::None, Change::None]);
        assert_eq!(c.messages, before);
        assert_eq!(c.warnings.len(), 2);
    }

    #[test]
    fn tool_calls_attach_to_existing_unknown_or_absent_parents() {
        let c = conv(json!([
            {"type": "TEXT_MESSAGE_START", "messageId": "a1"},
            {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f", "parentMessageId": "a1"},
            {"type": "TOOL_CALL_START", "toolCallId": "t2", "toolCallName": "g", "parentMessageId": "ghost"},
            {"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"},
            {"type": "TOOL_CALL_START", "toolCallId": "t3", "toolCallName": "h", "parentMessageId": "u1"},
            {"type": "TOOL_CALL_START", "toolCallId": "t4", "toolCallName": "i", "subagentRunId": "s"},
            {"type": "TEXT_MESSAGE_START", "messageId": "t5", "role": "user"},
            {"type": "TOOL_CALL_START", "toolCallId": "t5", "toolCallName": "j"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "{\"a\":", "metadata": {"k": 1}},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "1}"},
            {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f2", "metadata": {"k": 2}},
            {"type": "TOOL_CALL_END", "toolCallId": "t1", "metadata": {"z": 0}},
        ]));
        assert_eq!(ids(&c), ["a1", "ghost", "u1", "t3", "t4", "t5", "t5-2"]);
        assert_eq!(
            json_of(&c, "a1"),
            json!({"role": "assistant", "id": "a1", "content": "",
            "toolCalls": [{"id": "t1", "type": "function", "function": {"name": "f2",
                "arguments": "{\"a\":1}"}, "metadata": {"k": 2, "z": 0}}]})
        );
        assert_eq!(
            json_of(&c, "ghost"),
            json!({"role": "assistant", "id": "ghost",
            "toolCalls": [{"id": "t2", "type": "function", "function": {"name": "g", "arguments": ""}}]})
        );
        assert_eq!(json_of(&c, "t3")["toolCalls"][0]["id"], "t3");
        assert_eq!(json_of(&c, "t4")["subagentRunId"], "s");
        assert_eq!(json_of(&c, "t5-2")["toolCalls"][0]["id"], "t5");
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn tool_results_follow_their_call_and_earlier_results() {
        let mut c = conv(json!([
            {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f", "parentMessageId": "a"},
            {"type": "TOOL_CALL_START", "toolCallId": "t2", "toolCallName": "f", "parentMessageId": "a"},
            {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                "outcome": {"type": "success", "pendingToolCallIds": ["t1", "t2"]}},
        ]));
        assert_eq!(c.pending_tool_call_ids, ["t1", "t2"]);
        let changes = feed(
            &mut c,
            json!([
                {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "one"},
                {"type": "TOOL_CALL_RESULT", "messageId": "r2", "toolCallId": "t2",
                    "content": [{"type": "text", "text": "two"}], "metadata": {"m": 1}},
                {"type": "TOOL_CALL_RESULT", "messageId": "r3", "toolCallId": "unknown", "content": "x"},
                {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "uno"},
            ]),
        );
        c.assert_consistent();
        assert_eq!(
            changes,
            [
                Change::MessageAdded { index: 1 },
                Change::MessageAdded { index: 2 },
                Change::MessageAdded { index: 4 },
                Change::MessageUpdated { index: 1 }
            ]
        );
        assert_eq!(ids(&c), ["a", "r1", "r2", "u", "r3"]);
        assert_eq!(
            json_of(&c, "r1"),
            json!({"role": "tool", "id": "r1", "content": "uno", "toolCallId": "t1"})
        );
        assert_eq!(json_of(&c, "r2")["metadata"], json!({"m": 1}));
        assert!(c.pending_tool_call_ids.is_empty());
    }

    #[test]
    fn messages_snapshot_reconciles_by_id() {
        let local = json!([
            {"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "a1", "role": "assistant", "content": "x"},
                {"id": "a2", "role": "assistant", "toolCalls": [{"id": "t0", "type": "function",
                    "function": {"name": "f", "arguments": ""}}]}]},
            {"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN", "content": {}},
            {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
        ]);
        let mut c = conv(local.clone());
        let change = c.apply(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "a1", "role": "assistant", "content": "X", "toolCalls": [{"id": "t1",
                "type": "function", "function": {"name": "f", "arguments": ""}}]},
            {"id": "n1", "role": "user", "content": "new"},
            {"id": "u1", "role": "user", "content": "hi!"}]})));
        c.assert_consistent();
        assert_eq!(change, Change::MessagesReset);
        assert_eq!(ids(&c), ["u1", "a1", "act", "r1", "n1"]);
        assert_eq!(json_of(&c, "a1")["content"], "X");
        assert_eq!(json_of(&c, "u1")["content"], "hi!");
        feed(
            &mut c,
            json!([
                {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "{}"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "t0", "delta": "{}"},
            ]),
        );
        assert_eq!(
            json_of(&c, "a1")["toolCalls"][0]["function"]["arguments"],
            "{}"
        );
        assert_eq!(c.warnings.len(), 1, "t0 went away with a2");

        let mut c = conv(local);
        c.apply(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "act2", "role": "activity", "activityType": "PLAN", "content": {}},
            {"id": "r2", "role": "reasoning", "content": "r"},
            {"id": "u1", "role": "user", "content": "hi"}]})));
        c.assert_consistent();
        assert_eq!(ids(&c), ["u1", "act2", "r2"]);
    }

    #[test]
    fn state_snapshot_replaces_with_any_json() {
        let mut c = Conversation::new();
        assert_eq!(c.state, json!({}));
        for v in [
            json!(null),
            json!(0),
            json!([1, 2]),
            json!("s"),
            json!({"a": {"b": 1}}),
        ] {
            let change = c.apply(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": v})));
            assert_eq!((change, &c.state), (Change::State, &v));
        }
    }

    #[test]
    fn state_delta_is_atomic_and_failures_keep_state() {
        let mut c = conv(json!([{"type": "STATE_SNAPSHOT", "snapshot": {"a": {"b": 1}}}]));
        let delta = |ops: Value| ev(json!({"type": "STATE_DELTA", "delta": ops}));
        let good =
            delta(json!([{"op": "add", "path": "/c", "value": [1], "note": "extra member"}]));
        assert_eq!(c.apply(&good), Change::State);
        assert_eq!(c.state, json!({"a": {"b": 1}, "c": [1]}));
        let before = c.state.clone();
        for (n, bad) in [
            json!([{"op": "add", "path": "/d", "value": 1}, {"op": "replace", "path": "/zz/q", "value": 2}]),
            json!([{"op": "move", "from": "/a/b", "path": "/a"}, {"op": "test", "path": "/zz", "value": 0}]),
            json!([{"op": "move", "from": "/c", "path": ""}, {"op": "remove", "path": "/zz"}]),
            json!([{"op": "frobnicate", "path": "/a"}]),
        ].into_iter().enumerate() {
            assert_eq!(c.apply(&delta(bad)), Change::None);
            assert_eq!(c.state, before);
            assert_eq!(c.warnings.len(), n + 1);
            assert!(c.warnings[n].contains("Failed to apply state patch"), "{}", c.warnings[n]);
        }
        c.apply(&delta(
            json!([{"op": "move", "from": "/a/b", "path": "/a"}]),
        ));
        assert_eq!(c.state, json!({"a": 1, "c": [1]}));
    }

    #[test]
    fn activity_snapshots_and_deltas() {
        let snap = |content: Value, replace: Value| {
            ev(
                json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN",
                "content": content, "replace": replace, "metadata": {"n": replace}}),
            )
        };
        let delta = |id: &str, patch: Value| {
            ev(
                json!({"type": "ACTIVITY_DELTA", "messageId": id, "activityType": "PLAN2", "patch": patch}),
            )
        };
        let mut c = Conversation::new();
        assert_eq!(
            c.apply(&snap(json!({"s": 1}), json!(true))),
            Change::MessageAdded { index: 0 }
        );
        assert_eq!(c.apply(&snap(json!({"s": 2}), json!(false))), Change::None);
        assert_eq!(json_of(&c, "act")["content"], json!({"s": 1}));
        c.apply(&snap(json!({"s": 3}), json!(null)));
        assert_eq!(
            json_of(&c, "act"),
            json!({"role": "activity", "id": "act",
            "activityType": "PLAN", "content": {"s": 3}, "metadata": {"n": null}})
        );
        assert_eq!(c.apply(&delta("missing", json!([]))), Change::None);
        assert!(c.warnings.is_empty() && c.messages.len() == 1);
        c.apply(&delta(
            "act",
            json!([{"op": "replace", "path": "/s", "value": 4}]),
        ));
        assert_eq!(json_of(&c, "act")["content"], json!({"s": 4}));
        assert_eq!(json_of(&c, "act")["activityType"], "PLAN2");
        for bad in [
            json!([{"op": "remove", "path": "/nope"}]),
            json!([{"op": "replace", "path": "", "value": [1]}]),
        ] {
            assert_eq!(c.apply(&delta("act", bad)), Change::None);
        }
        assert_eq!(json_of(&c, "act")["content"], json!({"s": 4}));
        feed(
            &mut c,
            json!([{"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}]),
        );
        assert_eq!(c.apply(&delta("u", json!([]))), Change::None);
        assert_eq!(c.warnings.len(), 3);
    }

    #[test]
    fn encrypted_values_land_on_messages_and_tool_calls() {
        let c = conv(json!([
            {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
            {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "a"},
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "u",
                "encryptedValue": "E1", "encryptedValueType": "k1"},
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "t",
                "encryptedValue": "E2"},
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "ghost",
                "encryptedValue": "E3"},
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "ghost",
                "encryptedValue": "E4"},
        ]));
        assert_eq!(json_of(&c, "u")["encryptedValue"], "E1");
        assert_eq!(json_of(&c, "u")["encryptedValueType"], "k1");
        assert_eq!(json_of(&c, "a")["toolCalls"][0]["encryptedValue"], "E2");
        assert!(json_of(&c, "a").get("encryptedValue").is_none());
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn run_outcomes_drive_interrupts_results_and_usage() {
        let started = |run: &str, resume: bool| {
            let mut input = json!({"threadId": "th", "runId": run, "messages": []});
            if resume {
                input["resume"] = json!([{"interruptId": "i1", "status": "resolved"}]);
            }
            ev(json!({"type": "RUN_STARTED", "threadId": "th", "runId": run, "input": input}))
        };
        let finished = |outcome: Value, result: Value| {
            let mut e = json!({"type": "RUN_FINISHED", "threadId": "th", "runId": "r", "result": result,
                "usage": [{"model": "m", "inputTokens": 3}]});
            if !outcome.is_null() {
                e["outcome"] = outcome;
            }
            ev(e)
        };
        let mut c = Conversation::new();
        assert_eq!(c.apply(&started("r1", false)), Change::Run);
        assert!(c.is_running() && c.thread_id.as_deref() == Some("th"));
        feed(
            &mut c,
            json!([{"type": "STEP_STARTED", "stepName": "s"},
            {"type": "REASONING_START", "messageId": "sp"}]),
        );
        c.apply(&finished(
            json!({"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirmation"}]}),
            json!(1),
        ));
        assert_eq!(c.pending_interrupts.len(), 1);
        assert_eq!(c.result, None);
        assert!(c.active_steps.is_empty() && c.reasoning_spans.is_empty());
        assert!(matches!(
            &c.run,
            RunStatus::Finished {
                outcome: Some(RunOutcome::Interrupt { .. }),
                ..
            }
        ));
        c.apply(&started("r2", false));
        assert_eq!(
            c.pending_interrupts.len(),
            1,
            "kept until a run resumes them"
        );
        c.apply(&ev(
            json!({"type": "RUN_ERROR", "message": "boom", "code": "E", "usage": [{}]}),
        ));
        assert_eq!(
            c.run,
            RunStatus::Error {
                message: "boom".into(),
                code: Some("E".into())
            }
        );
        assert_eq!(c.pending_interrupts.len(), 1);
        c.apply(&started("r3", true));
        assert!(c.pending_interrupts.is_empty());
        c.apply(&finished(
            json!({"type": "success", "pendingToolCallIds": ["t"]}),
            json!({"ok": 1}),
        ));
        assert_eq!(
            (c.pending_tool_call_ids.clone(), c.result.clone()),
            (vec!["t".into()], Some(json!({"ok": 1})))
        );
        c.apply(&started("r4", false));
        assert!(c.pending_tool_call_ids.is_empty() && c.result.is_none());
        c.apply(&finished(Value::Null, json!("done")));
        assert_eq!(c.result, Some(json!("done")));
        c.apply(&started("r5", false));
        c.apply(&finished(json!({"type": "cancelled"}), json!("x")));
        assert_eq!(c.result, None);
        assert_eq!(c.usage.len(), 5);
    }

    #[test]
    fn from_input_and_run_started_input_append_only_new_messages() {
        let input: RunAgentInput = serde_json::from_value(json!({"threadId": "th", "runId": "r",
            "state": {"s": 1}, "messages": [
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "a1", "role": "assistant", "toolCalls": [{"id": "t1", "type": "function",
                    "function": {"name": "f", "arguments": "{}"}}]},
                {"id": "u2", "role": "user", "content": "later"}]}))
        .unwrap();
        let mut c = Conversation::from_input(&input);
        assert_eq!(
            (c.thread_id.as_deref(), &c.state, c.run.clone()),
            (Some("th"), &json!({"s": 1}), RunStatus::Idle)
        );
        assert_eq!(
            c.messages_json(),
            serde_json::to_value(&input.messages).unwrap()
        );
        c.apply(&ev(json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "ok"})));
        assert_eq!(ids(&c), ["u1", "a1", "r1", "u2"]);
        let mut input2 = json!({"threadId": "th", "runId": "r2", "messages": [
            {"id": "u1", "role": "user", "content": "changed?"}, {"id": "u3", "role": "user", "content": "new"}]});
        let run = |input: &Value| {
            ev(json!({"type": "RUN_STARTED", "threadId": "th", "runId": "r2", "input": input}))
        };
        assert_eq!(c.apply(&run(&input2)), Change::MessagesReset);
        assert_eq!(ids(&c), ["u1", "a1", "r1", "u2", "u3"]);
        assert_eq!(json_of(&c, "u1")["content"], "hi");
        input2["messages"] = json!([]);
        assert_eq!(c.apply(&run(&input2)), Change::Run);
        c.assert_consistent();
    }

    #[test]
    fn steps_spans_subagents_custom_and_raw() {
        let mut c = Conversation::new();
        let changes = feed(
            &mut c,
            json!([
                {"type": "STEP_STARTED", "stepName": "plan"},
                {"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": "s1"},
                {"type": "STEP_FINISHED", "stepName": "plan"},
                {"type": "REASONING_START", "messageId": "sp"},
                {"type": "REASONING_END", "messageId": "sp"},
                {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n", "parentToolCallId": "t"},
                {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "m"},
                {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "suspended"}},
                {"type": "SUBAGENT_ERROR", "subagentRunId": "s2", "message": "bad"},
                {"type": "SUBAGENT_ERROR", "subagentRunId": "s9", "message": "who"},
                {"type": "RAW", "event": {"x": 1}},
            ]),
        );
        use Change::*;
        assert_eq!(
            changes,
            [
                Steps, Steps, Steps, Reasoning, Reasoning, Subagents, Subagents, Subagents,
                Subagents, None, Raw
            ]
        );
        assert_eq!(
            c.active_steps,
            [(Some("s1".to_string()), "plan".to_string())]
        );
        assert_eq!(c.subagents[0].status, SubagentStatus::Suspended);
        assert_eq!(c.subagents[0].parent_tool_call_id.as_deref(), Some("t"));
        assert_eq!(c.subagents[1].status, SubagentStatus::Error("bad".into()));
        assert_eq!((c.raw_events, c.warnings.len()), (1, 1));
        for n in 0..300 {
            c.apply(&ev(json!({"type": "CUSTOM", "name": "c", "value": n})));
        }
        assert_eq!(c.custom_events.len(), 256);
        assert_eq!(c.custom_events[0], ("c".to_string(), json!(44)));
    }

    #[test]
    fn direct_edits_to_messages_are_repaired() {
        let mut c = conv(json!([
            {"type": "TEXT_MESSAGE_START", "messageId": "a"},
            {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "b"},
        ]));
        c.messages.remove(0);
        c.apply(&ev(
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "x"}),
        ));
        c.assert_consistent();
        assert_eq!(
            json_of(&c, "b")["toolCalls"][0]["function"]["arguments"],
            "x"
        );
    }

    #[test]
    fn many_deltas_append_in_linear_time() {
        let mut c = conv(json!([{"type": "TEXT_MESSAGE_START", "messageId": "m"},
            {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "m"}]));
        let text = ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "ab"}));
        let args = ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "cd"}));
        for _ in 0..200_000 {
            c.apply(&text);
            c.apply(&args);
        }
        let Some(Message::Assistant(a)) = c.message("m") else {
            panic!()
        };
        assert_eq!(a.content.as_ref().map(String::len), Some(400_000));
        assert_eq!(
            a.tool_calls.as_ref().unwrap()[0].function.arguments.len(),
            400_000
        );
    }

    const POOL: [&str; 4] = ["a", "b", "c", "d"];

    fn random_patch(ops: &[(u8, u8, u8)]) -> Value {
        const PATHS: [&str; 7] = ["", "/a", "/a/b", "/arr/-", "/arr/0", "/x", "bad"];
        const OPS: [&str; 7] = ["add", "remove", "replace", "move", "copy", "test", "nope"];
        let op = |&(o, p, f): &(u8, u8, u8)| {
            let value = if p % 2 == 0 {
                json!({"b": [1]})
            } else {
                json!(1)
            };
            json!({"op": OPS[o as usize % 7], "path": PATHS[p as usize % 7],
                "from": PATHS[f as usize % 7], "value": value})
        };
        Value::Array(ops.iter().map(op).collect())
    }

    fn random_messages(a: u8, b: u8, s: &str) -> Value {
        let mut out = Vec::new();
        for k in 0..4 {
            if a & (1 << k) == 0 {
                continue;
            }
            let id = POOL[k];
            let tc = POOL[(k + b as usize) % 4];
            out.push(match (b >> k) % 5 {
                0 => json!({"id": id, "role": "user", "content": s}),
                1 => json!({"id": id, "role": "assistant", "toolCalls": [{"id": tc,
                    "type": "function", "function": {"name": "f", "arguments": ""}}]}),
                2 => json!({"id": id, "role": "tool", "content": s, "toolCallId": tc}),
                3 => json!({"id": id, "role": "activity", "activityType": s, "content": {}}),
                _ => json!({"id": id, "role": "reasoning", "content": s}),
            });
        }
        if a & 16 != 0 && !out.is_empty() {
            out.push(out[0].clone());
        }
        Value::Array(out)
    }

    fn pick<T: Clone>(items: &[T], n: u8) -> T {
        items[n as usize % items.len()].clone()
    }

    fn random_event(k: u8, a: u8, b: u8, s: &str, ops: &[(u8, u8, u8)]) -> Event {
        let (x, y) = (POOL[a as usize % 4], POOL[b as usize % 4]);
        let mut e = match k % 31 {
            0 => json!({"type": "TEXT_MESSAGE_START", "messageId": x,
                "role": pick(&["assistant", "user", "system", "developer"], b)}),
            1 => json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": x, "delta": s}),
            2 => json!({"type": "TEXT_MESSAGE_END", "messageId": x}),
            3 => {
                json!({"type": "TOOL_CALL_START", "toolCallId": x, "toolCallName": s, "parentMessageId": y})
            }
            4 => json!({"type": "TOOL_CALL_START", "toolCallId": x, "toolCallName": s}),
            5 => json!({"type": "TOOL_CALL_ARGS", "toolCallId": x, "delta": s}),
            6 => json!({"type": "TOOL_CALL_END", "toolCallId": x}),
            7 => json!({"type": "TOOL_CALL_RESULT", "messageId": x, "toolCallId": y,
                "content": if b.is_multiple_of(2) { json!(s) } else { json!([{"type": "text", "text": s}]) }}),
            8 => json!({"type": "STATE_SNAPSHOT", "snapshot":
                pick(&[json!(null), json!(0), json!([1]), json!({"a": {"b": [1]}, "arr": []})], b)}),
            9 => json!({"type": "STATE_DELTA", "delta": random_patch(ops)}),
            10 => json!({"type": "MESSAGES_SNAPSHOT", "messages": random_messages(a, b, s)}),
            11 => json!({"type": "ACTIVITY_SNAPSHOT", "messageId": x, "activityType": s,
                "content": {"a": {"b": [1]}}, "replace": pick(&[json!(null), json!(true), json!(false)], b)}),
            12 => {
                json!({"type": "ACTIVITY_DELTA", "messageId": x, "activityType": s, "patch": random_patch(ops)})
            }
            13 => json!({"type": "REASONING_START", "messageId": x}),
            14 => json!({"type": "REASONING_END", "messageId": x}),
            15 => json!({"type": "REASONING_MESSAGE_START", "messageId": x, "role": "reasoning"}),
            16 => json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": x, "delta": s}),
            17 => json!({"type": "REASONING_MESSAGE_END", "messageId": x}),
            18 => {
                json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": pick(&["message", "tool-call"], b),
                "entityId": x, "encryptedValue": s})
            }
            19 => {
                let mut input =
                    json!({"threadId": "t", "runId": s, "messages": random_messages(a, b, s)});
                if b % 2 == 1 {
                    input["resume"] = json!([{"interruptId": x, "status": "resolved"}]);
                }
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": s, "input": input})
            }
            20 => {
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": s, "result": s, "outcome": pick(&[
                json!(null), json!({"type": "success", "pendingToolCallIds": [x]}),
                json!({"type": "interrupt", "interrupts": [{"id": x, "reason": "confirmation"}]}),
                json!({"type": "cancelled"})], b)})
            }
            21 => json!({"type": "RUN_ERROR", "message": s}),
            22 => json!({"type": "STEP_STARTED", "stepName": x}),
            23 => json!({"type": "STEP_FINISHED", "stepName": x}),
            24 => json!({"type": "SUBAGENT_STARTED", "subagentRunId": x, "name": s}),
            25 => json!({"type": "SUBAGENT_FINISHED", "subagentRunId": x,
                "outcome": {"type": pick(&["success", "suspended"], b)}}),
            26 => json!({"type": "SUBAGENT_ERROR", "subagentRunId": x, "message": s}),
            27 => json!({"type": "CUSTOM", "name": s, "value": b}),
            28 => json!({"type": "RAW", "event": s}),
            29 => json!({"type": "TOOL_CALL_CHUNK", "toolCallId": x, "delta": s}),
            _ => json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": x, "delta": s}),
        };
        if a.is_multiple_of(3) {
            e["metadata"] = json!({"k": s, "n": b});
        }
        if b.is_multiple_of(3) && e.get("subagentRunId").is_none() {
            e["subagentRunId"] = json!(y);
        }
        ev(e)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn random_streams_never_panic_and_keep_the_index_exact(
            events in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), "[ab]{0,3}",
                proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..5)), 0..80)
        ) {
            let mut c = Conversation::new();
            c.state = json!({"a": {"b": [1]}, "arr": []});
            for (k, a, b, s, ops) in &events {
                c.apply(&random_event(*k, *a, *b, s, ops));
                c.assert_consistent();
                prop_assert!(c.custom_events.len() <= CUSTOM_LIMIT);
            }
        }
    }
}
