//! The one definition of every AG-UI 1.1 event (31 types) and its wire form.
//!
//! An [`Event`] is its type-specific body ([`EventKind`], tagged by `type`) plus the base
//! fields every event may carry (`timestamp`, `rawEvent`, `metadata`) and, on attributable
//! events, `subagentRunId`. The wire form is one flat JSON object.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::types::tagged::struct_variants;
use super::types::{
    Content, JsonObject, Message, ReasoningRole, RunAgentInput, RunOutcome, SubagentOutcome,
    TextRole, TokenUsage, ToolRole,
};

/// Every event type of AG-UI 1.1, in the schema's order.
pub const EVENT_TYPES: [&str; 31] = [
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "TOOL_CALL_RESULT",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "RAW",
    "CUSTOM",
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "STEP_STARTED",
    "STEP_FINISHED",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "REASONING_ENCRYPTED_VALUE",
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
];

/// Event types that may not carry `subagentRunId` as a base field (run lifecycle and the
/// messages snapshot belong to the run itself; `SUBAGENT_*` carry it as their subject).
pub const UNATTRIBUTABLE: [&str; 7] = [
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "MESSAGES_SNAPSHOT",
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
];

/// One AG-UI event: body plus base fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    /// Milliseconds since the Unix epoch, by convention; informational only.
    pub timestamp: Option<i64>,
    /// The provider-native event this one was translated from. Boxed, as `metadata`: nearly
    /// every event has neither, and an event is moved at every step of its way through a run
    /// (inline, the two took 152 of the event's 360 bytes).
    pub raw_event: Option<Box<Value>>,
    /// Open metadata; merges into what the event builds, key by key, last write wins.
    pub metadata: Option<Box<JsonObject>>,
    /// Attribution to a subagent invocation (attributable events only).
    pub subagent_run_id: Option<String>,
}

impl From<EventKind> for Event {
    fn from(kind: EventKind) -> Self {
        Event {
            kind,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

struct_variants! {
/// The type-specific body of an event. (Parsed through `Value` by its twin `Body`: see
/// [`crate::protocol::types::tagged`].)
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "SCREAMING_SNAKE_CASE",
    rename_all_fields = "camelCase"
)]
pub enum EventKind: tag "type", parsed as Body
    #[serde(rename_all = "SCREAMING_SNAKE_CASE", rename_all_fields = "camelCase")]
{
    // Text messages
    TextMessageStart {
        message_id: String,
        role: Option<TextRole>,
        name: Option<String>,
    },
    TextMessageContent {
        message_id: String,
        delta: String,
    },
    TextMessageEnd {
        message_id: String,
    },
    TextMessageChunk {
        message_id: Option<String>,
        role: Option<TextRole>,
        delta: Option<String>,
        name: Option<String>,
    },
    // Tool calls
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        parent_message_id: Option<String>,
    },
    ToolCallArgs {
        tool_call_id: String,
        delta: String,
    },
    ToolCallEnd {
        tool_call_id: String,
    },
    ToolCallChunk {
        tool_call_id: Option<String>,
        tool_call_name: Option<String>,
        parent_message_id: Option<String>,
        delta: Option<String>,
    },
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        content: Content,
        role: Option<ToolRole>,
    },
    // State, messages, activity
    StateSnapshot {
        /// Any JSON value, including `null`, an array or a scalar.
        snapshot: Value,
    },
    StateDelta {
        /// RFC 6902 operations, kept as open objects (extra members are preserved).
        delta: Vec<Value>,
    },
    MessagesSnapshot {
        messages: Vec<Message>,
    },
    ActivitySnapshot {
        message_id: String,
        activity_type: String,
        content: JsonObject,
        /// Absent means `true`.
        replace: Option<bool>,
    },
    ActivityDelta {
        message_id: String,
        activity_type: String,
        patch: Vec<Value>,
    },
    // Passthrough
    Raw {
        event: Value,
        source: Option<String>,
    },
    Custom {
        name: String,
        value: Value,
    },
    // Lifecycle
    RunStarted {
        thread_id: String,
        run_id: String,
        parent_run_id: Option<String>,
        input: Option<Box<RunAgentInput>>,
        protocol_version: Option<String>,
    },
    RunFinished {
        thread_id: String,
        run_id: String,
        result: Option<Value>,
        outcome: Option<RunOutcome>,
        usage: Option<Vec<TokenUsage>>,
    },
    RunError {
        message: String,
        code: Option<String>,
        usage: Option<Vec<TokenUsage>>,
    },
    StepStarted {
        step_name: String,
    },
    StepFinished {
        step_name: String,
    },
    // Reasoning
    ReasoningStart {
        message_id: String,
    },
    ReasoningMessageStart {
        message_id: String,
        role: ReasoningRole,
    },
    ReasoningMessageContent {
        message_id: String,
        delta: String,
    },
    ReasoningMessageEnd {
        message_id: String,
    },
    ReasoningMessageChunk {
        message_id: Option<String>,
        delta: Option<String>,
    },
    ReasoningEnd {
        message_id: String,
    },
    ReasoningEncryptedValue {
        subtype: EncryptedSubtype,
        entity_id: String,
        encrypted_value: String,
        encrypted_value_type: Option<String>,
    },
    // Subagents
    SubagentStarted {
        subagent_run_id: String,
        name: String,
        description: Option<String>,
        parent_subagent_run_id: Option<String>,
        parent_tool_call_id: Option<String>,
        parent_message_id: Option<String>,
    },
    SubagentFinished {
        subagent_run_id: String,
        result: Option<Value>,
        outcome: Option<SubagentOutcome>,
    },
    SubagentError {
        subagent_run_id: String,
        message: String,
        code: Option<String>,
    },
}
}

