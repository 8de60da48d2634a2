//! Each thread's current conversation: kept in memory while it is recent (built by the shared
//! reducer as events are published), read back from the database otherwise, and the history a
//! run receives when its client sends only the new messages.
//!
//! One lock guards every map here. Publishing an event applies it and hands it to the observer
//! hub under that lock ([`ThreadCache::apply_then`]), so a snapshot taken under the same lock
//! ([`ThreadCache::snapshot`]) reflects exactly the events numbered up to the hub's counter.

use std::collections::{HashMap, HashSet};

use parking_lot::Mutex;
use serde_json::Value;

use super::registry::Busy;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::{Conversation, PlacedHint, RunStatus};
use crate::protocol::types::{Interrupt, Message, RunAgentInput};
use crate::server::accounts::User;
use crate::server::limits::Limits;
use crate::server::store::{start_conversation, Store};

mod relocate;

/// A thread as a run finds it: its messages, state and render hints.
pub struct History {
    pub messages: Vec<Message>,
    pub state: Value,
    pub hints: Vec<PlacedHint>,
}

/// The conversations of the threads in memory, who owns them, and which ran last.
pub struct ThreadCache {
    inner: Mutex<Inner>,
    /// How many threads without a run in progress keep their conversation (with a database).
    keep_idle: usize,
}

#[derive(Default)]
struct Inner {
    /// Boxed: a conversation is 650 bytes, and a map of them inline is a table of that many
    /// bytes a slot, three in ten of them empty, copied whole as it grows (with ten thousand
    /// threads in progress, 11 MB).
    threads: HashMap<String, Box<Conversation>>,
    /// Thread id → its owner, for the threads in `threads` (the database keeps the others').
    owners: HashMap<String, User>,
    /// Each user's most recently started thread (one entry per user).
    latest_by_owner: HashMap<User, String>,
    /// Thread id → when a run last started on it (a counter), for evicting idle threads.
    recency: HashMap<String, u64>,
    clock: u64,
    latest: Option<String>,
    /// Thread id → approximate bytes of its conversation (measured when its last run ended),
    /// for keeping idle threads in memory by size.
    bytes: HashMap<String, usize>,
    /// The sum of `bytes`.
    total_bytes: usize,
}

impl Inner {
    /// Give back the room the maps grew to while a crowd of threads was in memory.
    fn shrink_if_sparse(&mut self) {
        use crate::server::trim::shrink_if_sparse;
        shrink_if_sparse(&mut self.threads);
        shrink_if_sparse(&mut self.owners);
        shrink_if_sparse(&mut self.latest_by_owner);
        shrink_if_sparse(&mut self.recency);
        shrink_if_sparse(&mut self.bytes);
    }
}

impl ThreadCache {
    pub fn new(keep_idle: usize) -> Self {
        ThreadCache {
            inner: Mutex::default(),
            keep_idle,
        }
    }

    /// A copy of a thread's conversation, if it is in memory.
    pub fn get(&self, thread_id: &str) -> Option<Conversation> {
        self.inner
            .lock()
            .threads
            .get(thread_id)
            .map(|c| Conversation::clone(c))
    }

    /// A thread's messages, state and render hints, if it is in memory.
    pub fn live_history(&self, thread_id: &str) -> Option<History> {
        let inner = self.inner.lock();
        let c = inner.threads.get(thread_id)?;
        Some(History {
            messages: c.messages.clone(),
            state: c.state.clone(),
            hints: c.render_hints.clone(),
        })
    }

    /// Whether the last run of a thread in memory failed (None: not in memory).
    pub fn last_run_failed(&self, thread_id: &str) -> Option<bool> {
        let inner = self.inner.lock();
        let c = inner.threads.get(thread_id)?;
        Some(matches!(c.run, RunStatus::Error { .. }))
    }

    /// The interrupts a thread in memory waits on (None: not in memory).
    pub fn open_interrupts(&self, thread_id: &str) -> Option<Vec<Interrupt>> {
        let inner = self.inner.lock();
        Some(inner.threads.get(thread_id)?.pending_interrupts.clone())
    }

    /// The owner of a thread in memory.
    pub fn owner(&self, thread_id: &str) -> Option<User> {
        self.inner.lock().owners.get(thread_id).cloned()
    }

    /// Record `owner` as the owner of `thread_id`, unless the thread is known (in memory, or
    /// `stored_owner` from the database) to belong to someone else: then false, and nothing
    /// changes.
    pub fn claim(&self, thread_id: &str, owner: &User, stored_owner: Option<String>) -> bool {
        let mut inner = self.inner.lock();
        let known = inner.owners.get(thread_id).map(|o| o.name().to_string());
        if known.or(stored_owner).is_some_and(|o| !owner.is(&o)) {
            return false;
        }
        inner.owners.insert(thread_id.to_string(), owner.clone());
        true
    }

