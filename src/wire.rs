//! The JSON shapes of this server's own endpoints beyond AG-UI (threads, runs), shared by the
//! server that writes them and the browser that reads them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::types::Message;

mod edits;
pub mod frame;
pub use edits::*;

/// Where a run stands, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Still streaming (or waiting for a human).
    Running,
    /// Ended with `RUN_FINISHED` (any outcome but cancelled).
    Finished,
    /// Ended with `RUN_FINISHED { outcome: cancelled }`.
    Cancelled,
    /// Ended with `RUN_ERROR`.
    Error,
    /// The server stopped while the run was in progress; its stream ends with `RUN_ERROR`
    /// (code `SERVER_RESTARTED`) when replayed.
    Interrupted,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Cancelled => "cancelled",
            RunState::Error => "error",
            RunState::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "running" => RunState::Running,
            "finished" => RunState::Finished,
            "cancelled" => RunState::Cancelled,
            "error" => RunState::Error,
            "interrupted" => RunState::Interrupted,
            _ => return None,
        })
    }
}

/// One run of a thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub run_id: String,
    pub thread_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub status: RunState,
    /// Unix milliseconds.
    pub started_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<i64>,
    /// Events of the run so far; the last event's SSE id equals this number.
    pub event_count: u64,
    /// The `RUN_ERROR` message, when it ended in error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where to (re)read the run's events: `GET` with `Last-Event-ID` resumes after that id.
    pub events_url: String,
}

/// A thread as listed by `GET /api/threads`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadSummary {
    pub id: String,
    /// The first user message, shortened (empty when there is none).
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub message_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<RunSummary>,
}

/// `GET /api/threads`: most recently updated first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadList {
    pub threads: Vec<ThreadSummary>,
}

/// `GET /api/threads/{id}`: one thread with its conversation and its runs (oldest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadView {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub messages: Vec<Message>,
    pub state: Value,
    pub runs: Vec<RunSummary>,
    /// Render hints of the thread's runs, each placed after a number of `messages`.
    #[serde(default)]
    pub render_hints: Vec<crate::protocol::reduce::PlacedHint>,
    /// Thumbs up/down given to the thread's messages (only messages still in the thread).
    #[serde(default)]
    pub feedback: Feedback,
}

/// `GET /api/runs/{run_id}`: a run and the input its agent ran with (history included), from
/// which a client can rebuild the run by replaying its events from the first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDetail {
    pub run: RunSummary,
    pub input: crate::protocol::types::RunAgentInput,
}

/// The request header that asks the server to keep a run going when its client disconnects
/// (any value but `0`/`false`); the run then ends only by itself or by
/// `POST /api/runs/{run_id}/cancel`.
pub const DETACH_HEADER: &str = "x-agui-detach";
/// The response header of a run stream naming where its events can be re-read.
pub const RUN_EVENTS_HEADER: &str = "x-agui-run-events";

/// The URL of a run's event stream.
pub fn run_events_url(run_id: &str) -> String {
    format!("{}/events", run_url(run_id))
}

/// The URL of a run (`GET`: the run and its input).
pub fn run_url(run_id: &str) -> String {
    format!("/api/runs/{}", encode_segment(run_id))
}

/// The AG-UI endpoint of a hosted agent.
pub fn agent_url(agent_id: &str) -> String {
    format!("/api/agents/{}", encode_segment(agent_id))
}

/// Where this server answers as a CopilotKit runtime: `GET {base}/info`,
/// `POST {base}/agent/{id}/run|connect`, `POST {base}/agent/{id}/stop/{threadId}`, and the
/// single-route form `POST {base}` (`{method, params, body}`).
pub const COPILOTKIT_BASE: &str = "/api/copilotkit";

/// The agent a thread talks to when nothing else was chosen.
pub const DEFAULT_AGENT_URL: &str = "/api/agents/demo";

/// The list of stored threads.
pub const THREADS_URL: &str = "/api/threads";

/// The URL of a stored thread.
pub fn thread_url(thread_id: &str) -> String {
    format!("{THREADS_URL}/{}", encode_segment(thread_id))
}

