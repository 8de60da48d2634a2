//! The session of `use_agent` (see [`crate::client::use_agent`]): its options and return
//! types, and the pure logic both halves share — which messages changed, the run view, the
//! approvals waiting for the user, how each is answered. Compiled and unit-tested natively.
//!
//! A run is a streamed `fetch` POST; its bytes go through the shared protocol pipeline (decoder,
//! dialects, enforcement, chunks, verifier, reducer) as they arrive, and the signals are brought
//! up to date once per animation frame with only what changed: a text delta touches only its
//! message's signal. Under SSR the hook returns inert signals holding the initial messages, and its callbacks do
//! nothing; the browser makes them live after hydration.

#![cfg_attr(not(feature = "hydrate"), allow(dead_code))]

use std::collections::{BTreeSet, HashMap};

use leptos::prelude::*;
use serde_json::Value;

pub use crate::client::event_log::EventRecord;

use crate::client::errors::RunErrorView;
use crate::protocol::reduce::{Change, Conversation, PlacedHint, RunStatus, SubagentRecord};
use crate::protocol::types::{ContentPart, Interrupt, Message, TokenUsage, Tool};

/// One message and its own signal, so the view of one message updates alone.
#[derive(Clone)]
pub struct MessageEntry {
    pub id: String,
    pub msg: ArcRwSignal<Message>,
}

/// The state of the connection to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Connection {
    #[default]
    Idle,
    Connecting,
    Streaming,
    /// The stream of a detached run broke before its end; the client is resuming it.
    Reconnecting,
    Closed,
    Failed,
}

/// What the run-status bar shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    pub status: RunStatus,
    pub steps: Vec<String>,
    pub subagents: Vec<SubagentRecord>,
    pub usage: Vec<TokenUsage>,
    pub reasoning_open: bool,
    pub pending_tool_call_ids: Vec<String>,
    pub interrupts: Vec<Interrupt>,
    /// Milliseconds (page clock) when the current or last run started and ended.
    pub started_at: Option<f64>,
    pub ended_at: Option<f64>,
    /// Render hints (`CUSTOM` events named `ui_render_hint`) of every run of the thread, in
    /// arrival order, each placed by the reducer after the messages the conversation had when
    /// it arrived (the transcript shows it there).
    pub render_hints: Vec<PlacedHint>,
    /// Tool calls whose arguments are still streaming (started, not ended); every other call's
    /// arguments are complete.
    pub open_tool_calls: BTreeSet<String>,
}

