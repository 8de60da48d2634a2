//! The observer hub: every event of every run, numbered, for `/api/ag-ui/stream` — live, resumed
//! from `Last-Event-ID` out of the newest events, or resynchronised from snapshots.

use super::*;
use crate::server::auth::User;

/// One event as observers see it.
#[derive(Debug)]
pub struct Observed {
    pub seq: u64,
    pub thread_id: String,
    pub run_id: String,
    /// The run's owner: only they observe it.
    pub owner: User,
    pub json: Arc<str>,
}

/// How many threads an observer's resynchronisation snapshots when it follows every thread.
pub const RESYNC_THREADS: usize = 8;

/// One open observer stream, counted against its user's limit while it lives.
pub struct ObserverSlot {
    runs: Arc<Runs>,
    user: String,
}

impl Drop for ObserverSlot {
    fn drop(&mut self) {
        let mut counts = self.runs.observers.lock();
        if let Some(n) = counts.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.user);
            }
        }
    }
}

impl Runs {
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
        let _threads = self.threads.lock();
        let recent = self.recent.lock();
        let rx = self.hub.subscribe();
        let current = self.seq.load(Ordering::Relaxed);
        let oldest = recent.front().map_or(current + 1, |e| e.seq);
        let backlog = (last <= current && last + 1 >= oldest)
            .then(|| recent.iter().filter(|e| e.seq > last).cloned().collect());
        (rx, backlog)
    }

    /// For resynchronising an observer: the sequence number of the last event sent to the hub
    /// and a copy of the conversations (of `thread_id` only, or of every thread), taken
    /// atomically, so they reflect exactly the events numbered up to that sequence number.
    /// With `owner`, only that user's threads.
    pub fn observer_snapshot(
        &self,
        thread_id: Option<&str>,
        owner: Option<&User>,
    ) -> (u64, Vec<(String, Conversation)>) {
        let threads = self.threads.lock();
        let seq = self.seq.load(Ordering::Relaxed);
        let owners = self.owners.lock();
        let visible = |t: &str| owner.is_none_or(|o| owners.get(t) == Some(o));
        let convs = match thread_id {
            Some(t) if !visible(t) => Vec::new(),
            Some(t) => threads
                .get(t)
                .map(|c| vec![(t.to_string(), c.clone())])
                .unwrap_or_default(),
            None => {
                // The most recently run visible threads only (a run in progress is among them
                // unless more than that many started since): a resync costs a bounded copy,
                // however many threads the server holds.
                let recency = self.recency.lock();
                let mut recent: Vec<(u64, &String)> = threads
                    .keys()
                    .filter(|k| visible(k))
                    .map(|t| (recency.get(t).copied().unwrap_or(0), t))
                    .collect();
                recent.sort_unstable_by(|a, b| b.cmp(a));
                let mut v: Vec<_> = recent
                    .into_iter()
                    .take(RESYNC_THREADS)
                    .filter_map(|(_, t)| threads.get(t).map(|c| (t.clone(), c.clone())))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            }
        };
        (seq, convs)
    }

    /// A slot for one more observer stream of `user`, released when dropped; 429 past the
    /// configured number per user.
    pub fn observer_slot(self: &Arc<Self>, user: &str) -> Result<ObserverSlot, ApiError> {
        let mut counts = self.observers.lock();
        let n = counts.entry(user.to_string()).or_insert(0);
        if *n >= self.limits.max_observers_per_user {
            return Err(ApiError::TooManyObservers(format!(
                "{} observer streams are open for this user, the limit; close one first",
                self.limits.max_observers_per_user
            )));
        }
        *n += 1;
        Ok(ObserverSlot {
            runs: self.clone(),
            user: user.to_string(),
        })
    }

    /// How many observers are subscribed to the hub.
    pub fn observer_count(&self) -> usize {
        self.hub.receiver_count()
    }

    pub(super) fn publish(
        &self,
        thread_id: &str,
        run_id: &str,
        owner: &User,
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
        let mut threads = self.threads.lock();
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
            owner: owner.clone(),
            json,
        });
        {
            let mut recent = self.recent.lock();
            if recent.len() == HUB_CAPACITY {
                recent.pop_front();
            }
            recent.push_back(observed.clone());
        }
        // No receivers is fine; a full buffer overwrites the oldest (lagging observers resync).
        // Never blocks: the run does not wait for observers.
        let _ = self.hub.send(observed);
    }
}
