//! AG-UI 1.1 data types other than events: messages and their content parts, tool calls, tools,
//! context, interrupts, resume entries, run outcomes, token usage and `RunAgentInput`.
//!
//! Wire form (normative): camelCase fields, absent optional fields omitted (never `null`), nulls
//! inside open payloads (state, metadata, `forwardedProps`, …) preserved as data.

use serde_json::{Map, Value};

mod content;
mod input;
mod message;
mod outcome;
pub(crate) mod tagged;
mod tool;

pub use content::{Content, ContentPart, MediaPart, PartSource, TextPart, CONTENT_PART_TYPES};
pub use input::RunAgentInput;
pub use message::{
    ActivityMessage, AssistantMessage, Message, ReasoningMessage, ReasoningRole, Role, TextMessage,
    TextRole, ToolMessage, ToolRole, UserMessage,
};
pub use outcome::{
    Interrupt, ResumeEntry, ResumeStatus, RunOutcome, SubagentOutcome, TokenUsage,
    RUN_OUTCOME_TYPES, SUBAGENT_OUTCOME_TYPES,
};
pub use tool::{Context, FunctionCall, FunctionKind, Tool, ToolCall};

/// An open JSON object (`metadata`, activity content, a carried JSON Schema).
pub type JsonObject = Map<String, Value>;

/// The protocol version this crate implements and declares in `RUN_STARTED`.
pub const PROTOCOL_VERSION: &str = "1.1";

#[cfg(test)]
mod tests;