/// Whether this page has begun a run (started one, or followed one in progress).
static RUN_BEGUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// This page begins a run: from now on the idle rehearsal of a run's code (`ui::warm`) stands
/// down. The run warms the same code itself, and the rehearsal's work (and the optimising
/// compilation it sets off on the browser's worker threads) would take the cores the run's first
/// frames need.
pub fn note_run_begun() {
    RUN_BEGUN.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// See [`note_run_begun`].
pub fn run_begun() -> bool {
    RUN_BEGUN.load(std::sync::atomic::Ordering::Relaxed)
}

/// What the user sends.
#[derive(Debug, Clone, Default)]
pub struct SendInput {
    pub text: String,
    pub attachments: Vec<ContentPart>,
    /// Merged into `forwardedProps` (e.g. `{"scenario": "hitl"}`).
    pub forwarded_props: Option<Value>,
}

impl SendInput {
    /// A run that adds no user message and carries `forwarded_props` (an A2UI surface's action,
    /// which the agent reads from `forwardedProps.a2uiAction`).
    pub fn action(forwarded_props: Value) -> Self {
        Self {
            forwarded_props: Some(forwarded_props),
            ..Self::default()
        }
    }

    /// Whether the run adds no user message.
    pub fn is_action(&self) -> bool {
        self.text.is_empty() && self.attachments.is_empty() && self.forwarded_props.is_some()
    }
}

/// Options of [`use_agent`].
#[derive(Clone)]
pub struct UseAgentOptions {
    /// The AG-UI endpoint to POST runs to (e.g. `/api/agents/demo` or any foreign URL).
    pub url: Signal<String>,
    /// Extra request headers (e.g. `Authorization`).
    pub headers: Signal<Vec<(String, String)>>,
    /// The body format runs ask for (and their resumes).
    pub format: Signal<crate::client::body_format::BodyFormat>,
    /// Frontend tools offered to the agent in every run.
    pub tools: Vec<Tool>,
    /// The thread's messages so far (rendered on the server before hydration).
    pub initial_messages: Vec<Message>,
    /// The thread's shared state so far.
    pub initial_state: Option<Value>,
    pub initial_thread_id: Option<String>,
    /// A run of this server still in progress on the thread when the page loaded: the session
    /// follows it (replaying it from its first event, then live) as if it had started it.
    pub follow_run: Option<String>,
    /// Render hints of the thread's earlier runs (as stored by the server).
    pub initial_render_hints: Vec<PlacedHint>,
    /// The thread's last run failed (or the server stopped during it): the banner shows this,
    /// and "Retry" runs that run's input again (read from `GET /api/runs/{run_id}`).
    pub failed_run: Option<(String, RunErrorView)>,
    /// The thread's last run when the page loaded: "Regenerate" runs its input again (read
    /// from `GET /api/runs/{run_id}`), replacing its answer.
    pub last_run: Option<String>,
    /// The server stores runs of `initial_thread_id` (the inspector loads their events).
    pub stored_runs: bool,
}

/// Signals and actions of an agent session. Cheap to copy.
#[derive(Clone, Copy)]
pub struct UseAgentReturn {
    pub messages: ReadSignal<Vec<MessageEntry>>,
    pub state: ReadSignal<Value>,
    pub run: ReadSignal<RunView>,
    pub approvals: Memo<Vec<Approval>>,
    pub error: ReadSignal<Option<RunErrorView>>,
    pub connection: ReadSignal<Connection>,
    pub events: ReadSignal<Vec<EventRecord>>,
    pub warnings: ReadSignal<Vec<String>>,
    pub is_running: Signal<bool>,
    pub thread_id: ReadSignal<String>,
    /// The text of a message that could not be sent (the page's code for runs could not be
    /// fetched), for the composer to take back.
    pub unsent: ReadSignal<Option<String>>,
    /// The thread this session was opened with, when the server stores runs of it.
    pub stored_thread: StoredValue<Option<String>>,
    /// The agent's endpoint and request headers (for side runs, [`crate::client::side_run`]).
    pub url: Signal<String>,
    pub headers: Signal<Vec<(String, String)>>,
    /// Send a user message and start a run ([`SendInput::action`]: a run without a message).
    pub send: Callback<SendInput>,
    /// Stop the run: cancels the request, which cancels the server's run (a detached run is
    /// cancelled with `POST /api/runs/{id}/cancel`).
    pub stop: Callback<()>,
    /// Approve (optionally with edited arguments) an approval by id.
    pub approve: Callback<(String, Option<Value>)>,
    /// Reject an approval by id.
    pub reject: Callback<String>,
    /// Answer an interrupt with a payload (e.g. from its response-schema form).
    pub answer_interrupt: Callback<(String, Value)>,
    /// Replace the shared state; the next run carries it.
    pub set_state: Callback<Value>,
    /// Run the last request again (after a failure: Retry; after an answer: Regenerate, which
    /// replaces it — on this server too).
    pub retry: Callback<()>,
    /// Edit a user message and send it again: `(message id, new text)`. The conversation is
    /// cut before that message (on this server too: `POST /api/threads/{id}/truncate`) and a
    /// run starts with the edited message (its attachments kept).
    pub edit: Callback<(String, String)>,
    /// Start a new, empty thread.
    pub new_thread: Callback<()>,
    /// Replay a recorded stream (JSON Lines, JSON, a fixture or raw SSE) in a new thread.
    pub open_recording: Callback<Vec<u8>>,
}

/// The writable side of the signals.
#[derive(Clone, Copy)]
pub(crate) struct Writers {
    pub messages: RwSignal<Vec<MessageEntry>>,
    pub state: RwSignal<Value>,
    pub run: RwSignal<RunView>,
    pub error: RwSignal<Option<RunErrorView>>,
    pub connection: RwSignal<Connection>,
    pub events: RwSignal<Vec<EventRecord>>,
    pub warnings: RwSignal<Vec<String>>,
    pub thread_id: RwSignal<String>,
    pub unsent: RwSignal<Option<String>>,
}

/// Changes waiting for the next animation frame.
#[derive(Default)]
pub(crate) struct Pending {
    pub messages: BTreeSet<usize>,
    pub messages_reset: bool,
    pub state: bool,
    pub run: bool,
    pub events: Vec<EventRecord>,
    pub warnings: Vec<String>,
}

impl Pending {
    pub fn note(&mut self, change: &Change) {
        match change {
            Change::MessageUpdated { index } => {
                self.messages.insert(*index);
            }
            Change::MessageAdded { .. } | Change::MessagesReset => self.messages_reset = true,
            Change::State => self.state = true,
            _ => {}
        }
        self.run = true;
    }
}

/// Sync the message signals with the conversation: reuse each message's signal by id, set only
/// those that changed.
pub(crate) fn sync_messages(
    conv: &Conversation,
    pending: &Pending,
    signals: &mut HashMap<String, ArcRwSignal<Message>>,
    w: &Writers,
) {
    if pending.messages_reset {
        let mut entries = Vec::with_capacity(conv.messages.len());
        let mut keep = HashMap::with_capacity(conv.messages.len());
        for m in &conv.messages {
            let id = m.id().to_string();
            let sig = match signals.remove(&id) {
                Some(s) => {
                    if s.with_untracked(|old| old != m) {
                        s.set(m.clone());
                    }
                    s
                }
                None => ArcRwSignal::new(m.clone()),
            };
            keep.insert(id.clone(), sig.clone());
            entries.push(MessageEntry { id, msg: sig });
        }
        *signals = keep;
        w.messages.set(entries);
    } else {
        for &i in &pending.messages {
            if let Some(m) = conv.messages.get(i) {
                if let Some(s) = signals.get(m.id()) {
                    s.set(m.clone());
                }
            }
        }
    }
}

/// The run view of a conversation.
pub(crate) fn run_view(conv: &Conversation, prev: &RunView) -> RunView {
    RunView {
        status: conv.run.clone(),
        steps: conv.active_steps.iter().map(|(_, s)| s.clone()).collect(),
        subagents: conv.subagents.clone(),
        usage: conv.usage.clone(),
        reasoning_open: !conv.reasoning_spans.is_empty(),
        pending_tool_call_ids: conv.pending_tool_call_ids.clone(),
        interrupts: conv.pending_interrupts.clone(),
        started_at: prev.started_at,
        ended_at: prev.ended_at,
        render_hints: conv.render_hints.clone(),
        open_tool_calls: conv.open_tool_calls.clone(),
    }
}

/// The callbacks of a session.
pub(crate) struct Actions {
    pub send: Callback<SendInput>,
    pub stop: Callback<()>,
    pub approve: Callback<(String, Option<Value>)>,
    pub reject: Callback<String>,
    pub answer_interrupt: Callback<(String, Value)>,
    pub set_state: Callback<Value>,
    pub retry: Callback<()>,
    pub edit: Callback<(String, String)>,
    pub new_thread: Callback<()>,
    pub open_recording: Callback<Vec<u8>>,
}

mod approvals;
pub use approvals::{approvals_in, approvals_of, args_schema_of, Approval, ApprovalKind};

#[cfg(test)]
mod tests;
