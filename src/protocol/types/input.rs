//! `RunAgentInput`, the body of a run request, and how its open objects default to `{}`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use serde_with::skip_serializing_none;

use super::{Context, Message, ResumeEntry, Tool, PROTOCOL_VERSION};

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
