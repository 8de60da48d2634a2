//! The observer hub: every event of every run, numbered, for `/api/ag-ui/stream` — live, resumed
//! from `Last-Event-ID` out of the newest events, or resynchronised from snapshots — and the
//! count of open observer streams per user.
//!
//! The hub numbers events; the thread cache's lock orders them: [`ObserverHub::publish`] and
//! [`ObserverHub::subscribe_after`] are called with that lock held (see `thread_cache`).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;

use crate::server::accounts::User;
use crate::server::error::ApiError;

/// How many events the observer hub buffers; an observer further behind is resynchronised.
pub const HUB_CAPACITY: usize = 4096;

/// How many threads an observer's resynchronisation snapshots when it follows every thread.
pub const RESYNC_THREADS: usize = 8;

/// The most bytes of frames encoded into one shared buffer (a single larger frame has one of
/// its own). A slice keeps its whole buffer alive, and a stalled observer's connection holds up
/// to 16 of them (hyper's write queue), so this bounds what one stalled observer can pin: 1 MB
/// (64 observer streams per user by default). A fan-out's buffers are smaller anyway (the
/// events published between two observers' takes, about 8 KB in the capacity benchmark).
pub const SEGMENT_BYTES: usize = 64 * 1024;

/// Which run an event is of, and whose: one per run, shared by its events (one reference
/// count per event rather than three).
#[derive(Debug)]
pub struct Origin {
    pub thread_id: Arc<str>,
    pub run_id: Arc<str>,
    /// The run's owner: only they observe it.
    pub owner: User,
}

/// One event as observers see it.
#[derive(Debug)]
pub struct Observed {
    pub seq: u64,
    pub origin: Arc<Origin>,
    pub json: Arc<str>,
    /// Whether it starts or ends its run (read once here, not by every observer).
    pub edge: Edge,
    /// The event as an SSE frame with its number: encoded, with the events published after it,
    /// into one buffer by the first observer that takes it, and shared by the others (with no
    /// observer, never).
    frame: OnceLock<SharedFrame>,
}

/// Where an event stands in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// `RUN_STARTED`.
    Start,
    /// `RUN_FINISHED` or `RUN_ERROR`.
    End,
    /// Anything between.
    Within,
}

/// An event's SSE frame: a range of a buffer that holds the frames of consecutive events, so
/// that an observer sends a run of events as one slice of shared bytes rather than copying
/// each frame into a buffer of its own (10,000 observers of a 2,000-event run copied 2.6 GB).
#[derive(Debug)]
pub struct SharedFrame {
    /// The whole buffer: events whose frames are adjacent in the same buffer are one slice.
    pub segment: Bytes,
    pub start: usize,
    pub end: usize,
}

impl SharedFrame {
    /// The frame's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.segment[self.start..self.end]
    }
}

