//! An agent backed by any server speaking the OpenAI Chat Completions streaming API (OpenAI,
//! Ollama, vLLM, llama.cpp server, LM Studio…), configured by `--llm`. A run streams the model's
//! answer as AG-UI events, runs backend tools server-side and calls the model again with their
//! results, and ends with the frontend tool calls the app must answer. See `docs/llm.md`.

mod caps;
mod request;
pub mod spec;
mod stream;
mod tools;
mod upstream;

use crate::wire::RunErrorCode;
use std::collections::HashSet;

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};

use super::upstream::UpstreamMeter;
use super::{Agent, AgentError, AgentInfo, InputError, RunContext, RunEnd, RunSettings};
use crate::protocol::event::EventKind;
use crate::protocol::genui::{MCP_APPS, PROXIED_MCP_REQUEST};
use crate::protocol::types::{Content, Message, RunAgentInput, RunOutcome, TokenUsage};
use crate::server::mcp::{AppError, McpHub, Outcome};

pub use spec::{BackendTools, LlmSpec};

/// How many model calls one run may make (each backend tool round is one more).
pub const MAX_ROUNDS: usize = 8;

/// What `RUN_FINISHED.usage` names as the provider.
const PROVIDER: &str = "openai-compatible";

/// An LLM agent configured by `--llm ID=BASE_URL[,model=…][,key-env=…][,key=…][,tools=…]`.
pub struct LlmAgent {
    spec: LlmSpec,
    http: reqwest::Client,
    /// The tools of the `--mcp` servers, offered after the backend tools.
    mcp: Arc<McpHub>,
}

impl LlmAgent {
    /// Fails only when the platform's TLS setup cannot make an HTTP client.
    pub fn new(spec: LlmSpec, mcp: Arc<McpHub>) -> reqwest::Result<Self> {
        let http = upstream::client()?;
        Ok(LlmAgent { spec, http, mcp })
    }

    pub fn spec(&self) -> &LlmSpec {
        &self.spec
    }

    /// The `tools` offered: the app's frontend tools, then the backend tools and MCP tools
    /// they do not shadow (a frontend tool of the same name wins).
    fn tools(&self, ctx: &RunContext) -> Vec<Value> {
        let mut out: Vec<Value> = ctx.input.tools.iter().map(request::frontend_tool).collect();
        if self.spec.tools == BackendTools::Demo {
            out.extend(
                tools::NAMES
                    .iter()
                    .filter(|n| !ctx.input.tools.iter().any(|t| t.name == **n))
                    .filter_map(|n| tools::definition(n)),
            );
        }
        out.extend(
            self.mcp
                .tools()
                .iter()
                .filter(|t| !ctx.input.tools.iter().any(|f| f.name == t.offered))
                .map(|t| t.definition.clone()),
        );
        out
    }

