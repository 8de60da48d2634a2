//! Runs: every run of this server, composed of owned parts, each with its own lock and a short
//! API — the registry of runs in progress (`registry`), the waits for human answers (`waits`),
//! each thread's current conversation computed by the shared reducer (`thread_cache`), and the
//! observer hub (`observers`) — plus the task that drives an agent and guarantees a
//! well-formed stream (`drive`), and the readers through which clients read (and re-read after
//! a disconnect) a run's events (`log`). The parts import nothing from this file; `Runs` wires
//! them together. `start` is `Runs`'s own: a run's start and the checks before it.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::protocol::compat::Version;
use crate::protocol::reduce::Conversation;
use crate::server::accounts::User;
use crate::server::clock::now_ms;
use crate::server::error::ApiError;
use crate::server::limits::Limits;
use crate::server::store::Store;
use context::ToolAnswers;
pub use registry::ThreadHold;
use registry::{Capacity, Registry};
use thread_cache::{conversation_of, stored_history, History, ThreadCache};
use waits::Waits;

mod admit;
pub mod context;
mod drive;
mod join;
mod log;
mod observers;
mod owners;
mod park;
mod registry;
mod resume;
mod retry;
mod side;
mod start;
#[cfg(test)]
mod tests;
mod thread_cache;
mod waits;
pub use drive::RunSink;
pub use join::Joined;
pub use log::{Frame, Logged, RunReader, LIVE_WINDOW};
pub use observers::{
    Edge, Observed, ObserverHub, ObserverSlot, Origin, SharedFrame, Subscription, Taken,
    HUB_CAPACITY, RESYNC_THREADS, SEGMENT_BYTES,
};

/// With a database, how many threads without a run in progress keep their conversation in
/// memory (the most recently run); the others are read back from the database when needed.
pub const IDLE_THREADS_KEPT: usize = 256;

