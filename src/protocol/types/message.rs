//! Messages of the seven roles, the role enums, and what every message answers (id, role, text).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::tagged::newtype_variants;
use super::{Content, JsonObject, ToolCall};

newtype_variants! {
/// A message of any of the seven roles, discriminated by `role` (parsed through `Value`: see
/// [`super::tagged`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message: tag "role", parsed as ByRole
    #[serde(rename_all = "lowercase")]
{
    Developer(TextMessage),
    System(TextMessage),
    Assistant(AssistantMessage),
    User(UserMessage),
    Tool(ToolMessage),
    Activity(ActivityMessage),
    Reasoning(ReasoningMessage),
}
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
