//! Runs: the registry of runs in progress (each with a cancel handle and its event log), the
//! task that drives an agent and guarantees a well-formed stream, the waits for human answers,
//! the observer hub, each thread's current conversation computed by the shared reducer, and the
//! readers through which clients read (and re-read after a disconnect) a run's events.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::compat::{parse_version, Version};
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::{Conversation, PlacedHint};
use crate::protocol::types::{RunAgentInput, RunOutcome, PROTOCOL_VERSION};
use crate::wire::RunState;

use super::agents::{Agent, AgentError, RunContext, RunEnd, RunSettings};
use super::error::ApiError;
use super::store::{start_conversation, Store};

mod log;
#[cfg(test)]
mod tests;
use log::RunLog;
pub use log::{Frame, Logged, RunReader, LIVE_WINDOW};

/// How many events the observer hub buffers; an observer further behind is resynchronised.
pub const HUB_CAPACITY: usize = 4096;
/// With a database, how many threads without a run in progress keep their conversation in
/// memory (the most recently run); the others are read back from the database when needed.
pub const IDLE_THREADS_KEPT: usize = 256;

/// One event as observers see it.
#[derive(Debug)]
pub struct Observed {
    pub seq: u64,
    pub thread_id: String,
    pub run_id: String,
    pub json: Arc<str>,
}

struct ActiveRun {
    thread_id: String,
    cancel: CancellationToken,
    log: Arc<RunLog>,
    #[allow(dead_code)]
    started: Instant,
}

struct Waiter {
    run_id: String,
    thread_id: String,
    tx: oneshot::Sender<Value>,
}

/// Every run of this server.
pub struct Runs {
    active: Mutex<HashMap<String, ActiveRun>>,
    waits: Mutex<HashMap<String, Waiter>>,
    threads: Mutex<HashMap<String, Conversation>>,
    /// Thread id → when a run last started on it (a counter), for evicting idle threads.
    recency: Mutex<HashMap<String, u64>>,
    clock: AtomicU64,
    keep_idle: usize,
    latest_thread: Mutex<Option<String>>,
    hub: broadcast::Sender<Arc<Observed>>,
    /// The hub's newest events, for observers resuming with `Last-Event-ID`.
    recent: Mutex<VecDeque<Arc<Observed>>>,
    seq: AtomicU64,
    store: Option<Store>,
}

/// A started run: a reader of its events for the client that started it, and its cancel handle.
pub struct StartedRun {
    pub events: RunReader,
    pub cancel: CancellationToken,
}

impl Runs {
    /// Runs kept in memory only (their events and threads are all kept while they last).
    pub fn new() -> Arc<Self> {
        Self::build(None, usize::MAX)
    }

    /// Runs persisted in `store`, keeping [`IDLE_THREADS_KEPT`] idle threads in memory.
    pub fn with_store(store: Store) -> Arc<Self> {
        Self::build(Some(store), IDLE_THREADS_KEPT)
    }

    /// Runs persisted in `store`, keeping `keep_idle` idle threads in memory.
    pub fn with_store_keeping(store: Store, keep_idle: usize) -> Arc<Self> {
        Self::build(Some(store), keep_idle)
    }