impl Observed {
    pub fn new(seq: u64, origin: Arc<Origin>, json: Arc<str>) -> Self {
        // Event JSON always starts with its type (`preserve_order`).
        let edge = if json.starts_with(r#"{"type":"RUN_STARTED""#) {
            Edge::Start
        } else if json.starts_with(r#"{"type":"RUN_FINISHED""#)
            || json.starts_with(r#"{"type":"RUN_ERROR""#)
        {
            Edge::End
        } else {
            Edge::Within
        };
        Observed {
            seq,
            origin,
            json,
            edge,
            frame: OnceLock::new(),
        }
    }

    /// `id: {seq}` and `data: {json}`, as an SSE frame: set for every event a subscription
    /// hands out ([`Subscription::take`] encodes what it is about to hand out first).
    pub fn frame(&self) -> Option<&SharedFrame> {
        self.frame.get()
    }
}

/// Open observer streams per user.
type Counts = Arc<Mutex<HashMap<String, usize>>>;

/// The hub's newest events, numbered without a gap: the front is the oldest still held. Read
/// only under the lock, so held by value (no reference per event).
type Window = VecDeque<Observed>;

/// Every observer reads the same window of the newest events, each from where it left off, a
/// batch at a time under one read lock: an event costs an observer no receive of its own, no
/// reference count and no lock (a broadcast channel took a slot's lock, a counter and a
/// reference per event and observer: a quarter of the server's time in a fan-out to 10,000).
pub struct ObserverHub {
    window: RwLock<Window>,
    /// How many events the window holds ([`HUB_CAPACITY`]).
    capacity: usize,
    seq: AtomicU64,
    /// Wakes the observers waiting for an event (only while there are observers).
    published: Notify,
    receivers: AtomicUsize,
    counts: Counts,
    /// Held while frames are encoded, so that concurrent takers do not encode the same events.
    encoding: Mutex<()>,
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

/// One observer's place in the hub: the number of the last event it has taken. It does not
/// keep the hub alive: once the hub is gone, its stream ends.
pub struct Subscription {
    hub: Weak<ObserverHub>,
    last: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(hub) = self.hub.upgrade() {
            hub.receivers.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// What [`Subscription::take`] found.
pub enum Taken {
    /// This many events (each given to the caller); none when nothing new was published.
    Events(usize),
    /// The subscriber fell this many events behind what the window holds; it now stands just
    /// before the oldest event held.
    Lagged(u64),
    /// The hub is gone.
    Closed,
}

impl Subscription {
    /// The number of the last event taken.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Skip every event up to `seq` (a resynchronisation's snapshot reflects them).
    pub fn skip_to(&mut self, seq: u64) {
        self.last = self.last.max(seq);
    }

    /// Hand up to `max` events after the last one taken to `each`, in order, under the window's
    /// read lock (`each` must not publish, subscribe or take a run's lock).
    pub fn take(&mut self, max: usize, mut each: impl FnMut(&Observed)) -> Taken {
        let Some(hub) = self.hub.upgrade() else {
            return Taken::Closed;
        };
        let window = hub.window.read();
        let Some(oldest) = window.front().map(|e| e.seq) else {
            return Taken::Events(0);
        };
        if self.last + 1 < oldest {
            let missed = oldest - 1 - self.last;
            self.last = oldest - 1;
            return Taken::Lagged(missed);
        }
        let from = ((self.last + 1 - oldest) as usize).min(window.len());
        let upto = from.saturating_add(max).min(window.len());
        if window.range(from..upto).any(|e| e.frame.get().is_none()) {
            hub.encode_frames(&window, from);
        }
        let mut n = 0;
        for ev in window.range(from..).take(max) {
            each(ev);
            self.last = ev.seq;
            n += 1;
        }
        Taken::Events(n)
    }

    /// How many events were published after the last one taken (some perhaps not yet in the
    /// window).
    pub fn behind(&self) -> u64 {
        self.hub
            .upgrade()
            .map_or(0, |hub| hub.seq().saturating_sub(self.last))
    }

    /// Wait until an event is published after the last one taken, `deadline`, or the hub's
    /// end.
    pub async fn wait(&self, deadline: tokio::time::Instant) {
        let Some(hub) = self.hub.upgrade() else {
            return;
        };
        // Created before the check: a publish after it wakes this one.
        let published = hub.published.notified();
        if hub.window.read().back().is_some_and(|e| e.seq > self.last) {
            return;
        }
        let _ = tokio::time::timeout_at(deadline, published).await;
    }
}

impl ObserverHub {
    /// A hub whose numbers start at `first_seq` (the process's start time in ms × 1000, so an
    /// id from an earlier process is recognisably older than any of ours).
    pub fn new(first_seq: u64) -> Self {
        Self::with_capacity(first_seq, HUB_CAPACITY)
    }

    /// A hub holding the newest `capacity` events (at least one).
    pub fn with_capacity(first_seq: u64, capacity: usize) -> Self {
        ObserverHub {
            window: RwLock::new(VecDeque::new()),
            capacity: capacity.max(1),
            seq: AtomicU64::new(first_seq),
            published: Notify::new(),
            receivers: AtomicUsize::new(0),
            counts: Counts::default(),
            encoding: Mutex::new(()),
        }
    }

    /// Encode the frames of the events from `from` to the window's end that have none, each
    /// run of them into shared buffers of up to [`SEGMENT_BYTES`]: the first observer to take
    /// an event encodes the ones published after it too, so that a run's events, however
    /// fast they came, share a few large buffers that every observer sends slices of.
    fn encode_frames(&self, window: &Window, from: usize) {
        let _encoding = self.encoding.lock();
        let mut i = from;
        while i < window.len() {
            if window[i].frame.get().is_some() {
                i += 1;
                continue;
            }
            let first = i;
            let mut room = 0;
            while i < window.len() && window[i].frame.get().is_none() {
                // `id: `, up to 20 digits and the line ends around `data: {json}`.
                let frame = window[i].json.len() + 40;
                if i > first && room + frame > SEGMENT_BYTES {
                    break;
                }
                room += frame;
                i += 1;
            }
            let mut buf = Vec::with_capacity(room);
            let mut ends = Vec::with_capacity(i - first);
            for ev in window.range(first..i) {
                crate::protocol::sse::push_numbered_event(&mut buf, &ev.json, ev.seq);
                ends.push(buf.len());
            }
            let segment = Bytes::from(buf);
            let mut start = 0;
            for (ev, end) in window.range(first..i).zip(ends) {
                let _ = ev.frame.set(SharedFrame {
                    segment: segment.clone(),
                    start,
                    end,
                });
                start = end;
            }
        }
    }

    fn subscription(self: &Arc<Self>, last: u64) -> Subscription {
        self.receivers.fetch_add(1, Ordering::Relaxed);
        Subscription {
            hub: Arc::downgrade(self),
            last,
        }
    }

    /// Every event from now on: those numbered after the last one in the window (an event is
    /// numbered and put in the window under the window's lock, so none falls between).
    pub fn subscribe(self: &Arc<Self>) -> Subscription {
        let _window = self.window.read();
        self.subscription(self.seq())
    }

    /// For an observer that last saw event `last`: a subscription that goes on after it, with
    /// true when the hub still holds every event after it — or false when `last` is older than
    /// what is held (or from another process), and the observer must be resynchronised (it
    /// then goes on from now). Called with the thread cache locked, so nothing slips between
    /// the check and the subscription.
    pub fn subscribe_after(self: &Arc<Self>, last: u64) -> (Subscription, bool) {
        let window = self.window.read();
        let current = self.seq();
        let oldest = window.front().map_or(current + 1, |e| e.seq);
        if last <= current && last + 1 >= oldest {
            (self.subscription(last), true)
        } else {
            (self.subscription(current), false)
        }
    }

    /// The number of the oldest event the window holds.
    #[cfg(test)]
    pub fn oldest(&self) -> Option<u64> {
        self.window.read().front().map(|e| e.seq)
    }

    /// The number of the last event sent.
    pub fn seq(&self) -> u64 {
        self.seq.load(Ordering::Relaxed)
    }

    /// Number one event and send it. Called with the thread cache locked, so numbers reach the
    /// hub in order. Never blocks on an observer: a run does not wait for its observers (a full
    /// window drops the oldest; lagging observers resynchronise).
    pub fn publish(&self, origin: &Arc<Origin>, json: Arc<str>) {
        let mut observed = Observed::new(0, origin.clone(), json);
        let dropped = {
            let mut window = self.window.write();
            // Numbered under the lock: a subscriber reading the number sees the window hold
            // every event up to it.
            observed.seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
            let dropped = (window.len() >= self.capacity)
                .then(|| window.pop_front())
                .flatten();
            window.push_back(observed);
            dropped
        };
        // Freed outside the lock.
        drop(dropped);
        // A new observer counts itself before it first reads the window, and the window's lock
        // orders that read with this publish: either it reads this event, or this sees it.
        if self.receivers.load(Ordering::Relaxed) > 0 {
            self.published.notify_waiters();
        }
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
        self.receivers.load(Ordering::Relaxed)
    }
}

mod relocate;
#[cfg(test)]
use relocate::RELOCATE_MAX_EVENT_BYTES;

#[cfg(test)]
mod tests;
