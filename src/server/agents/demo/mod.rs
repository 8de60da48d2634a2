//! The built-in demo agent: offline, deterministic and fast, it exercises every capability of
//! the protocol through named scenarios, the way the official Dojo does. Its tools are real
//! local functions; nothing here calls a model.
//!
//! A run picks its scenario from `forwardedProps.scenario`, else from the first word of the last
//! user message, else `chat`. [`SCENARIOS`] is the one list; `GET /api/agents` publishes it.
//! Two forwarded props come first, whatever the scenario: `__proxiedMCPRequest` (an MCP App's
//! host fetching its HTML or calling a tool) and `a2uiAction` (an A2UI surface's user action).

pub(crate) mod calc;
mod full;
mod genui;
mod human;
mod multimodal;
mod showcase;
mod state;
mod text;
mod tools;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};

use super::{Agent, AgentError, AgentInfo, RunContext, RunEnd};

pub use text::{last_user_text, stream_text};

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
    Scenario { name: "interrupt", description: "The run ends with an interrupt outcome (with a responseSchema); the next run's resume answers it. Send \"interrupt date\" for a form (a date picker built from the schema), \"interrupt twice\" for two interrupts one resume answers, \"expires N\" to make them expire in N seconds." },
    Scenario { name: "approval", description: "An in-stream approval: a request_approval tool call waits, stream open, for POST /api/ag-ui/tool-result." },
    Scenario { name: "agentic_ui", description: "A plan as state: STATE_SNAPSHOT, then a STATE_DELTA per step." },
    Scenario { name: "tool_ui", description: "A tool call whose arguments are structured content for the UI to render." },
    Scenario { name: "shared_state", description: "Reads the client's state from RunAgentInput and changes it with deltas." },
    Scenario { name: "predictive_state", description: "State that follows streamed tool arguments (PredictState)." },
    Scenario { name: "reasoning", description: "Reasoning spans and messages, and one encrypted reasoning value." },
    Scenario { name: "activities", description: "ACTIVITY_SNAPSHOT and ACTIVITY_DELTA of a background task with progress." },
    Scenario { name: "subagents", description: "SUBAGENT_* lifecycle with messages attributed to each subagent." },
    Scenario { name: "render_hints", description: "A chart, a table and a card through CUSTOM ui_render_hint events." },
    Scenario { name: "a2ui", description: "An A2UI v0.9 booking form (text field, checkbox, choice picker, slider, date input) as an a2ui-surface activity; press Book and the next run answers your action." },
    Scenario { name: "a2ui_dynamic", description: "A live A2UI dashboard: one surface, then activity deltas tick its metrics, grow its event list and add an alert." },
    Scenario { name: "ogui", description: "Open generative UI: HTML, CSS and a script streamed into an open-generative-ui activity, run in a sandboxed frame that reports its height." },
    Scenario { name: "mcp_app", description: "An MCP App: a roll_dice tool call whose ui:// view (built in) is fetched by proxied resources/read and talks to the page over postMessage." },
    Scenario { name: "background_task", description: "Activity types no client knows (background-task, memory) advancing by JSON Patch: they render as generic cards." },
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
        extra.insert("mcpServer".into(), genui::mcp_server_info());
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
            let props = &ctx.input.forwarded_props;
            if props.get(genui::PROXIED_MCP_PROP).is_some() {
                return Box::pin(genui::answer_proxied_request(ctx)).await;
            }
            if props.get(genui::A2UI_ACTION_PROP).is_some() {
                return Box::pin(genui::answer_action(ctx)).await;
            }
            let scenario = pick_scenario(ctx);
            tracing::debug!(run = %ctx.run_id(), scenario, "demo run");
            // Each scenario's future on its own: inline, every run's future (and the memory a
            // run waiting on an approval holds) would be as large as the largest scenario's.
            let scenario: BoxFuture<'_, Result<RunEnd, AgentError>> = match scenario {
                "chat" => Box::pin(text::chat(ctx)),
                "backend_tool" => Box::pin(tools::backend_tool(ctx)),
                "hitl" => Box::pin(human::hitl(ctx)),
                "interrupt" => Box::pin(human::interrupt(ctx)),
                "approval" => Box::pin(human::approval(ctx)),
                "agentic_ui" => Box::pin(state::agentic_ui(ctx)),
                "tool_ui" => Box::pin(tools::tool_ui(ctx)),
                "shared_state" => Box::pin(state::shared_state(ctx)),
                "predictive_state" => Box::pin(state::predictive_state(ctx)),
                "reasoning" => Box::pin(showcase::reasoning(ctx)),
                "activities" => Box::pin(showcase::activities(ctx)),
                "subagents" => Box::pin(showcase::subagents(ctx)),
                "render_hints" => Box::pin(showcase::render_hints(ctx)),
                "a2ui" => Box::pin(genui::a2ui(ctx)),
                "a2ui_dynamic" => Box::pin(genui::a2ui_dynamic(ctx)),
                "ogui" => Box::pin(genui::ogui(ctx)),
                "mcp_app" => Box::pin(genui::mcp_app(ctx)),
                "background_task" => Box::pin(genui::background_task(ctx)),
                "multimodal" => Box::pin(multimodal::multimodal(ctx)),
                "error" => Box::pin(text::error(ctx)),
                "full" => Box::pin(full::full(ctx)),
                "long" => Box::pin(text::long(ctx)),
                // `pick_scenario` only returns names from SCENARIOS, and the test below runs
                // every one of them; reaching this arm is a bug in that pairing.
                other => Box::pin(std::future::ready(Err(AgentError::failed(
                    crate::wire::RunErrorCode::InternalError,
                    format!("the demo agent has no implementation for scenario '{other}'"),
                )))),
            };
            scenario.await
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