    fn build(store: Option<Store>, keep_idle: usize) -> Arc<Self> {
        let (hub, _) = broadcast::channel(HUB_CAPACITY);
        Arc::new(Runs {
            active: Mutex::default(),
            waits: Mutex::default(),
            threads: Mutex::default(),
            recency: Mutex::default(),
            clock: AtomicU64::new(0),
            keep_idle,
            latest_thread: Mutex::default(),
            hub,
            recent: Mutex::default(),
            // Observer ids start at this process's start time (ms × 1000), so an id from an
            // earlier process is recognisably older than any of ours.
            seq: AtomicU64::new(now_ms().max(0) as u64 * 1000),
            store,
        })
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Start `agent` on `input` in its own task. The returned reader yields the run's events,
    /// from `RUN_STARTED` to exactly one terminal event.
    ///
    /// A run on a known thread whose messages share no id with the thread's receives the
    /// thread's history before them (a client may send only the new messages), and the thread's
    /// state when it sends none.
    pub async fn start(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        mut input: RunAgentInput,
        settings: RunSettings,
    ) -> Result<StartedRun, ApiError> {
        let mut earlier_hints = Vec::new();
        if let Some((messages, state, hints)) = self.history(&input.thread_id).await {
            merge_history(&mut input, messages, state);
            earlier_hints = hints;
        }
        let cancel = CancellationToken::new();
        let log = Arc::new(RunLog::new(self.store.is_some()));
        {
            let mut active = self.active.lock().unwrap();
            if active.contains_key(&input.run_id) {
                return Err(ApiError::Conflict(format!(
                    "run '{}' is already in progress",
                    input.run_id
                )));
            }
            active.insert(
                input.run_id.clone(),
                ActiveRun {
                    thread_id: input.thread_id.clone(),
                    cancel: cancel.clone(),
                    log: log.clone(),
                    started: Instant::now(),
                },
            );
        }
        let reader = RunReader {
            run_id: input.run_id.clone(),
            log: Some(log.clone()),
            store: self.store.clone(),
            after: 0,
            pending: VecDeque::new(),
            peer: input.protocol_version.as_deref().and_then(parse_version),
            flushed: false,
        };
        let sink = RunSink {
            log,
            runs: self.clone(),
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            seq: 0,
            chunks: ChunkExpander::new(),
        };
        let agent_id = agent.info().id;
        self.begin_thread(&input, earlier_hints);
        if let Some(store) = &self.store {
            store.run_started(&input, &agent_id, now_ms()).await;
        }
        let ctx = RunContext::new(input, settings, cancel.clone(), sink, self.clone());
        tokio::spawn(drive(agent, ctx));
        Ok(StartedRun {
            events: reader,
            cancel,
        })
    }

    /// A thread's conversation: the live one, else one rebuilt from the stored messages and
    /// state (not kept in memory).
    pub async fn load_thread(&self, thread_id: &str) -> Option<Conversation> {
        if let Some(c) = self.threads.lock().unwrap().get(thread_id) {
            return Some(c.clone());
        }
        let (messages, state, hints) = self.history(thread_id).await?;
        let mut conv = Conversation::default();
        conv.render_hints = hints;
        conv.apply(&Event::from(EventKind::MessagesSnapshot { messages }));
        conv.apply(&Event::from(EventKind::StateSnapshot { snapshot: state }));
        conv.thread_id = Some(thread_id.to_string());
        Some(conv)
    }

    /// A thread's messages, state and render hints: the live conversation's, else the stored.
    async fn history(
        &self,
        thread_id: &str,
    ) -> Option<(Vec<crate::protocol::types::Message>, Value, Vec<PlacedHint>)> {
        if let Some(c) = self.threads.lock().unwrap().get(thread_id) {
            return Some((c.messages.clone(), c.state.clone(), c.render_hints.clone()));
        }
        let store = self.store.as_ref()?;
        // The thread may have just left memory with its last writes still queued.
        store.flush().await;
        match store.thread(thread_id).await {
            Ok(Some(t)) => Some((t.messages, t.state, t.render_hints)),
            Ok(None) => None,
            Err(e) => {
                tracing::error!(thread = %thread_id, "cannot read the thread's history: {e}");
                None
            }
        }
    }

    /// A reader of run `run_id`'s events numbered after `after` (0: all of them), live or
    /// stored; None when the run is unknown. `peer` downgrades events for an older client.
    pub async fn reader(
        &self,
        run_id: &str,
        after: u64,
        peer: Option<Version>,
    ) -> Option<RunReader> {
        let log = self
            .active
            .lock()
            .unwrap()
            .get(run_id)
            .map(|r| r.log.clone());
        if log.is_none() {
            let store = self.store.as_ref()?;
            match store.run(run_id).await {
                Ok(Some(_)) => {}
                Ok(None) => return None,
                Err(e) => {
                    tracing::error!(run = %run_id, "cannot read the run: {e}");
                    return None;
                }
            }
        }
        Some(RunReader {
            run_id: run_id.to_string(),
            log,
            store: self.store.clone(),
            after,
            pending: VecDeque::new(),
            peer,
            flushed: false,
        })
    }

    /// Cancel runs by run id and/or thread id (both absent: every run). Returns how many.
    pub fn abort(&self, run_id: Option<&str>, thread_id: Option<&str>) -> usize {
        let active = self.active.lock().unwrap();
        let mut n = 0;
        for (id, run) in active.iter() {
            let hit = match (run_id, thread_id) {
                (Some(r), _) => r == id,
                (None, Some(t)) => t == run.thread_id,
                (None, None) => true,
            };
            if hit {
                run.cancel.cancel();
                n += 1;
            }
        }
        n
    }

    /// Runs still in progress (their tasks have not ended).
    pub fn active_count(&self) -> usize {
        self.active.lock().unwrap().len()
    }

    pub fn is_active(&self, run_id: &str) -> bool {
        self.active.lock().unwrap().contains_key(run_id)
    }

    pub(crate) fn register_wait(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.waits.lock().unwrap().insert(
            tool_call_id.to_string(),
            Waiter {
                run_id: run_id.to_string(),
                thread_id: thread_id.to_string(),
                tx,
            },
        );
        rx
    }

    pub(crate) fn forget_wait(&self, tool_call_id: &str) {
        self.waits.lock().unwrap().remove(tool_call_id);
    }

    /// Answer a tool call a running agent waits on. Returns the (thread, run) it belonged to,
    /// or None when nothing waits on that id.
    pub fn resolve_wait(&self, tool_call_id: &str, answer: Value) -> Option<(String, String)> {
        let waiter = self.waits.lock().unwrap().remove(tool_call_id)?;
        let ids = (waiter.thread_id, waiter.run_id);
        waiter.tx.send(answer).ok().map(|_| ids)
    }

    /// Tool calls currently waiting for an answer: (tool call id, thread id, run id).
    pub fn pending_waits(&self) -> Vec<(String, String, String)> {
        let waits = self.waits.lock().unwrap();
        let mut v: Vec<_> = waits
            .iter()
            .map(|(id, w)| (id.clone(), w.thread_id.clone(), w.run_id.clone()))
            .collect();
        v.sort();
        v
    }

    /// Subscribe to every event of every run.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Observed>> {
        self.hub.subscribe()
    }