    fn body(&self, messages: &[Value], tools: &[Value]) -> Value {
        let mut body = json!({
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(m) = &self.spec.model {
            body["model"] = json!(m);
        }
        // Some servers reject an empty list.
        if !tools.is_empty() {
            body["tools"] = json!(tools);
        }
        body
    }

    async fn run_loop(&self, ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
        let cancel = ctx.cancel.clone();
        let frontend: HashSet<String> = ctx.input.tools.iter().map(|t| t.name.clone()).collect();
        let offered = self.tools(ctx);
        // The whole thread is checked here, history included: the request check saw only
        // what the client sent.
        let mut messages = request::messages(&ctx.input, &ctx.settings.llm_image_schemes)
            .map_err(|m| AgentError::failed(RunErrorCode::InvalidInput, m.to_string()))?;
        // One budget for every round of the run: each round's answer is kept in `messages`
        // for the next, so per-round budgets would let a run hold MAX_ROUNDS of them.
        let mut meter = UpstreamMeter::new(
            ctx.settings.upstream,
            format!("the model server at {}", self.spec.host()),
        );
        // Tool call ids the thread already has: a model's id must not merge with one of them.
        let mut taken: HashSet<String> = ctx
            .input
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Assistant(a) => a.tool_calls.as_ref(),
                _ => None,
            })
            .flatten()
            .map(|tc| tc.id.clone())
            .collect();
        let mut usage: Option<TokenUsage> = None;
        for _ in 0..MAX_ROUNDS {
            let body = self.body(&messages, &offered);
            let turn = upstream::turn(
                ctx, &cancel, &self.http, &self.spec, &body, &mut taken, &mut meter,
            )
            .await?;
            add_usage(&mut usage, turn.usage.as_ref());
            if let Some(u) = usage.as_mut() {
                u.model = turn.model.clone().or_else(|| self.spec.model.clone());
            }
            let calls: Vec<_> = turn.calls().cloned().collect();
            if calls.is_empty() {
                return Ok(RunEnd {
                    usage,
                    ..RunEnd::default()
                });
            }
            messages.push(json!({
                "role": "assistant",
                "content": Some(turn.content.as_str()).filter(|c| !c.is_empty()),
                "tool_calls": calls.iter().map(|c| json!({
                    "id": c.id, "type": "function",
                    "function": {"name": c.name, "arguments": request::arguments_text(&c.arguments)},
                })).collect::<Vec<_>>(),
            }));
            let mut pending = Vec::new();
            let mut mcp_calls = 0usize;
            for call in &calls {
                if frontend.contains(&call.name) {
                    pending.push(call.id.clone());
                    continue;
                }
                // MCP tools, backend tools, and names the model made up (told so in the result).
                let mut app = None;
                let (content, event_content) = if self.mcp.has(&call.name) {
                    mcp_calls += 1;
                    let outcome = self.call_mcp(call, mcp_calls, &mut meter, &cancel).await?;
                    app = self
                        .mcp
                        .app_of(&call.name)
                        // Only when the server answered (the view shows its result).
                        .filter(|_| outcome.bytes > 0)
                        .map(|link| link.content(&outcome, &call.arguments));
                    (outcome.text, outcome.content)
                } else {
                    let result = if self.spec.tools == BackendTools::Demo {
                        tools::run(&call.name, &call.arguments)
                    } else {
                        json!({"error": format!("there is no tool named '{}'", call.name)})
                    };
                    let text = result.to_string();
                    (text.clone(), Content::Text(text))
                };
                let message_id = ctx.new_id("tool");
                ctx.emit(EventKind::ToolCallResult {
                    message_id,
                    tool_call_id: call.id.clone(),
                    content: event_content,
                    role: None,
                })
                .await?;
                if let Some(content) = app {
                    // The tool's MCP App: the studio fetches its HTML with a proxied request.
                    let id = ctx.new_id("mcp-apps");
                    ctx.emit(EventKind::ActivitySnapshot {
                        message_id: id,
                        activity_type: MCP_APPS.into(),
                        content: content.as_object().cloned().unwrap_or_default(),
                        replace: Some(true),
                    })
                    .await?;
                }
                messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": content}));
            }
            if !pending.is_empty() {
                // The app runs these; its answers come back as tool messages in the next run.
                return Ok(RunEnd {
                    outcome: Some(RunOutcome::Success {
                        pending_tool_call_ids: Some(pending),
                    }),
                    result: None,
                    usage,
                });
            }
        }
        Err(AgentError::failed(
            RunErrorCode::LlmTooManyRounds,
            format!(
                "the model was still calling tools after {MAX_ROUNDS} rounds; stopped to avoid a loop"
            ),
        ))
    }
}

