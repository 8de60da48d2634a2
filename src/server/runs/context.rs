//! The contract between the run runtime and the agents it runs: the [`Agent`] trait, what an
//! agent is told ([`RunSettings`]) and returns ([`RunEnd`], [`AgentError`]), and the
//! [`RunContext`] through which it emits events, sleeps and waits for humans (all
//! cancel-aware). It knows nothing of the runtime behind it: events go to an [`EventSink`] and
//! waits to [`ToolAnswers`], both implemented by the run registry. Agents import this module;
//! it imports neither them nor the registry.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::protocol::event::{Event, EventKind};
use crate::protocol::types::{RunAgentInput, RunOutcome, TokenUsage};
use crate::protocol::verify::Verifier;
use crate::server::error::ApiError;
pub use crate::wire::RunErrorCode;

/// `--max-upstream-bytes` by default.
pub const DEFAULT_MAX_UPSTREAM_BYTES: u64 = 64 * 1024 * 1024;
/// `--max-upstream-events` by default.
pub const DEFAULT_MAX_UPSTREAM_EVENTS: u64 = 1_000_000;

/// `--max-upstream-bytes` and `--max-upstream-events`: what one proxied or model response may
/// send into a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamLimits {
    pub max_bytes: u64,
    pub max_events: u64,
}

impl Default for UpstreamLimits {
    fn default() -> Self {
        UpstreamLimits {
            max_bytes: DEFAULT_MAX_UPSTREAM_BYTES,
            max_events: DEFAULT_MAX_UPSTREAM_EVENTS,
        }
    }
}

/// Where a run's events go: the runtime's sink (the thread's conversation, its observers, the
/// run's log and the database).
pub(crate) trait EventSink: Send + Sync {
    /// The number of the last event sent.
    fn sent(&self) -> u64;
    /// Send one event (already verified), without waiting: what the run must wait for before
    /// its next event, if anything, is returned. Fails when the run must stop (its events can
    /// no longer be stored).
    fn send(&mut self, event: Event) -> Result<Sent, AgentError>;
    /// The run will send nothing until a human answers: what memory holds only for a run
    /// that streams may go.
    fn rest(&self) {}
}