    /// Subscribe for an observer that last saw event `last`: the events after it that the hub
    /// still holds, then the live ones — or None for the events when `last` is older than what
    /// is held (or from another process), and the observer must be resynchronised.
    pub fn subscribe_after(
        &self,
        last: u64,
    ) -> (
        broadcast::Receiver<Arc<Observed>>,
        Option<Vec<Arc<Observed>>>,
    ) {
        // Publishing numbers and sends under the threads lock: nothing slips between the
        // backlog and the subscription.
        let _threads = self.threads.lock().unwrap();
        let recent = self.recent.lock().unwrap();
        let rx = self.hub.subscribe();
        let current = self.seq.load(Ordering::Relaxed);
        let oldest = recent.front().map_or(current + 1, |e| e.seq);
        let backlog = (last <= current && last + 1 >= oldest)
            .then(|| recent.iter().filter(|e| e.seq > last).cloned().collect());
        (rx, backlog)
    }

    /// A copy of a thread's conversation (None: the most recently active thread).
    pub fn thread(&self, thread_id: Option<&str>) -> Option<(String, Conversation)> {
        let id = match thread_id {
            Some(t) => t.to_string(),
            None => self.latest_thread.lock().unwrap().clone()?,
        };
        let threads = self.threads.lock().unwrap();
        threads.get(&id).map(|c| (id.clone(), c.clone()))
    }

    /// For resynchronising an observer: the sequence number of the last event sent to the hub
    /// and a copy of the conversations (of `thread_id` only, or of every thread), taken
    /// atomically, so they reflect exactly the events numbered up to that sequence number.
    pub fn observer_snapshot(&self, thread_id: Option<&str>) -> (u64, Vec<(String, Conversation)>) {
        let threads = self.threads.lock().unwrap();
        let seq = self.seq.load(Ordering::Relaxed);
        let convs = match thread_id {
            Some(t) => threads
                .get(t)
                .map(|c| vec![(t.to_string(), c.clone())])
                .unwrap_or_default(),
            None => {
                let mut v: Vec<_> = threads
                    .iter()
                    .map(|(k, c)| (k.clone(), c.clone()))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            }
        };
        (seq, convs)
    }

    /// How many observers are subscribed to the hub.
    pub fn observer_count(&self) -> usize {
        self.hub.receiver_count()
    }

