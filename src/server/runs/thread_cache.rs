//! Each thread's current conversation: kept in memory while it is recent (built by the shared
//! reducer as events are published), read back from the database otherwise, and the history a
//! run receives when its client sends only the new messages.

use super::retry::Replaced;
use super::*;
use crate::protocol::types::Message;

/// A thread as a run finds it: its messages, state and render hints.
pub(super) struct History {
    pub messages: Vec<Message>,
    pub state: Value,
    pub hints: Vec<PlacedHint>,
}

impl Runs {
    /// A thread's conversation: the live one, else one rebuilt from the stored messages and
    /// state (not kept in memory).
    pub async fn load_thread(&self, thread_id: &str) -> Option<Conversation> {
        if let Some(c) = self.threads.lock().get(thread_id) {
            return Some(c.clone());
        }
        let history = self.history(thread_id).await?;
        let mut conv = conversation_of(history);
        conv.thread_id = Some(thread_id.to_string());
        Some(conv)
    }

    /// A thread's messages, state and render hints: the live conversation's, else the stored.
    pub(super) async fn history(&self, thread_id: &str) -> Option<History> {
        if let Some(c) = self.threads.lock().get(thread_id) {
            return Some(History {
                messages: c.messages.clone(),
                state: c.state.clone(),
                hints: c.render_hints.clone(),
            });
        }
        let store = self.store.as_ref()?;
        // The thread may have just left memory with its last writes still queued.
        store.flush().await;
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

    /// The thread's conversation takes the run's input: its messages and its state, which is
    /// the baseline of the run's state deltas. A thread not in memory starts from `history`
    /// (what [`Runs::history`] read when the run began); a run the new one `replaced` leaves
    /// it first. Returns the thread's messages now.
    pub(super) fn begin_thread(
        &self,
        input: &RunAgentInput,
        history: Option<History>,
        replaced: Option<Replaced>,
    ) -> Vec<Message> {
        let mut threads = self.threads.lock();
        let conv = threads
            .entry(input.thread_id.clone())
            .or_insert_with(|| history.map(conversation_of).unwrap_or_default());
        conv.state_limits = self.limits.state();
        if let Some(r) = replaced {
            conv.forget_run(&r.run_id, &r.produced);
        }
        start_conversation(conv, input, now_ms());
        let messages = conv.messages.clone();
        drop(threads);
        let t = self.clock.fetch_add(1, Ordering::Relaxed);
        self.recency.lock().insert(input.thread_id.clone(), t);
        *self.latest_thread.lock() = Some(input.thread_id.clone());
        messages
    }

    /// Drop the conversations of the least recently run threads that have no run in progress,
    /// beyond the `keep_idle` newest and beyond the configured bytes of idle threads (only with
    /// a database, which keeps them). Called with the registry of active runs locked, so that
    /// no one sees a run ended before its thread had the chance to leave.
    pub(super) fn evict_idle_threads(&self, active: &HashMap<String, ActiveRun>) {
        if self.store.is_none() {
            return;
        }
        let busy: std::collections::HashSet<&String> =
            active.values().map(|r| &r.thread_id).collect();
        let latest = self.latest_thread.lock().clone();
        let mut threads = self.threads.lock();
        let mut recency = self.recency.lock();
        let mut sizes = self.thread_bytes.lock();
        let mut idle: Vec<(u64, String)> = threads
            .keys()
            .filter(|t| !busy.contains(*t) && latest.as_ref() != Some(*t))
            .map(|t| (recency.get(t).copied().unwrap_or(0), t.clone()))
            .collect();
        let mut idle_bytes: usize = idle
            .iter()
            .map(|(_, t)| sizes.get(t).copied().unwrap_or(0))
            .sum();
        let mut excess = threads.len().saturating_sub(busy.len() + self.keep_idle);
        if excess == 0 && idle_bytes <= self.limits.idle_threads_bytes {
            return;
        }
        idle.sort_unstable();
        let mut owners = self.owners.lock();
        for (_, t) in idle {
            if excess == 0 && idle_bytes <= self.limits.idle_threads_bytes {
                break;
            }
            threads.remove(&t);
            recency.remove(&t);
            // The database keeps the owner of a thread that leaves memory.
            owners.remove(&t);
            idle_bytes = idle_bytes.saturating_sub(sizes.remove(&t).unwrap_or(0));
            excess = excess.saturating_sub(1);
        }
    }
}

/// A conversation holding a stored thread's messages, state and render hints.
fn conversation_of(history: History) -> Conversation {
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

/// Give `input` its thread's history when it carries none of it (see [`Runs::start`]). Linear
/// in the number of messages.
pub(super) fn merge_history(input: &mut RunAgentInput, history: &[Message], state: &Value) {
    let history_ids: std::collections::HashSet<&str> = history.iter().map(|m| m.id()).collect();
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
