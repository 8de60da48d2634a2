//! Flow control between a run and its own client: a run goes at most [`PACE_AHEAD`] events
//! ahead of the reader of the response that started it.
//!
//! Without it, an agent that produces faster than its client reads (the demo agent streaming
//! flat out, a fast foreign agent behind a slow network) outran its reader by more than the
//! log's live window, and the reader then read every later event back from the database, 256
//! at a time: more work per event than the whole in-memory path, so it never caught up. That
//! was the single stream's spread (`long 100000` drained by curl: 1,180–1,410 k events/s in the
//! runs whose reader stayed in memory, 610–850 k in those where it read 250–330 batches back),
//! and the database's reads competed with the run's writes for the machine's two cores.
//!
//! Only the run's own reader paces it (a resumed stream, a join, an observer does not), and a
//! client that stops reading holds its run for at most [`PACE_PATIENCE`] once: the run then goes
//! on unpaced, as before, and the client reads what it missed from the database.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use super::LIVE_WINDOW;

/// How many events a run may send past what its reader has taken: half the live window, so
/// that a reader keeping pace never falls out of it.
pub const PACE_AHEAD: u64 = (LIVE_WINDOW / 2) as u64;
/// How long a run waits for its reader once; after that, the run is no longer paced.
pub const PACE_PATIENCE: Duration = Duration::from_secs(5);
/// No reader paces the run.
const NONE: u64 = u64::MAX;

/// Where the run's own reader is ([`NONE`]: gone, or never there).
pub(super) struct Pace {
    at: AtomicU64,
    room: Notify,
    gave_up: AtomicBool,
}

impl Pace {
    pub(super) fn new() -> Self {
        Pace {
            at: AtomicU64::new(NONE),
            room: Notify::new(),
            gave_up: AtomicBool::new(false),
        }
    }

    /// The pacing reader has taken the events through `seq`.
    pub(super) fn reached(&self, seq: u64) {
        self.at.store(seq, Ordering::Release);
        self.room.notify_one();
    }

    /// The pacing reader is gone: the run goes on unpaced.
    pub(super) fn release(&self) {
        self.at.store(NONE, Ordering::Release);
        self.room.notify_one();
    }

    /// Whether the run, having sent event `seq`, must wait for its reader.
    pub(super) fn too_far(&self, seq: u64) -> bool {
        let at = self.at.load(Ordering::Acquire);
        at != NONE && seq.saturating_sub(at) > PACE_AHEAD && !self.gave_up.load(Ordering::Relaxed)
    }

    /// Waits until the reader is within half of [`PACE_AHEAD`] of event `seq` (or gone); after
    /// [`PACE_PATIENCE`] without that, gives up pacing this run.
    pub(super) async fn room_for(&self, seq: u64) {
        let deadline = tokio::time::Instant::now() + PACE_PATIENCE;
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let at = self.at.load(Ordering::Acquire);
            if at == NONE || seq.saturating_sub(at) <= PACE_AHEAD / 2 {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                self.gave_up.store(true, Ordering::Relaxed);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests;