/// What a run must do after [`EventSink::send`] before its next event.
pub(crate) enum Sent {
    /// Nothing: go on.
    Done,
    /// Let the other tasks have a turn.
    Yield,
    /// Wait for this (the database's queue to have room, the run's start to be committed).
    Wait(BoxFuture<'static, ()>),
}

/// Answers to tool calls a run waits for with its stream open (`POST /api/ag-ui/tool-result`).
pub(crate) trait ToolAnswers: Send + Sync {
    /// Start accepting an answer to `tool_call_id`; the receiver gets it.
    fn register(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value>;
    /// Stop accepting one.
    fn forget(&self, tool_call_id: &str);
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentError {
    /// The run was cancelled (abort, or the client went away).
    Cancelled,
    /// The agent failed; becomes `RUN_ERROR { message, code }`.
    Failed { message: String, code: RunErrorCode },
}

impl AgentError {
    pub fn failed(code: RunErrorCode, message: impl Into<String>) -> Self {
        AgentError::Failed {
            message: message.into(),
            code,
        }
    }
}

/// How an agent's run ended when it did not fail.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunEnd {
    pub outcome: Option<RunOutcome>,
    pub result: Option<Value>,
    /// Token usage to report on `RUN_FINISHED`.
    pub usage: Option<TokenUsage>,
}

impl RunEnd {
    pub fn success() -> Self {
        RunEnd::default()
    }
}

/// What `GET /api/agents` says about an agent.
#[derive(Debug, Clone)]
pub struct AgentInfo {
    pub id: String,
    pub name: String,
    pub description: String,
    /// The 1.x `AgentCapabilities` object.
    pub capabilities: Value,
    /// Anything else worth publishing (the demo agent's scenarios).
    pub extra: serde_json::Map<String, Value>,
}

/// An agent hosted by this server.
pub trait Agent: Send + Sync + 'static {
    fn info(&self) -> AgentInfo;
    /// Run once. `RUN_STARTED` has been sent; the agent emits the rest through `ctx` and
    /// returns how the run ended. The terminal event is the runtime's job.
    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>>;
    /// Refuse, before any stream starts (422), input this agent must not pass on: the message
    /// says which part and why. Most agents take any valid input.
    fn check_input(
        &self,
        _input: &RunAgentInput,
        _settings: &RunSettings,
    ) -> Result<(), InputError> {
        Ok(())
    }
}

/// Input an agent refuses before any stream starts (answered 422 with this text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// An input the agent refuses: 422 with its reason.
impl From<InputError> for ApiError {
    fn from(e: InputError) -> Self {
        ApiError::Unprocessable(e.to_string())
    }
}

/// `--llm-image-schemes` by default: inline data and TLS URLs, nothing that reaches a local
/// file or a plain-HTTP (metadata, intranet) service through the model server.
pub const DEFAULT_LLM_IMAGE_SCHEMES: &[&str] = &["data", "https"];

/// Settings every run gets.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// How long an in-stream approval waits before the run ends with `RUN_ERROR`.
    pub approval_timeout: Duration,
    /// Delay between streamed text chunks of the demo agent (a model's pace).
    pub token_delay: Duration,
    /// Most events the run may produce (`RUN_ERROR` `EVENT_LIMIT` past it).
    pub max_run_events: u64,
    /// Bounds of the thread's shared state (`--max-state-bytes`, `--max-json-depth`).
    pub state_limits: crate::protocol::limits::JsonLimits,
    /// What one proxied or model response may send (`--max-upstream-bytes`/`-events`).
    pub upstream: UpstreamLimits,
    /// URL schemes of media parts forwarded to a model (`--llm-image-schemes`), lower case.
    pub llm_image_schemes: Arc<[String]>,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            approval_timeout: Duration::from_secs(300),
            token_delay: Duration::from_millis(12),
            max_run_events: 1_000_000,
            state_limits: crate::protocol::limits::JsonLimits::default(),
            upstream: UpstreamLimits::default(),
            llm_image_schemes: DEFAULT_LLM_IMAGE_SCHEMES
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

/// The answer to `tool_call_id` from `rx`; `Cancelled` when the run is stopped first (or the
/// wait is dropped), an `APPROVAL_TIMEOUT` failure after `timeout`.
pub(crate) async fn wait_for_answer(
    cancel: &CancellationToken,
    timeout: Duration,
    rx: oneshot::Receiver<Value>,
    tool_call_id: &str,
) -> Result<Value, AgentError> {
    tokio::select! {
        _ = cancel.cancelled() => Err(AgentError::Cancelled),
        r = tokio::time::timeout(timeout, rx) => match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(AgentError::Cancelled),
            Err(_) => Err(AgentError::failed(crate::wire::RunErrorCode::ApprovalTimeout,
                format!("no answer to tool call '{tool_call_id}' within {} s", timeout.as_secs()),
            )),
        },
    }
}

/// What an agent does once the human answers the tool call it parked its run on
/// ([`RunContext::park`]). It owns all it needs to go on: a parked run keeps nothing else of
/// its agent, and its context comes back with only the thread and run ids of its input.
pub trait Resume: Send + Sync + 'static {
    fn resume<'a>(
        self: Box<Self>,
        ctx: &'a mut RunContext,
        answer: Value,
    ) -> BoxFuture<'a, Result<RunEnd, AgentError>>;
}

/// A parked run's wait: the tool call it waits on and what goes on once it is answered.
pub(crate) struct Park {
    pub(crate) tool_call_id: String,
    pub(crate) then: Box<dyn Resume>,
}

/// An agent's handle on its run.
pub struct RunContext {
    pub input: RunAgentInput,
    pub settings: RunSettings,
    pub(crate) cancel: CancellationToken,
    pub(crate) verifier: Verifier,
    pub(super) sink: Box<dyn EventSink>,
    pub(super) answers: Arc<dyn ToolAnswers>,
    pub(super) next_id: u64,
    pub(super) waits: HashMap<String, oneshot::Receiver<Value>>,
    /// Set by [`RunContext::park`]: the agent's step ended on a wait for a human.
    pub(super) park: Option<Park>,
}