    /// Ids of the threads seen, sorted.
    pub fn thread_ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.threads.lock().unwrap().keys().cloned().collect();
        v.sort();
        v
    }

    /// The thread's conversation takes the run's input: its messages and its state, which is
    /// the baseline of the run's state deltas.
    /// A thread not in memory yet starts with its earlier runs' render hints (`hints`).
    fn begin_thread(&self, input: &RunAgentInput, hints: Vec<PlacedHint>) {
        let mut threads = self.threads.lock().unwrap();
        let conv = threads.entry(input.thread_id.clone()).or_insert_with(|| {
            let mut conv = Conversation::default();
            conv.render_hints = hints;
            conv
        });
        start_conversation(conv, input, now_ms());
        let t = self.clock.fetch_add(1, Ordering::Relaxed);
        self.recency
            .lock()
            .unwrap()
            .insert(input.thread_id.clone(), t);
        *self.latest_thread.lock().unwrap() = Some(input.thread_id.clone());
    }

    /// Drop the conversations of the least recently run threads that have no run in progress,
    /// beyond the [`IDLE_THREADS_KEPT`] newest (only with a database, which keeps them).
    /// Called with the registry of active runs locked, so that no one sees a run ended before
    /// its thread had the chance to leave.
    fn evict_idle_threads(&self, active: &HashMap<String, ActiveRun>) {
        if self.store.is_none() {
            return;
        }
        let busy: std::collections::HashSet<&String> =
            active.values().map(|r| &r.thread_id).collect();
        let latest = self.latest_thread.lock().unwrap().clone();
        let mut threads = self.threads.lock().unwrap();
        let excess = threads.len().saturating_sub(busy.len() + self.keep_idle);
        if excess == 0 {
            return;
        }
        let mut recency = self.recency.lock().unwrap();
        let mut idle: Vec<(u64, String)> = threads
            .keys()
            .filter(|t| !busy.contains(*t) && latest.as_ref() != Some(*t))
            .map(|t| (recency.get(t).copied().unwrap_or(0), t.clone()))
            .collect();
        idle.sort_unstable();
        for (_, t) in idle.into_iter().take(excess) {
            threads.remove(&t);
            recency.remove(&t);
        }
    }

    fn publish(
        &self,
        thread_id: &str,
        run_id: &str,
        event: &Event,
        json: Arc<str>,
        chunks: &mut ChunkExpander,
    ) {
        // The store is a client of the run like any other: chunks become triads first.
        let expanded = if matches!(event.kind, EventKind::RunStarted { .. }) {
            Vec::new()
        } else {
            chunks.expand(event.clone()).unwrap_or_default()
        };
        // Applying, numbering and sending happen under the threads lock, so sequence numbers
        // reach the hub in order and a snapshot taken under the same lock reflects exactly the
        // events numbered up to the counter (see `observer_snapshot`).
        let mut threads = self.threads.lock().unwrap();
        if !expanded.is_empty() {
            let conv = threads.entry(thread_id.to_string()).or_default();
            for e in &expanded {
                conv.apply(e);
            }
            conv.warnings.clear();
        }
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let observed = Arc::new(Observed {
            seq,
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            json,
        });
        {
            let mut recent = self.recent.lock().unwrap();
            if recent.len() == HUB_CAPACITY {
                recent.pop_front();
            }
            recent.push_back(observed.clone());
        }
        // No receivers is fine; a full buffer overwrites the oldest (lagging observers resync).
        // Never blocks: the run does not wait for observers.
        let _ = self.hub.send(observed);
    }

    fn end(&self, run_id: &str) {
        self.waits.lock().unwrap().retain(|_, w| w.run_id != run_id);
        let mut active = self.active.lock().unwrap();
        active.remove(run_id);
        self.evict_idle_threads(&active);
    }
}

/// Where a run's events go: the thread's conversation and observers, the run's log (read by its
/// clients), and the database.
pub struct RunSink {
    log: Arc<RunLog>,
    runs: Arc<Runs>,
    thread_id: String,
    run_id: String,
    /// The number of the last event sent.
    seq: u64,
    chunks: ChunkExpander,
}