/// Percent-encode one URL path segment.
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A scenario of an agent (the demo agent publishes its scenarios in `GET /api/agents`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioInfo {
    pub name: String,
    pub description: String,
}

/// An agent hosted by this server, as `GET /api/agents` describes it (and as the page lists it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    /// The AG-UI endpoint (`/api/agents/{id}`).
    pub url: String,
    /// The 1.x `AgentCapabilities` object.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub capabilities: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<ScenarioInfo>,
    /// Anything else the agent publishes (e.g. a proxy's upstream host).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// What the page starts with: the stored threads and the thread named by the URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InitialThreads {
    pub list: Vec<ThreadSummary>,
    /// The `?thread=` of the URL, whether or not the server knows it.
    pub requested: Option<String>,
    pub current: Option<ThreadView>,
    /// Whether the server asks who you are (then the page offers "Sign out").
    #[serde(default)]
    pub signed_in: bool,
    /// The server's clock when the page was rendered (Unix ms): relative times ("5 min ago")
    /// read the same in the server's rendering and the browser's first paint.
    #[serde(default)]
    pub now_ms: i64,
}

/// The page's data as the server loads it for the request being rendered. The server provides
/// a [`PageData`] as context while it renders; the UI asks it for what the first paint needs
/// and so never names a server type. The browser reads the same values from the serialized page.
#[cfg(feature = "ssr")]
pub trait PageLoader: Send + Sync {
    /// The agents this server hosts.
    fn agents(&self) -> Vec<AgentSummary>;
    /// The stored threads of the user the request is from, and the one `requested` names. Called
    /// in the request's reactive context (when the page's resource is created), so it can read
    /// the request from there.
    fn threads(
        &self,
        requested: Option<String>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = InitialThreads> + Send>>;
}

/// The server's [`PageLoader`], as context of a page being rendered.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub struct PageData(pub std::sync::Arc<dyn PageLoader>);

/// The `code` of every `RUN_ERROR` this server ends a run with, serialised as the stable wire
/// strings documented in the README and `docs/` (clients match on them). A foreign agent's own
/// code, relayed by the proxy, is kept as it came ([`RunErrorCode::Foreign`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunErrorCode {
    /// The agent broke the AG-UI protocol (its bug becomes a clean `RUN_ERROR`).
    AgentProtocolError,
    /// The agent panicked, or the server has no implementation for what was asked.
    InternalError,
    /// The database could not store the run's events.
    StorageFailed,
    /// The run reached `--max-run-events`.
    EventLimit,
    /// A state snapshot or patch would pass `--max-state-bytes` / `--max-json-depth`.
    StateLimit,
    /// An upstream sent more than `--max-upstream-bytes` / `--max-upstream-events`.
    UpstreamLimit,
    /// The input holds something this agent must not pass on (e.g. a media URL scheme).
    InvalidInput,
    /// No answer to an in-stream approval within `--approval-timeout`.
    ApprovalTimeout,
    /// The run's `resume` answers an interrupt whose `expiresAt` has passed.
    InterruptExpired,
    /// The server stopped while the run was in progress.
    ServerRestarted,
    /// The demo's pretend upstream service failed (the `error` scenario).
    UpstreamUnavailable,
    LlmUnauthorized,
    LlmNotFound,
    LlmRateLimited,
    LlmBadRequest,
    LlmHttpError,
    LlmUnreachable,
    LlmTimeout,
    LlmStreamTruncated,
    LlmStreamError,
    LlmBadResponse,
    LlmTooManyRounds,
    ForeignUnreachable,
    ForeignHttpError,
    ForeignNotSse,
    ForeignProtocolError,
    ForeignStreamTruncated,
    ForeignTimeout,
    /// A foreign agent's `RUN_ERROR` without a code of its own.
    ForeignRunError,
    /// A foreign agent's own code, relayed unchanged.
    Foreign(String),
}