    /// The thread's conversation takes the run's input: its messages and its state, which is
    /// the baseline of the run's state deltas. A thread not in memory starts from `history`
    /// (read when the run began); the run `replaced` (its id and the messages it produced)
    /// leaves it first. Returns the thread's messages now.
    pub fn begin(
        &self,
        input: &RunAgentInput,
        owner: &User,
        history: Option<History>,
        replaced: Option<(&str, &HashSet<String>)>,
        limits: &Limits,
        now_ms: i64,
    ) -> Vec<Message> {
        let mut inner = self.inner.lock();
        let conv = inner
            .threads
            .entry(input.thread_id.clone())
            .or_insert_with(|| Box::new(history.map(conversation_of).unwrap_or_default()));
        conv.state_limits = limits.state();
        if let Some((run_id, produced)) = replaced {
            conv.forget_run(run_id, produced);
        }
        start_conversation(conv, input, now_ms);
        let messages = conv.messages.clone();
        inner.clock += 1;
        let t = inner.clock;
        inner.recency.insert(input.thread_id.clone(), t);
        inner.latest = Some(input.thread_id.clone());
        inner
            .latest_by_owner
            .insert(owner.clone(), input.thread_id.clone());
        messages
    }

    /// Apply `events` to the thread's conversation, then call `then` with the lock still held
    /// (the observer hub numbers and sends the event there: see the module).
    pub fn apply_then<R>(&self, thread_id: &str, events: &[Event], then: impl FnOnce() -> R) -> R {
        let mut inner = self.inner.lock();
        if !events.is_empty() {
            // Looked up before an entry is made: the id is copied only for a new thread.
            let conv = match inner.threads.get_mut(thread_id) {
                Some(conv) => conv,
                None => inner.threads.entry(thread_id.to_string()).or_default(),
            };
            for e in events {
                conv.apply(e);
            }
            conv.warnings.clear();
        }
        then()
    }

    /// Call `f` with the lock held: nothing is published meanwhile.
    pub fn locked<R>(&self, f: impl FnOnce() -> R) -> R {
        let _inner = self.inner.lock();
        f()
    }

    /// Copies of the conversations (of `thread_id` only, or of the `max` most recently run
    /// threads), of `owner`'s threads only when given, and `seq()` read under the same lock.
    pub fn snapshot(
        &self,
        thread_id: Option<&str>,
        owner: Option<&User>,
        max: usize,
        seq: impl FnOnce() -> u64,
    ) -> (u64, Vec<(String, Conversation)>) {
        let inner = self.inner.lock();
        let seq = seq();
        let visible = |t: &str| owner.is_none_or(|o| inner.owners.get(t) == Some(o));
        let convs = match thread_id {
            Some(t) if !visible(t) => Vec::new(),
            Some(t) => inner
                .threads
                .get(t)
                .map(|c| vec![(t.to_string(), Conversation::clone(c))])
                .unwrap_or_default(),
            None => {
                // The most recently run visible threads only: a bounded copy, however many
                // threads the server holds.
                let mut recent: Vec<(u64, &String)> = inner
                    .threads
                    .keys()
                    .filter(|k| visible(k))
                    .map(|t| (inner.recency.get(t).copied().unwrap_or(0), t))
                    .collect();
                recent.sort_unstable_by(|a, b| b.cmp(a));
                let mut v: Vec<_> = recent
                    .into_iter()
                    .take(max)
                    .filter_map(|(_, t)| {
                        let c = inner.threads.get(t)?;
                        Some((t.clone(), Conversation::clone(c)))
                    })
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            }
        };
        (seq, convs)
    }

    /// The most recently started thread.
    pub fn latest(&self) -> Option<String> {
        self.inner.lock().latest.clone()
    }

    /// `user`'s most recently started thread.
    pub fn latest_of(&self, user: &User) -> Option<String> {
        self.inner.lock().latest_by_owner.get(user).cloned()
    }

