//! The observer hub: every event of every run, numbered, for `/api/ag-ui/stream` — live, resumed
//! from `Last-Event-ID` out of the newest events, or resynchronised from snapshots — and the
//! count of open observer streams per user.
//!
//! The hub numbers events; the thread cache's lock orders them: [`ObserverHub::publish`] and
//! [`ObserverHub::subscribe_after`] are called with that lock held (see `thread_cache`).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::broadcast;

use crate::server::accounts::User;
use crate::server::error::ApiError;

/// How many events the observer hub buffers; an observer further behind is resynchronised.
pub const HUB_CAPACITY: usize = 4096;

/// How many threads an observer's resynchronisation snapshots when it follows every thread.
pub const RESYNC_THREADS: usize = 8;

/// One event as observers see it.
#[derive(Debug)]
pub struct Observed {
    pub seq: u64,
    pub thread_id: Arc<str>,
    pub run_id: Arc<str>,
    /// The run's owner: only they observe it.
    pub owner: User,
    pub json: Arc<str>,
    /// The event as an SSE frame with its number, encoded by the first observer that sends
    /// it and shared by the others (with no observer, never).
    frame: std::sync::OnceLock<String>,
}

impl Observed {
    pub fn new(
        seq: u64,
        thread_id: Arc<str>,
        run_id: Arc<str>,
        owner: &User,
        json: Arc<str>,
    ) -> Self {
        Observed {
            seq,
            thread_id,
            run_id,
            owner: owner.clone(),
            json,
            frame: std::sync::OnceLock::new(),
        }
    }

    /// `id: {seq}` and `data: {json}`, as an SSE frame.
    pub fn frame(&self) -> &str {
        self.frame.get_or_init(|| {
            crate::protocol::sse::encode_event(&self.json, Some(&self.seq.to_string()), None)
        })
    }
}

/// Open observer streams per user.
type Counts = Arc<Mutex<HashMap<String, usize>>>;

pub struct ObserverHub {
    hub: broadcast::Sender<Arc<Observed>>,
    /// The hub's newest events, for observers resuming with `Last-Event-ID`.
    recent: Mutex<VecDeque<Arc<Observed>>>,
    seq: AtomicU64,
    counts: Counts,
}

/// One open observer stream, counted against its user's limit while it lives.
pub struct ObserverSlot {
    counts: Counts,
    user: String,
}

impl Drop for ObserverSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock();
        if let Some(n) = counts.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.remove(&self.user);
            }
        }
    }
}

impl ObserverHub {
    /// A hub whose numbers start at `first_seq` (the process's start time in ms × 1000, so an
    /// id from an earlier process is recognisably older than any of ours).
    pub fn new(first_seq: u64) -> Self {
        let (hub, _) = broadcast::channel(HUB_CAPACITY);
        ObserverHub {
            hub,
            recent: Mutex::default(),
            seq: AtomicU64::new(first_seq),
            counts: Counts::default(),
        }
    }

    /// Every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Observed>> {
        self.hub.subscribe()
    }

    /// For an observer that last saw event `last`: the events after it that the hub still
    /// holds, then the live ones — or None for the events when `last` is older than what is
    /// held (or from another process), and the observer must be resynchronised. Called with
    /// the thread cache locked, so nothing slips between the backlog and the subscription.
    pub fn subscribe_after(
        &self,
        last: u64,
    ) -> (
        broadcast::Receiver<Arc<Observed>>,
        Option<Vec<Arc<Observed>>>,
    ) {
        let recent = self.recent.lock();
        let rx = self.hub.subscribe();
        let current = self.seq();
        let oldest = recent.front().map_or(current + 1, |e| e.seq);
        let backlog = (last <= current && last + 1 >= oldest)
            .then(|| recent.iter().filter(|e| e.seq > last).cloned().collect());
        (rx, backlog)
    }

    /// The number of the last event sent.
    pub fn seq(&self) -> u64 {
        self.seq.load(Ordering::Relaxed)
    }

    /// Number one event and send it. Called with the thread cache locked, so numbers reach the
    /// hub in order. Never blocks: a run does not wait for its observers (a full buffer
    /// overwrites the oldest; lagging observers resynchronise).
    pub fn publish(&self, thread_id: &Arc<str>, run_id: &Arc<str>, owner: &User, json: Arc<str>) {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let observed = Arc::new(Observed::new(
            seq,
            thread_id.clone(),
            run_id.clone(),
            owner,
            json,
        ));
        {
            let mut recent = self.recent.lock();
            if recent.len() == HUB_CAPACITY {
                recent.pop_front();
            }
            recent.push_back(observed.clone());
        }
        let _ = self.hub.send(observed);
    }

    /// A slot for one more observer stream of `user`, released when dropped; 429 past `max`.
    pub fn slot(&self, user: &str, max: usize) -> Result<ObserverSlot, ApiError> {
        let mut counts = self.counts.lock();
        let n = counts.entry(user.to_string()).or_insert(0);
        if *n >= max {
            return Err(ApiError::TooManyObservers(format!(
                "{max} observer streams are open for this user, the limit; close one first"
            )));
        }
        *n += 1;
        Ok(ObserverSlot {
            counts: self.counts.clone(),
            user: user.to_string(),
        })
    }

    /// How many observers are subscribed.
    pub fn receivers(&self) -> usize {
        self.hub.receiver_count()
    }
}