impl RunErrorCode {
    /// Every code of ours, for tables and tests.
    pub const ALL: &'static [RunErrorCode] = &[
        RunErrorCode::AgentProtocolError,
        RunErrorCode::InternalError,
        RunErrorCode::StorageFailed,
        RunErrorCode::EventLimit,
        RunErrorCode::StateLimit,
        RunErrorCode::UpstreamLimit,
        RunErrorCode::InvalidInput,
        RunErrorCode::ApprovalTimeout,
        RunErrorCode::InterruptExpired,
        RunErrorCode::ServerRestarted,
        RunErrorCode::UpstreamUnavailable,
        RunErrorCode::LlmUnauthorized,
        RunErrorCode::LlmNotFound,
        RunErrorCode::LlmRateLimited,
        RunErrorCode::LlmBadRequest,
        RunErrorCode::LlmHttpError,
        RunErrorCode::LlmUnreachable,
        RunErrorCode::LlmTimeout,
        RunErrorCode::LlmStreamTruncated,
        RunErrorCode::LlmStreamError,
        RunErrorCode::LlmBadResponse,
        RunErrorCode::LlmTooManyRounds,
        RunErrorCode::ForeignUnreachable,
        RunErrorCode::ForeignHttpError,
        RunErrorCode::ForeignNotSse,
        RunErrorCode::ForeignProtocolError,
        RunErrorCode::ForeignStreamTruncated,
        RunErrorCode::ForeignTimeout,
        RunErrorCode::ForeignRunError,
    ];

    /// The wire string.
    pub fn as_str(&self) -> &str {
        use RunErrorCode as C;
        match self {
            C::AgentProtocolError => "AGENT_PROTOCOL_ERROR",
            C::InternalError => "INTERNAL_ERROR",
            C::StorageFailed => "STORAGE_FAILED",
            C::EventLimit => "EVENT_LIMIT",
            C::StateLimit => crate::protocol::reduce::STATE_LIMIT,
            C::UpstreamLimit => "UPSTREAM_LIMIT",
            C::InvalidInput => "INVALID_INPUT",
            C::ApprovalTimeout => "APPROVAL_TIMEOUT",
            C::InterruptExpired => "INTERRUPT_EXPIRED",
            C::ServerRestarted => "SERVER_RESTARTED",
            C::UpstreamUnavailable => "UPSTREAM_UNAVAILABLE",
            C::LlmUnauthorized => "LLM_UNAUTHORIZED",
            C::LlmNotFound => "LLM_NOT_FOUND",
            C::LlmRateLimited => "LLM_RATE_LIMITED",
            C::LlmBadRequest => "LLM_BAD_REQUEST",
            C::LlmHttpError => "LLM_HTTP_ERROR",
            C::LlmUnreachable => "LLM_UNREACHABLE",
            C::LlmTimeout => "LLM_TIMEOUT",
            C::LlmStreamTruncated => "LLM_STREAM_TRUNCATED",
            C::LlmStreamError => "LLM_STREAM_ERROR",
            C::LlmBadResponse => "LLM_BAD_RESPONSE",
            C::LlmTooManyRounds => "LLM_TOO_MANY_ROUNDS",
            C::ForeignUnreachable => "FOREIGN_UNREACHABLE",
            C::ForeignHttpError => "FOREIGN_HTTP_ERROR",
            C::ForeignNotSse => "FOREIGN_NOT_SSE",
            C::ForeignProtocolError => "FOREIGN_PROTOCOL_ERROR",
            C::ForeignStreamTruncated => "FOREIGN_STREAM_TRUNCATED",
            C::ForeignTimeout => "FOREIGN_TIMEOUT",
            C::ForeignRunError => "FOREIGN_RUN_ERROR",
            C::Foreign(code) => code,
        }
    }

    /// A code as read from the wire: ours when it is one, else a foreign one.
    pub fn from_wire(code: &str) -> Self {
        Self::ALL
            .iter()
            .find(|c| c.as_str() == code)
            .cloned()
            .unwrap_or_else(|| RunErrorCode::Foreign(code.to_string()))
    }
}

impl std::fmt::Display for RunErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RunErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RunErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self::from_wire(&String::deserialize(d)?))
    }
}

#[cfg(test)]
mod run_error_code_tests {
    use super::RunErrorCode;

    #[test]
    fn every_code_reads_back_as_itself_and_strings_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in RunErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            // The wire form is SCREAMING_SNAKE_CASE, like every AG-UI code.
            assert!(
                c.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{c} is sent as {:?}",
                c.as_str()
            );
            assert_eq!(&RunErrorCode::from_wire(c.as_str()), c);
            let json = serde_json::to_string(c).unwrap();
            assert_eq!(serde_json::from_str::<RunErrorCode>(&json).unwrap(), *c);
        }
        assert_eq!(
            RunErrorCode::from_wire("THEIR_OWN"),
            RunErrorCode::Foreign("THEIR_OWN".into())
        );
    }
}
