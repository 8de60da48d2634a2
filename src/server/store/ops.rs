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

/// A write, applied in the order sent.
pub(super) enum Op {
    RunStarted {
        thread_id: String,
        run_id: String,
        agent_id: String,
        owner: String,
        at: i64,
        title: String,
        input: String,
        messages: String,
        message_count: i64,
        state: String,
    },
    Event {
        run_id: Arc<str>,
        seq: u64,
        json: Arc<str>,
        done: Option<Arc<dyn Committed>>,
    },
    RunEnded {
        thread_id: String,
        run_id: String,
        status: RunState,
        at: i64,
        error: Option<String>,
        messages: String,
        message_count: i64,
        state: String,
        render_hints: String,
    },
    Flush(oneshot::Sender<()>),
}