impl LlmAgent {
    /// Call MCP tool `call` (the `nth` MCP call of its round) within the per-round cap, its
    /// answer charged to the run's upstream budget.
    async fn call_mcp(
        &self,
        call: &stream::Call,
        nth: usize,
        meter: &mut UpstreamMeter,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Outcome, AgentError> {
        let cap = self.mcp.limits().max_calls_per_round;
        if nth > cap {
            return Ok(Outcome::error(format!(
                "not run: at most {cap} MCP tool calls in one round (--mcp-max-calls-per-round)"
            )));
        }
        let outcome = self
            .mcp
            .call(&call.name, &call.arguments, cancel)
            .await
            .map_err(|_| AgentError::Cancelled)?;
        let who = format!(
            "the MCP server '{}'",
            self.mcp.server_of(&call.name).unwrap_or("?")
        );
        meter.bytes_from(outcome.bytes, &who)?;
        Ok(outcome)
    }

    /// Answer an MCP App's `forwardedProps.__proxiedMCPRequest`: `RUN_FINISHED.result` is the
    /// MCP result; a refusal or failure is `RUN_ERROR`.
    async fn answer_app(
        &self,
        ctx: &mut RunContext,
        request: &Value,
    ) -> Result<RunEnd, AgentError> {
        let cancel = ctx.cancel.clone();
        match self.mcp.app_request(request, &cancel).await {
            Ok(result) => Ok(RunEnd {
                result: Some(result),
                ..RunEnd::default()
            }),
            Err(AppError::Cancelled) => Err(AgentError::Cancelled),
            Err(AppError::Refused(m)) => Err(AgentError::failed(RunErrorCode::InvalidInput, m)),
            Err(AppError::Failed(m)) => {
                Err(AgentError::failed(RunErrorCode::UpstreamUnavailable, m))
            }
        }
    }
}

/// Add a turn's counts to the run's; a count no turn reported stays absent.
fn add_usage(total: &mut Option<TokenUsage>, turn: Option<&TokenUsage>) {
    let Some(t) = turn else { return };
    let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    };
    let acc = total.get_or_insert_with(|| TokenUsage {
        provider: Some(PROVIDER.into()),
        ..TokenUsage::default()
    });
    acc.input_tokens = sum(acc.input_tokens, t.input_tokens);
    acc.output_tokens = sum(acc.output_tokens, t.output_tokens);
    acc.total_tokens = sum(acc.total_tokens, t.total_tokens);
    acc.reasoning_tokens = sum(acc.reasoning_tokens, t.reasoning_tokens);
    acc.cached_input_tokens = sum(acc.cached_input_tokens, t.cached_input_tokens);
}

/// `s` cut to `max` characters (with an ellipsis when cut).
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

impl Agent for LlmAgent {
    fn info(&self) -> AgentInfo {
        let s = &self.spec;
        let host = s.host();
        let name = format!("LLM ({})", s.model.as_deref().unwrap_or(&host));
        let model = s.model.as_deref().map_or_else(
            || "the server's default model".to_string(),
            |m| format!("model {m}"),
        );
        let mut backend = match s.tools {
            BackendTools::Demo => " Backend tools: calculate, convert_units.".to_string(),
            BackendTools::None => String::new(),
        };
        let servers: Vec<&str> = self.mcp.server_ids().collect();
        if !servers.is_empty() {
            backend.push_str(&format!(
                " MCP tools: {} from {}.",
                self.mcp.tools().len(),
                servers.join(", ")
            ));
        }
        AgentInfo {
            id: s.id.clone(),
            name,
            description: format!(
                "An OpenAI-compatible chat model: {model} at {host} (streaming Chat Completions).{backend} Frontend tools the app offers are passed to the model."
            ),
            capabilities: self.capabilities(&host),
            extra: Default::default(),
        }
    }

    fn check_input(&self, input: &RunAgentInput, settings: &RunSettings) -> Result<(), InputError> {
        request::check_media(input, &settings.llm_image_schemes)
    }

    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        async move {
            tracing::debug!(run = %ctx.run_id(), agent = %self.spec.id, "llm run");
            if let Some(request) = ctx.input.forwarded_props.get(PROXIED_MCP_REQUEST).cloned() {
                return self.answer_app(ctx, &request).await;
            }
            self.run_loop(ctx).await
        }
        .boxed()
    }
}