impl RunSink {
    pub(crate) async fn send(&mut self, mut event: Event) {
        if event.timestamp.is_none() {
            event.timestamp = Some(now_ms());
        }
        self.seq += 1;
        let json: Arc<str> = event.to_json().into();
        self.runs.publish(
            &self.thread_id,
            &self.run_id,
            &event,
            json.clone(),
            &mut self.chunks,
        );
        self.log.push(Arc::new(Logged {
            seq: self.seq,
            event,
            json: json.clone(),
        }));
        if let Some(store) = &self.runs.store {
            // Waits when the disk is behind: the run goes at the pace its events are kept.
            // The log is told when the event is committed; only then do readers see it.
            let done: Arc<dyn super::store::Committed> = self.log.clone();
            store.event(&self.run_id, self.seq, json, Some(done)).await;
        } else {
            // A run with no reader would otherwise never yield.
            tokio::task::consume_budget().await;
        }
    }
}

/// Give `input` its thread's history when it carries none of it (see [`Runs::start`]).
fn merge_history(
    input: &mut RunAgentInput,
    history: Vec<crate::protocol::types::Message>,
    state: Value,
) {
    let known = |m: &crate::protocol::types::Message| {
        let id = m.id();
        history.iter().any(|h| h.id() == id)
    };
    if !history.is_empty() && !input.messages.iter().any(known) {
        let mut all = history.clone();
        all.append(&mut input.messages);
        input.messages = all;
    }
    let empty = match &input.state {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if empty && !matches!(&state, Value::Null) && state != Value::Object(Default::default()) {
        input.state = state;
    }
}

/// Drive one run: `RUN_STARTED`, the agent, then exactly one terminal event with everything
/// closed — whatever the agent did, including panicking.
async fn drive(agent: Arc<dyn Agent>, mut ctx: RunContext) {
    let started = Event::from(EventKind::RunStarted {
        thread_id: ctx.input.thread_id.clone(),
        run_id: ctx.input.run_id.clone(),
        parent_run_id: ctx.input.parent_run_id.clone(),
        input: None,
        protocol_version: Some(PROTOCOL_VERSION.into()),
    });
    let _ = ctx.send_checked(started).await;
    let outcome = AssertUnwindSafe(agent.run(&mut ctx)).catch_unwind().await;
    let result = match outcome {
        Ok(r) => r,
        Err(_) => Err(AgentError::failed(
            "INTERNAL_ERROR",
            "the agent failed unexpectedly",
        )),
    };
    let result = match result {
        Ok(_) | Err(AgentError::Cancelled) if ctx.is_cancelled() => Err(AgentError::Cancelled),
        other => other,
    };
    let terminal = match result {
        Ok(RunEnd {
            outcome,
            result,
            usage,
        }) => {
            close_open(&mut ctx).await;
            EventKind::RunFinished {
                thread_id: ctx.input.thread_id.clone(),
                run_id: ctx.input.run_id.clone(),
                result,
                outcome,
                usage: usage.map(|u| vec![u]),
            }
        }
        Err(AgentError::Cancelled) => {
            close_open(&mut ctx).await;
            EventKind::RunFinished {
                thread_id: ctx.input.thread_id.clone(),
                run_id: ctx.input.run_id.clone(),
                result: None,
                outcome: Some(RunOutcome::Cancelled),
                usage: None,
            }
        }
        Err(AgentError::Failed { message, code }) => EventKind::RunError {
            message,
            code: Some(code),
            usage: None,
        },
    };
    let (status, error) = match &terminal {
        EventKind::RunFinished {
            outcome: Some(RunOutcome::Cancelled),
            ..
        } => (RunState::Cancelled, None),
        EventKind::RunError { message, .. } => (RunState::Error, Some(message.clone())),
        _ => (RunState::Finished, None),
    };
    let run_id = ctx.input.run_id.clone();
    if let Err(e) = ctx.send_checked(Event::from(terminal)).await {
        tracing::error!(run = %run_id, "could not end the run cleanly: {e:?}");
    }
    ctx.sink.log.end();
    if let Some(store) = ctx.runs.store.clone() {
        let thread_id = ctx.input.thread_id.clone();
        if let Some((_, conv)) = ctx.runs.thread(Some(&thread_id)) {
            store
                .run_ended(&run_id, status, error, &conv, &thread_id, now_ms())
                .await;
        }
    }
    ctx.runs.end(&run_id);
}

async fn close_open(ctx: &mut RunContext) {
    for e in ctx.verifier.closing_events() {
        let _ = ctx.send_checked(e).await;
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
