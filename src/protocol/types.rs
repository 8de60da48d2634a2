//! AG-UI 1.1 data types other than events: messages and their content parts, tool calls, tools,
//! context, interrupts, resume entries, run outcomes, token usage and `RunAgentInput`.
//!
//! Wire form (normative): camelCase fields, absent optional fields omitted (never `null`), nulls
//! inside open payloads (state, metadata, `forwardedProps`, …) preserved as data.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use serde_with::skip_serializing_none;

/// An open JSON object (`metadata`, activity content, a carried JSON Schema).
pub type JsonObject = Map<String, Value>;

/// The protocol version this crate implements and declares in `RUN_STARTED`.
pub const PROTOCOL_VERSION: &str = "1.1";

/// A message of any of the seven roles, discriminated by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    Developer(TextMessage),
    System(TextMessage),
    Assistant(AssistantMessage),
    User(UserMessage),
    Tool(ToolMessage),
    Activity(ActivityMessage),
    Reasoning(ReasoningMessage),
}

/// A `developer` or `system` message: plain text content.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextMessage {
    pub id: String,
    pub content: String,
    pub name: Option<String>,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub id: String,
    pub content: Option<String>,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub name: Option<String>,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub id: String,
    pub content: Content,
    pub name: Option<String>,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolMessage {
    pub id: String,
    pub content: Content,
    pub tool_call_id: String,
    pub error: Option<String>,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

/// Client-side only: built from `ACTIVITY_*` events and never sent back to an agent.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityMessage {
    pub id: String,
    pub activity_type: String,
    pub content: JsonObject,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningMessage {
    pub id: String,
    pub content: String,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

/// The seven message roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Developer,
    System,
    Assistant,
    User,
    Tool,
    Activity,
    Reasoning,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Developer => "developer",
            Role::System => "system",
            Role::Assistant => "assistant",
            Role::User => "user",
            Role::Tool => "tool",
            Role::Activity => "activity",
            Role::Reasoning => "reasoning",
        }
    }
}

/// The roles a text message (`TEXT_MESSAGE_START`) may carry; never `tool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextRole {
    Developer,
    System,
    #[default]
    Assistant,
    User,
}

/// A one-value enum: `REASONING_MESSAGE_START.role` must be `"reasoning"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningRole {
    #[default]
    Reasoning,
}

/// A one-value enum: `TOOL_CALL_RESULT.role`, when present, must be `"tool"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolRole {
    #[default]
    Tool,
}

impl Message {
    pub fn id(&self) -> &str {
        match self {
            Message::Developer(m) | Message::System(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
            Message::Reasoning(m) => &m.id,
        }
    }

    pub fn role(&self) -> Role {
        match self {
            Message::Developer(_) => Role::Developer,
            Message::System(_) => Role::System,
            Message::Assistant(_) => Role::Assistant,
            Message::User(_) => Role::User,
            Message::Tool(_) => Role::Tool,
            Message::Activity(_) => Role::Activity,
            Message::Reasoning(_) => Role::Reasoning,
        }
    }

    pub fn metadata_mut(&mut self) -> &mut Option<JsonObject> {
        match self {
            Message::Developer(m) | Message::System(m) => &mut m.metadata,
            Message::Assistant(m) => &mut m.metadata,
            Message::User(m) => &mut m.metadata,
            Message::Tool(m) => &mut m.metadata,
            Message::Activity(m) => &mut m.metadata,
            Message::Reasoning(m) => &mut m.metadata,
        }
    }

    pub fn subagent_run_id_mut(&mut self) -> &mut Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) => &mut m.subagent_run_id,
            Message::Assistant(m) => &mut m.subagent_run_id,
            Message::User(m) => &mut m.subagent_run_id,
            Message::Tool(m) => &mut m.subagent_run_id,
            Message::Activity(m) => &mut m.subagent_run_id,
            Message::Reasoning(m) => &mut m.subagent_run_id,
        }
    }

    /// The message's text, if its content is (or has) text. Parts other than text are skipped.
    pub fn text(&self) -> Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) => Some(m.content.clone()),
            Message::Assistant(m) => m.content.clone(),
            Message::User(m) => Some(m.content.text()),
            Message::Tool(m) => Some(m.content.text()),
            Message::Activity(_) => None,
            Message::Reasoning(m) => Some(m.content.clone()),
        }
    }

    /// A text message of the given role, as `TEXT_MESSAGE_START` creates it.
    pub fn new_text(role: TextRole, id: String, name: Option<String>) -> Message {
        match role {
            TextRole::Assistant => Message::Assistant(AssistantMessage {
                id,
                content: Some(String::new()),
                name,
                ..Default::default()
            }),
            TextRole::User => Message::User(UserMessage {
                id,
                content: Content::Text(String::new()),
                name,
                encrypted_value: None,
                encrypted_value_type: None,
                metadata: None,
                subagent_run_id: None,
            }),
            TextRole::Developer => Message::Developer(TextMessage {
                id,
                name,
                ..Default::default()
            }),
            TextRole::System => Message::System(TextMessage {
                id,
                name,
                ..Default::default()
            }),
        }
    }
}

