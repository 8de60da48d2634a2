//! Runs: the registry of runs in progress (each with a cancel handle and its event log), the
//! task that drives an agent and guarantees a well-formed stream, the waits for human answers,
//! the observer hub, each thread's current conversation computed by the shared reducer, and the
//! readers through which clients read (and re-read after a disconnect) a run's events.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

// Locks that cannot be poisoned: a panic while one is held (none is expected) must not make
// every later request panic too.
use parking_lot::Mutex;
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

use super::auth::User;
use super::error::ApiError;
use super::limits::Limits;
use super::store::{start_conversation, Store};
use context::{Agent, AgentError, RunContext, RunEnd, RunSettings, ToolAnswers};

mod admit;
pub mod context;
mod drive;
mod log;
mod observers;
mod retry;
#[cfg(test)]
mod tests;
mod thread_cache;
mod waits;
use admit::{blocking, not_your_thread, too_many_runs, too_many_runs_for_user};
use drive::drive;
pub use drive::RunSink;
use log::RunLog;
pub use log::{Frame, Logged, RunReader, LIVE_WINDOW};
pub use observers::{Observed, ObserverSlot, RESYNC_THREADS};
use thread_cache::merge_history;
use waits::Waits;

/// How many events the observer hub buffers; an observer further behind is resynchronised.
pub const HUB_CAPACITY: usize = 4096;
/// With a database, how many threads without a run in progress keep their conversation in
/// memory (the most recently run); the others are read back from the database when needed.
pub const IDLE_THREADS_KEPT: usize = 256;

struct ActiveRun {
    thread_id: String,
    owner: User,
    cancel: CancellationToken,
    log: Arc<RunLog>,
    #[allow(dead_code)]
    started: Instant,
}

/// Every run of this server.
pub struct Runs {
    active: Mutex<HashMap<String, ActiveRun>>,
    waits: Waits,
    threads: Mutex<HashMap<String, Conversation>>,
    /// Thread id → its owner, for the threads in `threads` (the database keeps the others').
    owners: Mutex<HashMap<String, User>>,
    /// Each user's most recently started thread (one entry per user).
    latest_by_owner: Mutex<HashMap<User, String>>,
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
    limits: Limits,
    /// Thread id → approximate bytes of its conversation (measured when its last run ended),
    /// for keeping idle threads in memory by size.
    pub(super) thread_bytes: Mutex<HashMap<String, usize>>,
    /// Open observer streams per user.
    observers: Mutex<HashMap<String, usize>>,
}

/// A started run: a reader of its events for the client that started it, and its cancel handle.
pub struct StartedRun {
    pub events: RunReader,
    pub cancel: CancellationToken,
}

impl Runs {
    /// Runs kept in memory only (their events and threads are all kept while they last).
    pub fn new() -> Arc<Self> {
        Self::build(None, usize::MAX, Limits::default())
    }

    /// Runs persisted in `store`, keeping [`IDLE_THREADS_KEPT`] idle threads in memory.
    pub fn with_store(store: Store) -> Arc<Self> {
        Self::with_store_and_limits(store, Limits::default())
    }

    /// Runs persisted in `store`, within `limits`.
    pub fn with_store_and_limits(store: Store, limits: Limits) -> Arc<Self> {
        Self::build(Some(store), IDLE_THREADS_KEPT, limits)
    }

    /// Runs persisted in `store`, keeping `keep_idle` idle threads in memory.
    pub fn with_store_keeping(store: Store, keep_idle: usize) -> Arc<Self> {
        Self::build(Some(store), keep_idle, Limits::default())
    }

