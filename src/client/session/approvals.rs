//! What waits for the user: frontend tools a run ended on, in-stream approval requests and
//! interrupts, found from the messages and the run view.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::RunView;
use crate::protocol::reduce::RunStatus;
use crate::protocol::types::{Message, Tool};

/// Which of the three human-in-the-loop styles an approval belongs to; each is answered its own
/// way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalKind {
    /// A frontend tool the run ended on: answered by a `tool` message in the next run.
    FrontendTool,
    /// A `request_approval` call the agent waits on with the stream open: `POST tool-result`.
    InStream,
    /// An interrupt outcome: answered by `resume` in the next run.
    Interrupt,
}

/// Something waiting for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// The tool call id, or the interrupt id.
    pub id: String,
    pub kind: ApprovalKind,
    pub tool_call_id: Option<String>,
    pub tool_name: String,
    pub args: Value,
    pub message: Option<String>,
    pub risk: Option<String>,
    pub response_schema: Option<Value>,
    /// JSON Schema of `args`, when one is known ([`args_schema_of`]); the UI infers one from
    /// the arguments otherwise.
    pub args_schema: Option<Value>,
}

/// The arguments schema of a call to tool `name`: the `parameters` of the tool the run offered
/// by that name, else the schema of a frontend tool the AG-UI Dojo's apps define and agents call
/// by name even when the app offered none (`generate_task_steps`: steps to switch on or off).
pub fn args_schema_of(name: &str, tools: &[Tool]) -> Option<Value> {
    if let Some(t) = tools.iter().find(|t| t.name == name) {
        return t.parameters.clone().filter(Value::is_object);
    }
    (name == "generate_task_steps").then(|| {
        json!({"type": "object", "required": ["steps"], "properties": {"steps": {
            "type": "array", "title": "Steps",
            "items": {"type": "object", "required": ["description", "status"], "properties": {
                "description": {"type": "string"},
                "status": {"type": "string", "enum": ["enabled", "disabled"]}}}}}})
    })
}

/// What waits for the user: frontend tools the run ended on, in-stream approval requests and
/// interrupts. `tools` are the frontend tools the runs offer (their schemas describe the
/// arguments).
pub fn approvals_of(messages: &[Message], run: &RunView, tools: &[Tool]) -> Vec<Approval> {
    approvals_in(messages.iter(), run, tools)
}

/// [`approvals_of`] over borrowed messages (the session's memo reads them in place rather than
/// copying every message, a streaming answer's whole text included, on every frame).
pub fn approvals_in<'a>(
    messages: impl Iterator<Item = &'a Message> + Clone,
    run: &RunView,
    tools: &[Tool],
) -> Vec<Approval> {
    let answered: BTreeSet<&str> = messages
        .clone()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let running = matches!(run.status, RunStatus::Running { .. });
    let mut out = Vec::new();
    for m in messages.clone() {
        let Message::Assistant(a) = m else { continue };
        for call in a.tool_calls.iter().flatten() {
            if answered.contains(call.id.as_str()) {
                continue;
            }
            let args: Value = serde_json::from_str(&call.function.arguments).unwrap_or(Value::Null);
            let kind = if run.pending_tool_call_ids.contains(&call.id) && !running {
                ApprovalKind::FrontendTool
            } else if call.function.name == "request_approval" && running && args.is_object() {
                ApprovalKind::InStream
            } else {
                continue;
            };
            out.push(Approval {
                id: call.id.clone(),
                kind,
                tool_call_id: Some(call.id.clone()),
                tool_name: call.function.name.clone(),
                message: args
                    .get("action")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                risk: args
                    .get("risk_level")
                    .or_else(|| args.get("risk"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                args,
                response_schema: None,
                args_schema: args_schema_of(&call.function.name, tools),
            });
        }
    }
    if !running {
        for i in &run.interrupts {
            let call = i.tool_call_id.as_ref().and_then(|id| {
                messages.clone().find_map(|m| match m {
                    Message::Assistant(a) => a.tool_calls.iter().flatten().find(|c| &c.id == id),
                    _ => None,
                })
            });
            out.push(Approval {
                id: i.id.clone(),
                kind: ApprovalKind::Interrupt,
                tool_call_id: i.tool_call_id.clone(),
                tool_name: call
                    .map(|c| c.function.name.clone())
                    .unwrap_or_else(|| i.reason.clone()),
                args: call
                    .and_then(|c| serde_json::from_str(&c.function.arguments).ok())
                    .unwrap_or(Value::Null),
                message: i.message.clone(),
                risk: i
                    .metadata
                    .as_ref()
                    .and_then(|m| m.get("risk"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                response_schema: i.response_schema.clone().map(Value::Object),
                args_schema: call.and_then(|c| args_schema_of(&c.function.name, tools)),
            });
        }
    }
    out
}
