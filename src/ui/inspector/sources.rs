//! What the inspector's sections read: the session's live log and the thread's stored history.

use leptos::prelude::*;

use crate::client::event_log::{lookup, EventRecord, Key};
use crate::client::history::History;

/// What the inspector reads: the session's live log, the thread's stored history, and the
/// parts shared by its sections.
#[derive(Clone, Copy)]
pub(super) struct Sources {
    pub live: Signal<Vec<EventRecord>>,
    pub history: History,
}

impl Sources {
    pub fn with<R>(&self, f: impl FnOnce(&[EventRecord], &[EventRecord]) -> R) -> R {
        self.history
            .records
            .with(|h| self.live.with(|l| f(h.as_slice(), l.as_slice())))
    }
    pub fn record(&self, key: Key) -> Option<EventRecord> {
        self.history
            .records
            .with_untracked(|h| self.live.with_untracked(|l| lookup(key, h, l).cloned()))
    }
}