/// What the demo does itself; the server adds how its runs travel and persist
/// (`agents::capabilities`). Each claim has a scenario that shows it (`tests/capabilities.rs`).
fn capabilities() -> Value {
    let items: Vec<Value> = calc::TOOL_NAMES
        .iter()
        .filter_map(|n| calc::tool_definition(n))
        .filter_map(|d| super::capabilities::tool_item(&d))
        .collect();
    json!({
        "identity": {"name": "demo", "type": "demo", "description": "Offline demo of every AG-UI capability", "version": env!("CARGO_PKG_VERSION"), "provider": "agui-studio"},
        "tools": {"supported": true, "items": items, "parallelCalls": false, "clientProvided": true},
        "output": {"structuredOutput": false, "supportedMimeTypes": ["text/markdown"]},
        "state": {"snapshots": true, "deltas": true, "memory": false},
        "multiAgent": {"supported": true, "delegation": true, "handoffs": false, "subagents": [{"name": "researcher"}, {"name": "writer"}]},
        "reasoning": {"supported": true, "streaming": true, "encrypted": true},
        "multimodal": {"input": {"image": true, "audio": true, "video": true, "pdf": true, "file": true}, "output": {"image": false, "audio": false}},
        "execution": {"codeExecution": false},
        "humanInTheLoop": {"supported": true, "approvals": true, "interventions": false, "feedback": false, "interrupts": true, "approveWithEdits": true}
    })
}

/// End-to-end test support shared by the scenario files: a run goes through the real runtime
/// (`Runs::start`, verified emission, terminal event) and its events through the real client
/// pipeline, with no HTTP in between.
#[cfg(test)]
pub(crate) mod testing {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;

    use super::DemoAgent;
    use crate::protocol::event::Event;
    use crate::protocol::pipeline::{Pipeline, StreamOutcome};
    use crate::protocol::types::{Content, Message, RunAgentInput, ToolCall, UserMessage};
    use crate::server::agents::RunSettings;
    use crate::server::runs::Runs;

    static NEXT: AtomicU64 = AtomicU64::new(1);

