//! What the inspector's sections read: the session's live log and the thread's stored history.

use leptos::prelude::*;

use crate::client::event_log::{lookup, EventRecord, Key};
use crate::client::history::History;

/// What the inspector reads: the session's live log, the thread's stored history, and the
/// parts shared by its sections.
///
/// The sections do not redraw on every animation frame of a fast stream: they read the logs
/// untracked and follow `changed`, a tick that moves at most every [`super::REFRESH_MS`] while
/// events arrive (only the inspector's indexing effect tracks the logs themselves).
#[derive(Clone, Copy)]
pub(super) struct Sources {
    pub live: Signal<Vec<EventRecord>>,
    pub history: History,
    pub changed: RwSignal<u64>,
}

impl Sources {
    /// Read both logs, tracking them (for the one effect that indexes every new event).
    pub fn with_tracked<R>(&self, f: impl FnOnce(&[EventRecord], &[EventRecord]) -> R) -> R {
        self.history
            .records
            .with(|h| self.live.with(|l| f(h.as_slice(), l.as_slice())))
    }
    /// Read both logs as of the last tick (and redraw on the next one).
    pub fn with<R>(&self, f: impl FnOnce(&[EventRecord], &[EventRecord]) -> R) -> R {
        self.changed.track();
        self.with_untracked(f)
    }
    /// Read both logs without following them (event handlers, views on their own tick).
    pub fn with_untracked<R>(&self, f: impl FnOnce(&[EventRecord], &[EventRecord]) -> R) -> R {
        self.history
            .records
            .with_untracked(|h| self.live.with_untracked(|l| f(h.as_slice(), l.as_slice())))
    }
    pub fn record(&self, key: Key) -> Option<EventRecord> {
        self.history
            .records
            .with_untracked(|h| self.live.with_untracked(|l| lookup(key, h, l).cloned()))
    }
}