    fn build(store: Option<Store>, keep_idle: usize, limits: Limits) -> Arc<Self> {
        let (hub, _) = broadcast::channel(HUB_CAPACITY);
        Arc::new(Runs {
            active: Mutex::default(),
            waits: Waits::default(),
            threads: Mutex::default(),
            owners: Mutex::default(),
            latest_by_owner: Mutex::default(),
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
            limits,
            thread_bytes: Mutex::default(),
            observers: Mutex::default(),
        })
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// [`Runs::start_for`] the anonymous user (a server without authentication).
    pub async fn start(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        input: RunAgentInput,
        settings: RunSettings,
    ) -> Result<StartedRun, ApiError> {
        self.start_for(agent, input, settings, User::anonymous())
            .await
    }

    /// Start `agent` on `input` in its own task, for `owner`. The returned reader yields the
    /// run's events, from `RUN_STARTED` to exactly one terminal event.
    ///
    /// A run on a known thread whose messages share no id with the thread's receives the
    /// thread's history before them (a client may send only the new messages), and the thread's
    /// state when it sends none. A thread of another user is 404 and a run id of another
    /// user's run 409; neither is touched.
    ///
    /// Refused before anything is allocated for it: an input past the [`Limits`], a run id in
    /// progress or already used on another thread (409), more runs than allowed in total or
    /// for this user (429).
    pub async fn start_for(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        input: RunAgentInput,
        settings: RunSettings,
        owner: User,
    ) -> Result<StartedRun, ApiError> {
        self.limits.check_run_input(&input)?;
        self.check_capacity(&input.run_id, &owner)?;
        let stored_owner = self.check_owner(&input, &owner).await?;
        if let Some(store) = &self.store {
            let known = store
                .run(&input.run_id)
                .await
                .map_err(|e| ApiError::Internal(format!("database error: {e}")))?;
            if let Some(run) = known {
                if run.thread_id != input.thread_id {
                    return Err(ApiError::Conflict(format!(
                        "run id '{}' is already used on another thread",
                        input.run_id
                    )));
                }
            }
        }
        // Before anything is stored: a refused request leaves no run behind.
        agent
            .check_input(&input, &settings)
            .map_err(ApiError::Unprocessable)?;
        let history = self.history(&input.thread_id).await;
        // Merging a long history is CPU work: off the async workers, so other clients (and
        // `/healthz`) are served meanwhile.
        let input = match history.as_ref() {
            Some(h) => {
                let (messages, state) = (h.messages.clone(), h.state.clone());
                blocking(move || {
                    let mut input = input;
                    merge_history(&mut input, &messages, &state);
                    input
                })
                .await?
            }
            None => input,
        };
        let replaced = self.replaced_run(&input).await;
        let cancel = CancellationToken::new();
        let log = Arc::new(RunLog::new(self.store.is_some()));
        {
            let mut active = self.active.lock();
            if active.contains_key(&input.run_id) {
                return Err(ApiError::Conflict(format!(
                    "run '{}' is already in progress",
                    input.run_id
                )));
            }
            if active.len() >= self.limits.max_runs {
                return Err(too_many_runs(self.limits.max_runs));
            }
            if active.values().filter(|r| r.owner == owner).count() >= self.limits.max_runs_per_user
            {
                return Err(too_many_runs_for_user(self.limits.max_runs_per_user));
            }
            // Checked again with the registry locked: two users racing for a new thread id.
            let mut owners = self.owners.lock();
            let known = owners.get(&input.thread_id).map(|o| o.0.to_string());
            if known.or(stored_owner).is_some_and(|o| !owner.is(&o)) {
                return Err(not_your_thread(&input.thread_id));
            }
            owners.insert(input.thread_id.clone(), owner.clone());
            drop(owners);
            active.insert(
                input.run_id.clone(),
                ActiveRun {
                    thread_id: input.thread_id.clone(),
                    owner: owner.clone(),
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
            told_failure: false,
        };
        let sink = RunSink {
            log,
            runs: self.clone(),
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            owner: owner.clone(),
            seq: 0,
            chunks: ChunkExpander::new(),
        };
        let agent_id = agent.info().id;
        let this = self.clone();
        let owner_name = owner.name().to_string();
        let (input, started) = blocking(move || {
            let messages = this.begin_thread(&input, history, replaced);
            let started = this.store.as_ref().map(|_| {
                Store::run_started_op(&input, &messages, &agent_id, &owner_name, now_ms())
            });
            (input, started)
        })
        .await?;
        self.latest_by_owner
            .lock()
            .insert(owner.clone(), input.thread_id.clone());
        if let (Some(store), Some(op)) = (&self.store, started) {
            store.run_started(op).await;
        }
        let log = sink.log.clone();
        let answers: Arc<dyn ToolAnswers> = self.clone();
        let ctx = RunContext::new(input, settings, cancel.clone(), Box::new(sink), answers);
        tokio::spawn(drive(agent, ctx, self.clone(), log));
        Ok(StartedRun {
            events: reader,
            cancel,
        })
    }

    /// A reader of run `run_id`'s events numbered after `after` (0: all of them), live or
    /// stored; None when the run is unknown. `peer` downgrades events for an older client.
    pub async fn reader(
        &self,
        run_id: &str,
        after: u64,
        peer: Option<Version>,
    ) -> Option<RunReader> {
        let log = self.active.lock().get(run_id).map(|r| r.log.clone());
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
            told_failure: false,
        })
    }

    /// Cancel runs by run id and/or thread id (both absent: every run), whoever owns them.
    /// Returns how many.
    pub fn abort(&self, run_id: Option<&str>, thread_id: Option<&str>) -> usize {
        self.abort_where(run_id, thread_id, None)
    }

    /// [`Runs::abort`] among `user`'s runs only.
    pub fn abort_for(&self, user: &User, run_id: Option<&str>, thread_id: Option<&str>) -> usize {
        self.abort_where(run_id, thread_id, Some(user))
    }

    fn abort_where(
        &self,
        run_id: Option<&str>,
        thread_id: Option<&str>,
        user: Option<&User>,
    ) -> usize {
        let active = self.active.lock();
        let mut n = 0;
        for (id, run) in active.iter() {
            if user.is_some_and(|u| *u != run.owner) {
                continue;
            }
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
        self.active.lock().len()
    }

    /// The number of the last event of run `run_id` if it is in progress.
    pub fn live_position(&self, run_id: &str) -> Option<u64> {
        let log = self.active.lock().get(run_id).map(|r| r.log.clone())?;
        Some(log.last_seq())
    }

    pub fn is_active(&self, run_id: &str) -> bool {
        self.active.lock().contains_key(run_id)
    }

    pub(crate) fn register_wait(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value> {
        let owner = self
            .active
            .lock()
            .get(run_id)
            .map(|r| r.owner.clone())
            .unwrap_or_else(User::anonymous);
        self.waits.register(tool_call_id, thread_id, run_id, owner)
    }

    pub(crate) fn forget_wait(&self, tool_call_id: &str) {
        self.waits.forget(tool_call_id);
    }

    /// Answer a tool call a running agent waits on. Returns the (thread, run) it belonged to,
    /// or None when nothing waits on that id.
    pub fn resolve_wait(&self, tool_call_id: &str, answer: Value) -> Option<(String, String)> {
        self.waits.resolve(None, tool_call_id, answer)
    }

    /// [`Runs::resolve_wait`] for `user`: a tool call of another user's run is not found.
    pub fn resolve_wait_for(
        &self,
        user: &User,
        tool_call_id: &str,
        answer: Value,
    ) -> Option<(String, String)> {
        self.waits.resolve(Some(user), tool_call_id, answer)
    }

    /// Tool calls currently waiting for an answer: (tool call id, thread id, run id).
    pub fn pending_waits(&self) -> Vec<(String, String, String)> {
        self.waits.pending()
    }

    /// A copy of a thread's conversation (None: the most recently active thread).
    pub fn thread(&self, thread_id: Option<&str>) -> Option<(String, Conversation)> {
        let id = match thread_id {
            Some(t) => t.to_string(),
            None => self.latest_thread.lock().clone()?,
        };
        let threads = self.threads.lock();
        threads.get(&id).map(|c| (id.clone(), c.clone()))
    }

    /// `user`'s most recently started thread.
    pub fn latest_thread_of(&self, user: &User) -> Option<String> {
        self.latest_by_owner.lock().get(user).cloned()
    }

    /// Ids of the threads seen, sorted.
    pub fn thread_ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.threads.lock().keys().cloned().collect();
        v.sort();
        v
    }

    fn end(&self, run_id: &str) {
        self.waits.forget_run(run_id);
        let mut active = self.active.lock();
        active.remove(run_id);
        self.evict_idle_threads(&active);
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl ToolAnswers for Runs {
    fn register(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value> {
        self.register_wait(tool_call_id, thread_id, run_id)
    }

    fn forget(&self, tool_call_id: &str) {
        self.forget_wait(tool_call_id)
    }
}