/// `string | ContentPart[]` (user and tool messages, `TOOL_CALL_RESULT.content`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl Content {
    /// The text of the content: the string, or the text parts joined by newlines.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// One multimodal content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentPart {
    Text(TextPart),
    Image(MediaPart),
    Audio(MediaPart),
    Video(MediaPart),
    Document(MediaPart),
}

/// The part type names 1.1 defines (anything else is stripped with a warning on input).
pub const CONTENT_PART_TYPES: [&str; 5] = ["text", "image", "audio", "video", "document"];

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextPart {
    pub text: String,
    pub id: Option<String>,
    pub metadata: Option<Value>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaPart {
    pub source: PartSource,
    pub id: Option<String>,
    pub metadata: Option<Value>,
}

/// Where a media part's bytes are: inline base64, a URL, or a provider file handle.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum PartSource {
    Data {
        value: String,
        mime_type: String,
    },
    Url {
        value: String,
        mime_type: Option<String>,
    },
    File {
        value: String,
        provider: Option<String>,
        mime_type: Option<String>,
    },
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: FunctionKind,
    pub function: FunctionCall,
    pub encrypted_value: Option<String>,
    pub encrypted_value_type: Option<String>,
    pub metadata: Option<JsonObject>,
}

impl ToolCall {
    pub fn new(id: String, name: String) -> Self {
        ToolCall {
            id,
            kind: FunctionKind::Function,
            function: FunctionCall {
                name,
                arguments: String::new(),
            },
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
        }
    }
}

/// `ToolCall.type`, always `"function"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionKind {
    #[default]
    Function,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    /// The argument text as streamed (conventionally JSON; not validated by the protocol).
    pub arguments: String,
}

/// A tool the client offers to the agent (a "frontend tool").
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments; opaque to the protocol.
    pub parameters: Option<Value>,
    pub metadata: Option<JsonObject>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Context {
    pub description: String,
    pub value: String,
}

/// Why a run paused and what answer it needs (`RUN_FINISHED.outcome.interrupts`).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    pub id: String,
    /// Open string; core values `tool_call`, `input_required`, `confirmation`.
    pub reason: String,
    pub message: Option<String>,
    pub tool_call_id: Option<String>,
    pub response_schema: Option<JsonObject>,
    pub expires_at: Option<String>,
    pub metadata: Option<JsonObject>,
    pub subagent_run_id: Option<String>,
}

/// The answer to one interrupt, carried by the next run's `RunAgentInput.resume`.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    pub interrupt_id: String,
    pub status: ResumeStatus,
    pub payload: Option<Value>,
    pub metadata: Option<JsonObject>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    Resolved,
    Cancelled,
}

/// How a run ended (`RUN_FINISHED.outcome`; absent means success).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum RunOutcome {
    Success {
        pending_tool_call_ids: Option<Vec<String>>,
    },
    Interrupt {
        interrupts: Vec<Interrupt>,
    },
    Cancelled,
}

/// The outcome members 1.1 defines (an unknown one is stripped with a warning on input).
pub const RUN_OUTCOME_TYPES: [&str; 3] = ["success", "interrupt", "cancelled"];

/// How a subagent invocation ended (`SUBAGENT_FINISHED.outcome`).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum SubagentOutcome {
    Success,
    Suspended { interrupt_ids: Option<Vec<String>> },
}