impl RunContext {
    pub(crate) fn new(
        input: RunAgentInput,
        settings: RunSettings,
        cancel: CancellationToken,
        sink: Box<dyn EventSink>,
        answers: Arc<dyn ToolAnswers>,
    ) -> Self {
        RunContext {
            input,
            settings,
            cancel,
            verifier: Verifier::new(),
            sink,
            answers,
            next_id: 0,
            waits: HashMap::new(),
            park: None,
        }
    }

    pub fn thread_id(&self) -> &str {
        &self.input.thread_id
    }

    pub fn run_id(&self) -> &str {
        &self.input.run_id
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// A fresh id, unique within the thread (`{prefix}-{run id}-{n}`).
    pub fn new_id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}-{}-{}", self.input.run_id, self.next_id)
    }

    /// Emit one event. Fails when the run was cancelled, or when the event would break the
    /// protocol (the agent's bug becomes a clean `RUN_ERROR`, never a broken stream).
    pub async fn emit(&mut self, event: impl Into<Event>) -> Result<(), AgentError> {
        if self.cancel.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        let event = event.into();
        if matches!(
            event.kind,
            EventKind::RunStarted { .. }
                | EventKind::RunFinished { .. }
                | EventKind::RunError { .. }
        ) {
            return Err(AgentError::failed(
                crate::wire::RunErrorCode::AgentProtocolError,
                "agents do not emit run lifecycle events; the runtime does",
            ));
        }
        // Room is kept for the events that close what is open and the terminal event.
        if self.sink.sent() + 1 >= self.settings.max_run_events {
            return Err(AgentError::failed(
                crate::wire::RunErrorCode::EventLimit,
                format!(
                    "the run reached this server's limit of {} events",
                    self.settings.max_run_events
                ),
            ));
        }
        self.send_checked(event).await
    }

    pub(crate) async fn send_checked(&mut self, event: Event) -> Result<(), AgentError> {
        let mut warnings = Vec::new();
        if let Err(e) = self.verifier.check(&event, &mut warnings) {
            tracing::error!(run = %self.input.run_id, "agent broke the protocol: {e}");
            return Err(AgentError::failed(
                crate::wire::RunErrorCode::AgentProtocolError,
                e.to_string(),
            ));
        }
        match self.sink.send(event)? {
            Sent::Done => {}
            Sent::Yield => tokio::task::yield_now().await,
            Sent::Wait(wait) => wait.await,
        }
        Ok(())
    }

    /// Sleep, waking early with `Cancelled` if the run is stopped.
    pub async fn sleep(&self, d: Duration) -> Result<(), AgentError> {
        if d.is_zero() {
            return if self.cancel.is_cancelled() {
                Err(AgentError::Cancelled)
            } else {
                Ok(())
            };
        }
        tokio::select! {
            _ = self.cancel.cancelled() => Err(AgentError::Cancelled),
            _ = tokio::time::sleep(d) => Ok(()),
        }
    }

    /// Start accepting an answer to `tool_call_id` now, before the client can see the call end,
    /// so an answer that comes back very fast is not refused. `wait_tool_result` then waits.
    pub fn expect_tool_result(&mut self, tool_call_id: &str) {
        if !self.waits.contains_key(tool_call_id) {
            let rx = self
                .answers
                .register(tool_call_id, &self.input.thread_id, &self.input.run_id);
            self.waits.insert(tool_call_id.to_string(), rx);
        }
    }

    /// Wait, with the stream open, for `POST /api/ag-ui/tool-result` to answer `tool_call_id`.
    /// Ends with `Cancelled` on abort and with a `APPROVAL_TIMEOUT` failure after the configured
    /// timeout.
    pub async fn wait_tool_result(&mut self, tool_call_id: &str) -> Result<Value, AgentError> {
        self.expect_tool_result(tool_call_id);
        let rx = self
            .waits
            .remove(tool_call_id)
            .expect("registered just above");
        self.sink.rest();
        let result = wait_for_answer(
            &self.cancel,
            self.settings.approval_timeout,
            rx,
            tool_call_id,
        )
        .await;
        self.answers.forget(tool_call_id);
        result
    }
}