    /// Ids of the threads in memory, sorted.
    pub fn ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.inner.lock().threads.keys().cloned().collect();
        v.sort();
        v
    }

    /// Forget a thread (deleted, or changed in the database): it is read back from the
    /// database when next needed.
    pub fn forget(&self, thread_id: &str) {
        let mut inner = self.inner.lock();
        inner.threads.remove(thread_id);
        inner.owners.remove(thread_id);
        inner.recency.remove(thread_id);
        if let Some(b) = inner.bytes.remove(thread_id) {
            inner.total_bytes = inner.total_bytes.saturating_sub(b);
        }
        inner.latest_by_owner.retain(|_, t| t != thread_id);
        if inner.latest.as_deref() == Some(thread_id) {
            inner.latest = None;
        }
        inner.shrink_if_sparse();
    }

    /// Shrink a thread's conversation to what it holds ([`Conversation::compact`]): called as
    /// its run starts waiting on a human.
    pub fn compact(&self, thread_id: &str) {
        if let Some(c) = self.inner.lock().threads.get_mut(thread_id) {
            c.compact();
        }
    }

    /// Remember the size of a thread's conversation (measured when its run ended).
    pub fn record_size(&self, thread_id: &str, bytes: usize) {
        let mut inner = self.inner.lock();
        let old = inner.bytes.insert(thread_id.to_string(), bytes);
        inner.total_bytes = inner.total_bytes.saturating_sub(old.unwrap_or(0)) + bytes;
    }

    /// Each thread in memory and where its conversation is (to tell a copy from the original).
    #[cfg(test)]
    pub fn addresses(&self) -> Vec<(String, usize)> {
        let inner = self.inner.lock();
        let mut all: Vec<_> = inner
            .threads
            .iter()
            .map(|(t, c)| (t.clone(), &**c as *const Conversation as usize))
            .collect();
        all.sort();
        all
    }

    /// Drop the conversations of the least recently run threads not in `busy`, beyond the
    /// `keep_idle` newest and beyond `max_idle_bytes` of idle threads. Only with a database,
    /// which keeps them.
    ///
    /// Called at every run's end: within the bounds it returns at once. Past one, it goes over
    /// every thread in memory, and leaves room (an eighth of each bound) so that the next runs'
    /// ends find it within them again.
    pub fn evict_idle(&self, busy: &Busy, max_idle_bytes: usize) {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        let over_count = inner.threads.len() > busy.len().saturating_add(self.keep_idle);
        // Every thread's bytes bound the idle threads' bytes.
        if !over_count && inner.total_bytes <= max_idle_bytes {
            return;
        }
        let max_idle_bytes = max_idle_bytes - max_idle_bytes / 8;
        let keep_idle = self.keep_idle - self.keep_idle / 8;
        let latest = inner.latest.as_deref();
        let mut idle: Vec<(u64, String)> = inner
            .threads
            .keys()
            .filter(|t| !busy.contains_key(t.as_str()) && latest != Some(t.as_str()))
            .map(|t| (inner.recency.get(t).copied().unwrap_or(0), t.clone()))
            .collect();
        let mut idle_bytes: usize = idle
            .iter()
            .map(|(_, t)| inner.bytes.get(t).copied().unwrap_or(0))
            .sum();
        let mut excess = inner
            .threads
            .len()
            .saturating_sub(busy.len().saturating_add(keep_idle));
        if excess == 0 && idle_bytes <= max_idle_bytes {
            return;
        }
        idle.sort_unstable();
        for (_, t) in idle {
            if excess == 0 && idle_bytes <= max_idle_bytes {
                break;
            }
            inner.threads.remove(&t);
            inner.recency.remove(&t);
            // The database keeps the owner of a thread that leaves memory.
            inner.owners.remove(&t);
            let bytes = inner.bytes.remove(&t).unwrap_or(0);
            inner.total_bytes = inner.total_bytes.saturating_sub(bytes);
            idle_bytes = idle_bytes.saturating_sub(bytes);
            excess = excess.saturating_sub(1);
        }
        inner.shrink_if_sparse();
    }
}

/// A stored thread's messages, state and render hints (once the writes still queued for it are
/// committed: it may have just left memory).
pub async fn stored_history(store: &Store, thread_id: &str) -> Option<History> {
    store.flush_thread(thread_id).await;
    match store.thread(thread_id).await {
        Ok(Some(t)) => Some(History {
            messages: t.messages,
            state: t.state,
            hints: t.render_hints,
        }),
        Ok(None) => None,
        Err(e) => {
            tracing::error!(thread = %thread_id, "cannot read the thread's history: {e}");
            None
        }
    }
}

/// A conversation holding a stored thread's messages, state and render hints.
pub fn conversation_of(history: History) -> Conversation {
    let mut conv = Conversation::default();
    conv.apply(&Event::from(EventKind::MessagesSnapshot {
        messages: history.messages,
    }));
    conv.apply(&Event::from(EventKind::StateSnapshot {
        snapshot: history.state,
    }));
    conv.render_hints = history.hints;
    conv
}

/// Give `input` its thread's history when it carries none of it (see `Runs::start`). Linear
/// in the number of messages.
pub fn merge_history(input: &mut RunAgentInput, history: &[Message], state: &Value) {
    let history_ids: HashSet<&str> = history.iter().map(|m| m.id()).collect();
    let known = |m: &Message| history_ids.contains(m.id());
    if !history.is_empty() && !input.messages.iter().any(known) {
        let mut all = history.to_vec();
        all.append(&mut input.messages);
        input.messages = all;
    }
    let empty = match &input.state {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if empty && !matches!(state, Value::Null) && *state != Value::Object(Default::default()) {
        input.state = state.clone();
    }
}
