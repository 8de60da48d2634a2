//! Tool calls an assistant makes, the tools a client offers, and the context it passes.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::JsonObject;

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
