//! The JSON shapes of this server's own endpoints beyond AG-UI (threads, runs), shared by the
//! server that writes them and the browser that reads them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::types::Message;

mod edits;
pub mod frame;
mod run_error_code;
mod urls;
pub use edits::*;
pub use run_error_code::RunErrorCode;
pub use urls::{
    agent_url, encode_segment, run_events_url, run_url, thread_url, COPILOTKIT_BASE,
    DEFAULT_AGENT_URL, DETACH_HEADER, RUN_EVENTS_HEADER, THREADS_URL,
};

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

/// The stored thread a page starts with. The server has it parsed ([`StoredThread::Parsed`]) and
/// renders it; the browser reads it from the page as JSON ([`StoredThread::Json`]) and parses it
/// with the thread's code, a chunk fetched before hydration only on a page that shows a stored
/// thread (`ui::thread_parse`): the first load carries no parse of messages.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredThread {
    Parsed(ThreadView),
    Json(Value),
}

impl Serialize for StoredThread {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StoredThread::Parsed(view) => view.serialize(s),
            StoredThread::Json(json) => json.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for StoredThread {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(StoredThread::Json)
    }
}

/// The runs of a thread alone (`GET /api/threads/{id}` read without its conversation).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ThreadRuns {
    pub runs: Vec<RunSummary>,
}

/// What the page starts with: the stored threads and the thread named by the URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InitialThreads {
    pub list: Vec<ThreadSummary>,
    /// The `?thread=` of the URL, whether or not the server knows it.
    pub requested: Option<String>,
    pub current: Option<StoredThread>,
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
