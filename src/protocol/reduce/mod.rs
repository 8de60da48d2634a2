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
mod tests;