/// Every run of this server.
pub struct Runs {
    registry: Registry,
    waits: Waits,
    threads: Arc<ThreadCache>,
    hub: Arc<ObserverHub>,
    store: Option<Store>,
    limits: Limits,
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
        Arc::new(Runs {
            registry: Registry::default(),
            waits: Waits::default(),
            threads: Arc::new(ThreadCache::new(keep_idle)),
            // Observer ids start at this process's start time (ms × 1000), so an id from an
            // earlier process is recognisably older than any of ours.
            hub: Arc::new(ObserverHub::new(now_ms().max(0) as u64 * 1000)),
            store,
            limits,
        })
    }

    fn capacity(&self) -> Capacity {
        Capacity {
            total: self.limits.max_runs,
            per_user: self.limits.max_runs_per_user,
        }
    }

    /// After a crowd has left: copy what stays in memory (the observer hub's newest events,
    /// the threads kept in memory) into fresh allocations so that the pages the crowd left
    /// them on can go back to the system (see [`ObserverHub::relocate`]). Blocking work (a few
    /// milliseconds): call it off the async workers. The calling thread's allocator cache is
    /// off meanwhile, so that each copy comes from the oldest free room rather than from what
    /// was freed last (the original just copied), and each original goes back to its page.
    pub fn relocate_after_crowd(&self) {
        crate::server::trim::thread_cache(false);
        self.hub.relocate();
        self.threads.relocate();
        crate::server::trim::thread_cache(true);
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// A reader of run `run_id`'s events numbered after `after` (0: all of them), live or
    /// stored; None when the run is unknown. `peer` downgrades events for an older client.
    pub async fn reader(
        &self,
        run_id: &str,
        after: u64,
        peer: Option<Version>,
    ) -> Option<RunReader> {
        let log = self.registry.log(run_id);
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
            paces: false,
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
        self.registry.cancel(run_id, thread_id, user)
    }

    /// Runs still in progress (their tasks have not ended).
    pub fn active_count(&self) -> usize {
        self.registry.len()
    }

    /// The number of the last event of run `run_id` if it is in progress.
    pub fn live_position(&self, run_id: &str) -> Option<u64> {
        Some(self.registry.log(run_id)?.last_seq())
    }

    pub fn is_active(&self, run_id: &str) -> bool {
        self.registry.contains(run_id)
    }

    pub(crate) fn register_wait(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value> {
        let owner = self.registry.owner(run_id).unwrap_or_else(User::anonymous);
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
            None => self.threads.latest()?,
        };
        let conv = self.threads.get(&id)?;
        Some((id, conv))
    }

    /// `user`'s thread `thread_id` to join (None: no such thread of theirs): its conversation
    /// and, with a run in progress, a reader of that run's events after those the conversation
    /// reflects (see `join`). `peer` downgrades the live events for an older client.
    pub async fn join_thread(
        &self,
        user: &User,
        thread_id: &str,
        peer: Option<Version>,
    ) -> Option<Joined> {
        if !self.owns_thread(user, thread_id).await {
            return None;
        }
        let store = self.store.as_ref();
        if let Some(j) = join::join_live(&self.registry, &self.threads, store, thread_id, peer) {
            return Some(j);
        }
        let conversation = self.load_thread(thread_id).await?;
        Some(Joined {
            conversation,
            live: None,
        })
    }

    /// `user`'s most recently started thread.
    pub fn latest_thread_of(&self, user: &User) -> Option<String> {
        self.threads.latest_of(user)
    }

    /// Ids of the threads in memory, sorted.
    pub fn thread_ids(&self) -> Vec<String> {
        self.threads.ids()
    }

    /// A thread's conversation: the live one, else one rebuilt from the stored messages and
    /// state (not kept in memory).
    pub async fn load_thread(&self, thread_id: &str) -> Option<Conversation> {
        if let Some(c) = self.threads.get(thread_id) {
            return Some(c);
        }
        let mut conv = conversation_of(self.history(thread_id).await?);
        conv.thread_id = Some(thread_id.to_string());
        Some(conv)
    }

    /// A thread's messages, state and render hints: the live conversation's, else the stored.
    async fn history(&self, thread_id: &str) -> Option<History> {
        if let Some(h) = self.threads.live_history(thread_id) {
            return Some(h);
        }
        stored_history(self.store.as_ref()?, thread_id).await
    }

    /// Hold a thread while it is changed outside a run (deleted, cut): 409 when a run of it is
    /// in progress; runs of it are refused (409) until the hold is dropped.
    pub fn hold_thread(&self, thread_id: &str) -> Result<ThreadHold<'_>, ApiError> {
        self.registry.hold(thread_id)
    }

    /// Forget a thread's conversation in memory (deleted, or changed in the database).
    pub fn forget_thread(&self, thread_id: &str) {
        self.threads.forget(thread_id);
    }

    /// Subscribe to every event of every run.
    pub fn subscribe(&self) -> Subscription {
        self.hub.subscribe()
    }

    /// Subscribe for an observer that last saw event `last`: with true, the subscription goes
    /// on after it (the hub still holds every event since); with false, `last` is older than
    /// what is held (or from another process), and the observer must be resynchronised.
    pub fn subscribe_after(&self, last: u64) -> (Subscription, bool) {
        self.threads.locked(|| self.hub.subscribe_after(last))
    }

    /// For resynchronising an observer: the sequence number of the last event sent to the hub
    /// and a copy of the conversations (of `thread_id` only, or of the [`RESYNC_THREADS`] most
    /// recently run threads), taken atomically, so they reflect exactly the events numbered up
    /// to that sequence number. With `owner`, only that user's threads.
    pub fn observer_snapshot(
        &self,
        thread_id: Option<&str>,
        owner: Option<&User>,
    ) -> (u64, Vec<(String, Conversation)>) {
        self.threads
            .snapshot(thread_id, owner, RESYNC_THREADS, || self.hub.seq())
    }

    /// A slot for one more observer stream of `user`, released when dropped; 429 past the
    /// configured number per user.
    pub fn observer_slot(&self, user: &str) -> Result<ObserverSlot, ApiError> {
        self.hub.slot(user, self.limits.max_observers_per_user)
    }

    /// How many observers are subscribed to the hub.
    pub fn observer_count(&self) -> usize {
        self.hub.receivers()
    }

    /// A run's task ended: its waits go, it leaves the registry, and idle threads beyond the
    /// bounds leave memory (with a database, which keeps them) before anyone sees it ended.
    fn end(&self, run_id: &str) {
        self.waits.forget_run(run_id);
        self.registry.remove(run_id, |busy| {
            if self.store.is_some() {
                self.threads
                    .evict_idle(busy, self.limits.idle_threads_bytes);
            }
        });
    }
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