    fn unique(prefix: &str) -> String {
        format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// No pauses; a generous approval timeout (tests that want a timeout set their own).
    pub(crate) fn settings() -> RunSettings {
        RunSettings {
            token_delay: Duration::ZERO,
            approval_timeout: Duration::from_secs(10),
            ..RunSettings::default()
        }
    }

    pub(crate) fn user(text: &str) -> Message {
        Message::User(UserMessage {
            id: unique("user"),
            content: Content::Text(text.into()),
            name: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        })
    }

    /// A first run of scenario `name` on a new thread; the user message is the name itself.
    pub(crate) fn input_for(name: &str) -> RunAgentInput {
        let mut input = RunAgentInput::new(unique("thread"), unique("run"));
        input.messages = vec![user(name)];
        input.forwarded_props = json!({"scenario": name});
        input
    }

    /// The next run of the same thread: what the client holds after `prev` (activity
    /// messages are client-only and never sent back), same scenario.
    pub(crate) fn next_input(prev: &Pipeline, name: &str) -> RunAgentInput {
        let conv = &prev.conversation;
        let thread = conv
            .thread_id
            .clone()
            .expect("the first run named its thread");
        let mut input = RunAgentInput::new(thread, unique("run"));
        input.messages = conv
            .messages
            .iter()
            .filter(|m| !matches!(m, Message::Activity(_)))
            .cloned()
            .collect();
        input.state = conv.state.clone();
        input.forwarded_props = json!({"scenario": name});
        input
    }

    /// Run `input` on `runs` to the end. The pipeline starts from the input (its messages, and
    /// its state as the baseline of the run's deltas), as a client continuing the thread does.
    pub(crate) async fn run_input(
        runs: &Arc<Runs>,
        input: RunAgentInput,
        settings: RunSettings,
    ) -> (Vec<Event>, Pipeline) {
        let mut pipeline = Pipeline::for_input(&input, Default::default());
        let mut started = runs
            .start(Arc::new(DemoAgent), input, settings)
            .await
            .expect("the run starts");
        let mut events = Vec::new();
        while let Some(e) = started.events.recv().await {
            pipeline.push_value(None, e.to_value());
            events.push(e);
        }
        pipeline.finish();
        (events, pipeline)
    }

    /// Run scenario `name` once (after `mutate` adjusts its input). In-stream approvals are
    /// answered `{"approved": true}` as soon as they wait.
    pub(crate) async fn run_scenario(
        name: &str,
        mutate: impl FnOnce(&mut RunAgentInput),
    ) -> (Vec<Event>, Pipeline) {
        let mut input = input_for(name);
        mutate(&mut input);
        run_prepared(input).await
    }

    /// Like [`run_scenario`] for an input built by hand (e.g. [`next_input`]).
    pub(crate) async fn run_prepared(input: RunAgentInput) -> (Vec<Event>, Pipeline) {
        let runs = Runs::new();
        let approver = tokio::spawn(approve_waits(runs.clone(), json!({"approved": true})));
        let out = run_input(&runs, input, settings()).await;
        approver.abort();
        out
    }

    /// Answer the first wait that appears with `answer`.
    pub(crate) async fn approve_waits(runs: Arc<Runs>, answer: serde_json::Value) {
        loop {
            if let Some((id, _, _)) = runs.pending_waits().into_iter().next() {
                runs.resolve_wait(&id, answer);
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// The stream completed, the client had nothing to warn about, and no run failed.
    pub(crate) fn assert_clean(name: &str, events: &[Event], p: &Pipeline) {
        assert_eq!(
            p.outcome(),
            StreamOutcome::Completed,
            "{name}: {:?}; events: {events:#?}",
            p.error()
        );
        assert!(p.warnings.is_empty(), "{name}: warnings {:#?}", p.warnings);
        assert!(p.run_errors.is_empty(), "{name}: {:?}", p.run_errors);
    }

    /// The concatenated text of the assistant messages, in order.
    pub(crate) fn assistant_text(p: &Pipeline) -> String {
        p.conversation
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant(a) => a.content.clone(),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The one tool call of the run, its arguments, and the result message's JSON.
    pub(crate) fn call_and_result(
        p: &Pipeline,
    ) -> (ToolCall, serde_json::Value, Option<serde_json::Value>) {
        let msgs = &p.conversation.messages;
        let (i, call) = msgs
            .iter()
            .enumerate()
            .find_map(|(i, m)| match m {
                Message::Assistant(a) => Some((i, a.tool_calls.as_ref()?.first()?.clone())),
                _ => None,
            })
            .expect("a tool call");
        let args = serde_json::from_str(&call.function.arguments).expect("JSON arguments");
        // The result sits right after the message that owns the call.
        let result = match msgs.get(i + 1) {
            Some(Message::Tool(t)) => {
                assert_eq!(t.tool_call_id, call.id);
                Some(serde_json::from_str(&t.content.text()).expect("JSON result"))
            }
            _ => None,
        };
        (call, args, result)
    }

    /// The wire types of `events`, in order.
    pub(crate) fn types(events: &[Event]) -> Vec<&'static str> {
        events.iter().map(Event::type_name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{assert_clean, run_scenario};
    use super::SCENARIOS;

    /// Every published scenario has a real implementation and completes cleanly (`error`
    /// fails the way it is meant to).
    #[tokio::test]
    async fn every_scenario_runs() {
        for s in SCENARIOS {
            let (events, p) = run_scenario(s.name, |_| {}).await;
            if s.name == "error" {
                assert_eq!(p.run_errors.len(), 1, "{events:#?}");
                assert_eq!(p.run_errors[0].1.as_deref(), Some("UPSTREAM_UNAVAILABLE"));
                assert!(p.warnings.is_empty(), "{:?}", p.warnings);
            } else {
                assert_clean(s.name, &events, &p);
            }
            assert!(events.len() > 2, "{}: only {} events", s.name, events.len());
        }
    }

    #[test]
    fn scenario_names_are_unique() {
        let mut names: Vec<_> = SCENARIOS.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), SCENARIOS.len());
    }
}
