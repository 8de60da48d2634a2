//! The writes the store's writer applies, in the order sent, and how a run is told its events
//! are committed. Beneath both the store and its writer.

use std::sync::Arc;

use tokio::sync::oneshot;

use crate::wire::RunState;

/// Most writes committed in one transaction. Every commit writes each page it touched once:
/// with many runs streaming at once, a commit touches a page per run, so fewer and larger
/// commits write less (8,192 events of 1,000 runs: ~8 per page, against 2 at 2,048). Larger
/// commits also give each client more events per write: 1,000 runs streaming got about 7 events
/// per `writev` with 8,192 (and SQLite about one page write per two events). 32,768
/// (2026-12-02, the capacity benchmark's 1,000-runs row, one binary and the other in turn):
/// 194–222 k → 285–377 k events/s in aggregate.
pub(super) const BATCH: usize = 32 * 1024;

/// Told, after each commit, the number of the last committed event of its run — or that its
/// events could not be stored (after which nothing more is reported committed: a later commit
/// would leave a gap).
pub trait Committed: Send + Sync {
    fn committed(&self, seq: u64);
    fn failed(&self);
}

/// A write, applied in the order sent. Every event of every run is one, moved into the
/// writer's queue and out again: a run's start and end, with their many fields, are boxed so
/// that an event's write is as small as its own fields (208 → 56 bytes).
pub(super) enum Op {
    RunStarted(Box<StartRow>),
    Event {
        run_id: Arc<str>,
        seq: u64,
        json: Arc<str>,
        done: Option<Arc<dyn Committed>>,
    },
    RunEnded(Box<EndRow>),
    Flush(oneshot::Sender<()>),
}

/// A run's start: its thread's row and its own.
pub(super) struct StartRow {
    pub thread_id: String,
    pub run_id: String,
    pub agent_id: String,
    pub owner: String,
    pub at: i64,
    pub title: String,
    pub input: String,
    pub messages: String,
    pub message_count: i64,
    pub state: String,
}

/// A run's end: its own row and its thread's conversation.
pub(super) struct EndRow {
    pub thread_id: String,
    pub run_id: String,
    pub status: RunState,
    pub at: i64,
    pub error: Option<String>,
    pub messages: String,
    pub message_count: i64,
    pub state: String,
    pub render_hints: String,
}
