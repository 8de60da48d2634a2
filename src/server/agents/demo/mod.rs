//! The built-in demo agent: offline, deterministic and fast, it exercises every capability of
//! the protocol through named scenarios, the way the official Dojo does. Its tools are real
//! local functions; nothing here calls a model.
//!
//! A run picks its scenario from `forwardedProps.scenario`, else from the first word of the last
//! user message, else `chat`. [`SCENARIOS`] is the one list; `GET /api/agents` publishes it.

mod text;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};

use super::{Agent, AgentError, AgentInfo, RunContext, RunEnd};
use crate::protocol::types::{Content, Message};

pub use text::stream_text;

/// A scenario: its name (what a user types or sends as `forwardedProps.scenario`) and what it
/// shows.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
}

/// Every scenario of the demo agent.
pub const SCENARIOS: &[Scenario] = &[
    Scenario { name: "chat", description: "A streamed markdown answer with a code block, a list and a table." },
    Scenario { name: "backend_tool", description: "A real local tool (arithmetic and unit conversion) run server-side, with TOOL_CALL_RESULT." },
    Scenario { name: "hitl", description: "A frontend tool: the run ends with pendingToolCallIds; the next run carries your tool message." },
    Scenario { name: "interrupt", description: "The run ends with an interrupt outcome (with a responseSchema); the next run's resume answers it." },
    Scenario { name: "approval", description: "An in-stream approval: a request_approval tool call waits, stream open, for POST /api/ag-ui/tool-result." },
    Scenario { name: "agentic_ui", description: "A plan as state: STATE_SNAPSHOT, then a STATE_DELTA per step." },
    Scenario { name: "tool_ui", description: "A tool call whose arguments are structured content for the UI to render." },
    Scenario { name: "shared_state", description: "Reads the client's state from RunAgentInput and changes it with deltas." },
    Scenario { name: "predictive_state", description: "State that follows streamed tool arguments (PredictState)." },
    Scenario { name: "reasoning", description: "Reasoning spans and messages, and one encrypted reasoning value." },
    Scenario { name: "activities", description: "ACTIVITY_SNAPSHOT and ACTIVITY_DELTA of a background task with progress." },
    Scenario { name: "subagents", description: "SUBAGENT_* lifecycle with messages attributed to each subagent." },
    Scenario { name: "render_hints", description: "A chart, a table and a card through CUSTOM ui_render_hint events." },
    Scenario { name: "multimodal", description: "Describes the content parts it received: kinds, sizes, MIME types." },
    Scenario { name: "error", description: "Streams a little, then fails with RUN_ERROR mid-run." },
    Scenario { name: "full", description: "Every event type a producer may emit, in one run." },
    Scenario { name: "long", description: "N text deltas (N from the message, default 1000), for benchmarks." },
];

/// The demo agent.
pub struct DemoAgent;

impl Agent for DemoAgent {
    fn info(&self) -> AgentInfo {
        let mut extra = serde_json::Map::new();
        extra.insert(
            "scenarios".into(),
            Value::Array(
                SCENARIOS
                    .iter()
                    .map(|s| json!({"name": s.name, "description": s.description}))
                    .collect(),
            ),
        );
        AgentInfo {
            id: "demo".into(),
            name: "Demo agent".into(),
            description: "Built-in offline demo of every AG-UI capability (no model, no network). Pick a scenario with forwardedProps.scenario or the first word of your message.".into(),
            capabilities: capabilities(),
            extra,
        }
    }

    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        async move {
            let scenario = pick_scenario(ctx);
            tracing::debug!(run = %ctx.run_id(), scenario, "demo run");
            match scenario {
                "chat" => text::chat(ctx).await,
                "long" => text::long(ctx).await,
                "error" => text::error(ctx).await,
                other => Err(AgentError::failed(
                    "NOT_IMPLEMENTED",
                    format!("the '{other}' scenario is not available yet"),
                )),
            }
        }
        .boxed()
    }
}

/// The scenario a run asks for.
pub fn pick_scenario(ctx: &RunContext) -> &'static str {
    let by_name = |n: &str| SCENARIOS.iter().find(|s| s.name == n).map(|s| s.name);
    if let Some(s) = ctx
        .input
        .forwarded_props
        .get("scenario")
        .and_then(Value::as_str)
    {
        if let Some(name) = by_name(s.trim()) {
            return name;
        }
    }
    last_user_text(ctx)
        .and_then(|t| {
            let word: String = t
                .split_whitespace()
                .next()?
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
                .to_lowercase();
            by_name(&word)
        })
        .unwrap_or("chat")
}

/// The text of the last user message, if any.
pub fn last_user_text(ctx: &RunContext) -> Option<String> {
    ctx.input.messages.iter().rev().find_map(|m| match m {
        Message::User(u) => Some(match &u.content {
            Content::Text(t) => t.clone(),
            c => c.text(),
        }),
        _ => None,
    })
}

fn capabilities() -> Value {
    json!({
        "identity": {"name": "demo", "type": "demo", "description": "Offline demo of every AG-UI capability", "version": env!("CARGO_PKG_VERSION"), "provider": "agui-studio"},
        "transport": {"streaming": true, "websocket": false, "httpBinary": false, "pushNotifications": false, "resumable": false},
        "tools": {"supported": true, "parallelCalls": false, "clientProvided": true},
        "output": {"structuredOutput": true, "supportedMimeTypes": ["text/markdown", "application/json"]},
        "state": {"snapshots": true, "deltas": true, "memory": false, "persistentState": false},
        "multiAgent": {"supported": true, "delegation": true, "handoffs": false, "subagents": [{"name": "researcher"}, {"name": "writer"}]},
        "reasoning": {"supported": true, "streaming": true, "encrypted": true},
        "multimodal": {"input": {"image": true, "audio": true, "video": true, "pdf": true, "file": true}, "output": {"image": false, "audio": false}},
        "execution": {"codeExecution": false, "sandboxed": true},
        "humanInTheLoop": {"supported": true, "approvals": true, "interventions": false, "feedback": false, "interrupts": true, "approveWithEdits": true}
    })
}