/// What a `REASONING_ENCRYPTED_VALUE` attaches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncryptedSubtype {
    ToolCall,
    Message,
}

impl EventKind {
    /// The wire `type` of this event.
    pub fn type_name(&self) -> &'static str {
        use EventKind::*;
        match self {
            TextMessageStart { .. } => "TEXT_MESSAGE_START",
            TextMessageContent { .. } => "TEXT_MESSAGE_CONTENT",
            TextMessageEnd { .. } => "TEXT_MESSAGE_END",
            TextMessageChunk { .. } => "TEXT_MESSAGE_CHUNK",
            ToolCallStart { .. } => "TOOL_CALL_START",
            ToolCallArgs { .. } => "TOOL_CALL_ARGS",
            ToolCallEnd { .. } => "TOOL_CALL_END",
            ToolCallChunk { .. } => "TOOL_CALL_CHUNK",
            ToolCallResult { .. } => "TOOL_CALL_RESULT",
            StateSnapshot { .. } => "STATE_SNAPSHOT",
            StateDelta { .. } => "STATE_DELTA",
            MessagesSnapshot { .. } => "MESSAGES_SNAPSHOT",
            ActivitySnapshot { .. } => "ACTIVITY_SNAPSHOT",
            ActivityDelta { .. } => "ACTIVITY_DELTA",
            Raw { .. } => "RAW",
            Custom { .. } => "CUSTOM",
            RunStarted { .. } => "RUN_STARTED",
            RunFinished { .. } => "RUN_FINISHED",
            RunError { .. } => "RUN_ERROR",
            StepStarted { .. } => "STEP_STARTED",
            StepFinished { .. } => "STEP_FINISHED",
            ReasoningStart { .. } => "REASONING_START",
            ReasoningMessageStart { .. } => "REASONING_MESSAGE_START",
            ReasoningMessageContent { .. } => "REASONING_MESSAGE_CONTENT",
            ReasoningMessageEnd { .. } => "REASONING_MESSAGE_END",
            ReasoningMessageChunk { .. } => "REASONING_MESSAGE_CHUNK",
            ReasoningEnd { .. } => "REASONING_END",
            ReasoningEncryptedValue { .. } => "REASONING_ENCRYPTED_VALUE",
            SubagentStarted { .. } => "SUBAGENT_STARTED",
            SubagentFinished { .. } => "SUBAGENT_FINISHED",
            SubagentError { .. } => "SUBAGENT_ERROR",
        }
    }

    /// A `*_CHUNK` event: a consumer expands it into start, content and end events.
    pub fn is_chunk(&self) -> bool {
        matches!(
            self,
            EventKind::TextMessageChunk { .. }
                | EventKind::ToolCallChunk { .. }
                | EventKind::ReasoningMessageChunk { .. }
        )
    }

    /// Whether the event may carry a base `subagentRunId`.
    pub fn is_attributable(&self) -> bool {
        !UNATTRIBUTABLE.contains(&self.type_name())
    }
}

impl Event {
    pub fn type_name(&self) -> &'static str {
        self.kind.type_name()
    }

    /// Builder: attach metadata.
    pub fn with_metadata(mut self, metadata: JsonObject) -> Self {
        self.metadata = Some(Box::new(metadata));
        self
    }

    /// Builder: attach a timestamp.
    pub fn with_timestamp(mut self, ms: i64) -> Self {
        self.timestamp = Some(ms);
        self
    }
}

#[path = "event/delta_json.rs"]
mod delta_json;
#[path = "event/json.rs"]
mod json;

/// An event is moved at every step of its way through a run (the agent, the verifier, the
/// sink, the thread's conversation): its rare fields are boxed so that it stays small.
#[cfg(test)]
#[test]
fn an_event_is_small() {
    let size = std::mem::size_of::<Event>();
    assert!(size <= 240, "an event takes {size} bytes");
}