pub const SUBAGENT_OUTCOME_TYPES: [&str; 2] = ["success", "suspended"];

/// Token accounting; absent is not zero. Cached, cache-write and reasoning counts are parts of
/// the input/output totals.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub cache_write_input_tokens: Option<u64>,
}

/// The body of a run request. 1.1 requires only `threadId`, `runId` and `messages`; the rest
/// defaults to empty when absent (pre-1.0 servers require them, so clients always send them).
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    pub thread_id: String,
    pub run_id: String,
    pub protocol_version: Option<String>,
    pub parent_run_id: Option<String>,
    /// Absent or `null` means `{}`.
    #[serde(default = "empty_object", deserialize_with = "null_as_empty_object")]
    pub state: Value,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Vec<Tool>,
    #[serde(default)]
    pub context: Vec<Context>,
    /// Absent or `null` means `{}`.
    #[serde(default = "empty_object", deserialize_with = "null_as_empty_object")]
    pub forwarded_props: Value,
    pub resume: Option<Vec<ResumeEntry>>,
}

impl RunAgentInput {
    /// Whether this run only carries an MCP request for the agent to proxy: a side run that is
    /// not part of the thread's conversation (its answer is `RUN_FINISHED.result`).
    pub fn is_proxied_mcp_request(&self) -> bool {
        self.forwarded_props
            .get(crate::protocol::genui::PROXIED_MCP_REQUEST)
            .is_some_and(serde_json::Value::is_object)
    }

    pub fn new(thread_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        RunAgentInput {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            protocol_version: Some(PROTOCOL_VERSION.to_string()),
            parent_run_id: None,
            state: empty_object(),
            messages: Vec::new(),
            tools: Vec::new(),
            context: Vec::new(),
            forwarded_props: empty_object(),
            resume: None,
        }
    }
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

fn null_as_empty_object<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(if v.is_null() { empty_object() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_agent_input_accepts_only_required_fields() {
        let input: RunAgentInput =
            serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": []})).unwrap();
        assert_eq!(input.state, json!({}));
        assert!(input.tools.is_empty() && input.context.is_empty());
        assert_eq!(input.forwarded_props, json!({}));
    }

    #[test]
    fn absent_optionals_are_omitted_and_nulls_in_payloads_kept() {
        let mut input = RunAgentInput::new("t", "r");
        input.state = json!({"a": null});
        let v = serde_json::to_value(&input).unwrap();
        assert!(v.get("parentRunId").is_none());
        assert!(v.get("resume").is_none());
        assert_eq!(v["state"], json!({"a": null}));
    }

    #[test]
    fn messages_of_every_role_round_trip() {
        let all = json!([
            {"id": "1", "role": "developer", "content": "d"},
            {"id": "2", "role": "system", "content": "s", "name": "sys"},
            {"id": "3", "role": "assistant", "toolCalls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"id": "4", "role": "user", "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": "image/png"}},
                {"type": "audio", "source": {"type": "url", "value": "https://x/a.mp3"}},
                {"type": "video", "source": {"type": "file", "value": "file-1", "provider": "openai"}},
                {"type": "document", "source": {"type": "url", "value": "https://x/d.pdf", "mimeType": "application/pdf"}}]},
            {"id": "5", "role": "tool", "content": "ok", "toolCallId": "c", "error": "e"},
            {"id": "6", "role": "activity", "activityType": "PLAN", "content": {"x": null}},
            {"id": "7", "role": "reasoning", "content": "hmm", "encryptedValue": "zz"}
        ]);
        let msgs: Vec<Message> = serde_json::from_value(all.clone()).unwrap();
        assert_eq!(msgs.len(), 7);
        assert_eq!(serde_json::to_value(&msgs).unwrap(), all);
    }

    #[test]
    fn outcomes_round_trip() {
        for v in [
            json!({"type": "success"}),
            json!({"type": "success", "pendingToolCallIds": ["a"]}),
            json!({"type": "interrupt", "interrupts": [{"id": "i", "reason": "confirmation",
                "responseSchema": {"type": "object"}}]}),
            json!({"type": "cancelled"}),
        ] {
            let o: RunOutcome = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&o).unwrap(), v);
        }
    }
}
