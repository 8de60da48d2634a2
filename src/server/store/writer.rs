//! The database writer: one task, on a thread of its own ([`spawn`]), applying writes in the
//! order sent, committing whatever is queued in one transaction ([`apply`]), then telling each
//! run which of its events are committed. Urgent writes (runs starting on a thread with nothing
//! queued, see [`super::Store::run_started`]) are taken before the queue.

mod apply;
use apply::apply;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, SqlitePool};
use tokio::sync::{mpsc, oneshot};

use super::checkpoint::Checkpoints;
use super::in_flight::InFlight;
use super::ops::{Committed, Op, BATCH};

/// The connection the writer commits on: its own, with the large page cache (a database file),
/// or the pool's only one (an in-memory database, which lives in that connection). One per
/// store, so its variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum WriterConn {
    Pool(SqlitePool),
    Own {
        options: SqliteConnectOptions,
        /// None after a failed commit: the next one connects afresh.
        conn: Option<SqliteConnection>,
    },
}

impl WriterConn {
    pub(super) fn pool(pool: SqlitePool) -> Self {
        WriterConn::Pool(pool)
    }

    pub(super) async fn own(options: SqliteConnectOptions) -> Result<Self, sqlx::Error> {
        let conn = Some(options.connect().await?);
        Ok(WriterConn::Own { options, conn })
    }

    /// Apply `batch` in one transaction.
    pub(super) async fn commit(
        &mut self,
        batch: &mut Vec<Op>,
        acks: &mut Vec<oneshot::Sender<()>>,
    ) -> Result<(), sqlx::Error> {
        match self {
            WriterConn::Pool(pool) => apply(&mut *pool.acquire().await?, batch, acks).await,
            WriterConn::Own { options, conn } => {
                let c = match conn {
                    Some(c) => c,
                    None => conn.insert(options.connect().await?),
                };
                let result = apply(c, batch, acks).await;
                if result.is_err() {
                    *conn = None;
                }
                result
            }
        }
    }

    /// Hand the connection's memory back, between transactions: it is closed, and the next
    /// commit opens it again (a millisecond or two). False when there is nothing of its own to
    /// hand back (an in-memory database lives in its connection).
    ///
    /// Closed rather than only emptied (`PRAGMA shrink_memory`): what SQLite keeps besides the
    /// page cache — the parsed schema, the prepared statements sqlx caches, each connection's
    /// lookaside and its thread's heap — stayed as well. 10,000 runs waiting on an approval,
    /// their clients gone (the capacity benchmark), left 42 MB against a 28 MB baseline with the
    /// caches emptied, 34–35 MB with the connections closed (this one and the pool's idle
    /// ones, see `Store::release_memory`).
    pub(super) async fn shrink(&mut self) -> bool {
        match self {
            WriterConn::Own { conn, .. } => match conn.take() {
                Some(c) => {
                    let _ = c.close().await;
                    true
                }
                None => false,
            },
            WriterConn::Pool(_) => false,
        }
    }
}

/// Run the writer (`writing`) and the owner lookups (`answering`, see `owners`) on a thread of
/// their own, in a runtime of their own, until the writer ends (with the store: the lookups'
/// senders go with it).
///
/// Each statement is a round trip between the task and its connection's thread (sqlx runs
/// SQLite there), and on the server's workers the task waited its turn behind every busy one
/// at each: with a thousand runs streaming (the capacity benchmark), a transaction of 14 runs'
/// starts took 69 ms, and an owner lookup, three such turns, 42 ms at the median — both on
/// every new run's way to its first event. Here they are woken as soon as their connection
/// answers.
pub(super) fn spawn(
    writing: impl Future<Output = ()> + Send + 'static,
    answering: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    runtime.spawn(answering);
    std::thread::Builder::new()
        .name("agui-db-writer".into())
        .spawn(move || runtime.block_on(writing))?;
    Ok(())
}

/// Most writes in a transaction that holds urgent ones (runs starting wait for its commit).
const URGENT_BATCH: usize = 4096;

/// A transaction of at least this many writes, of at least [`MANY_RUNS`] runs, means the
/// writer is under load from many runs at once: the next one begins [`GATHER`] after it ended
/// (or at once for a start).
const LOADED: usize = 1024;
const MANY_RUNS: usize = 64;
/// How long the queue gathers after a loaded transaction. Every transaction wakes the reader of
/// every run it holds events of; a thousand runs streaming at once, committed as fast as the
/// writer can (every 1–2 ms on its own thread), woke a thousand readers each time, each to
/// write a few events, and the server's queue of tasks grew so long with them that a new run
/// waited longer for its first event (the capacity benchmark's thousand runs, medians of three
/// rounds: p50 / p99 233 / 371 ms, against 144 / 212 ms with the writer among the server's
/// tasks, and 153 / 269 ms with this gathering). A few milliseconds more for an event under such
/// load is far below what a client can tell; a single stream, or a few, is committed at once as
/// before.
const GATHER: Duration = Duration::from_millis(5);

/// The room for writes the writer keeps between batches.
const KEEP: usize = 1024;

/// How long the writer waits with nothing to write before it hands its memory back, once
/// it has written [`SHRINK_AFTER`] writes since it last did. A burst of runs (ten thousand
/// runs reaching their approvals, a thousand streaming at once) fills the writer's cache
/// ([`WRITER_CACHE_KIB`](super::WRITER_CACHE_KIB), 16 MB) and SQLite keeps it full: an idle
/// second later the connection is closed (see [`WriterConn::shrink`]), and the next burst
/// reads its pages back from the file (or the system's cache).
const IDLE: Duration = Duration::from_secs(1);
/// Writes since the last hand-back below which an idle writer keeps its cache (a small cache
/// is worth keeping warm).
const SHRINK_AFTER: usize = 4096;

/// The writer: applies writes in order, a queue's worth per transaction, urgent ones first.
/// Hands its connection's memory back between transactions when `shrink` is raised, and after an idle
/// [`IDLE`] once it has written [`SHRINK_AFTER`] writes since it last did. Ends once both
/// channels are closed and drained.
pub(super) async fn writer(
    mut conn: WriterConn,
    mut rx: mpsc::Receiver<Op>,
    mut urgent: mpsc::Receiver<Op>,
    in_flight: Arc<InFlight>,
    mut checkpoints: Option<Checkpoints>,
    shrink: Arc<AtomicBool>,
) {
    let mut batch = Vec::new();
    let (mut queue_open, mut urgent_open) = (true, true);
    // Writes committed since the page cache was last handed back.
    let mut written = 0usize;
    // After a loaded transaction: when the next one may begin, unless a start comes first.
    let mut gather_until = None;
    while queue_open || urgent_open {
        // Under load the queue gathers for a moment before the next transaction (see
        // [`GATHER`]); a start does not wait for it.
        let mut early = None;
        if let Some(until) = gather_until.take() {
            tokio::select! {
                biased;
                op = urgent.recv(), if urgent_open => early = Some(op),
                _ = tokio::time::sleep_until(until) => {}
            }
        }
        let (first, mut urgent_taken) = if let Some(op) = early {
            urgent_open = op.is_some();
            (op, true)
        } else {
            tokio::select! {
                biased;
                op = urgent.recv(), if urgent_open => {
                    urgent_open = op.is_some();
                    (op, true)
                }
                op = rx.recv(), if queue_open => {
                    queue_open = op.is_some();
                    (op, false)
                }
                // An async block: its timer is made only when polled (when both queues are
                // empty), not at every batch.
                _ = async { tokio::time::sleep(IDLE).await }, if written >= SHRINK_AFTER => {
                    written = 0;
                    if conn.shrink().await {
                        // SQLite's pages were glibc's: free chunks between live ones stay
                        // resident until trimmed.
                        let _ = tokio::task::spawn_blocking(crate::server::trim::trim_heap).await;
                    }
                    continue;
                }
            }
        };
        let Some(first) = first else { continue };
        batch.push(first);
        // Whatever else waits goes in the same transaction, urgent writes first. A transaction
        // with urgent writes takes fewer of the others: runs starting wait for its commit.
        while batch.len() < BATCH {
            match urgent.try_recv() {
                Ok(op) => {
                    batch.push(op);
                    urgent_taken = true;
                }
                Err(_) => break,
            }
        }
        let room = if urgent_taken { URGENT_BATCH } else { BATCH };
        while batch.len() < room {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        // The last event of each run in the batch, reported after the commit.
        let mut marks: Vec<(Arc<dyn Committed>, u64)> = Vec::new();
        let mut mark_of: HashMap<usize, usize> = HashMap::new();
        let mut last_mark: Option<(usize, usize)> = None;
        // The starts and ends in the batch, no longer waiting once it is done.
        let mut ends = Vec::new();
        for op in &batch {
            match op {
                Op::Event {
                    seq,
                    done: Some(done),
                    ..
                } => {
                    // By the run's address: a batch may hold a thousand runs' events. The run
                    // of the previous event is looked at first (no hashing for a run's runs of
                    // events).
                    let key = Arc::as_ptr(done).cast::<()>() as usize;
                    let found = match last_mark {
                        Some((k, i)) if k == key => Some(i),
                        _ => mark_of.get(&key).copied(),
                    };
                    let i = found.unwrap_or_else(|| {
                        mark_of.insert(key, marks.len());
                        marks.push((done.clone(), *seq));
                        marks.len() - 1
                    });
                    marks[i].1 = marks[i].1.max(*seq);
                    last_mark = Some((key, i));
                }
                Op::RunStarted(row) => ends.push((row.thread_id.clone(), row.run_id.clone())),
                Op::RunEnded(row) => ends.push((row.thread_id.clone(), row.run_id.clone())),
                _ => {}
            }
        }
        let mut acks = Vec::new();
        written += batch.len();
        let loaded = batch.len() >= LOADED && marks.len() >= MANY_RUNS;
        let result = conn.commit(&mut batch, &mut acks).await;
        if loaded {
            gather_until = Some(tokio::time::Instant::now() + GATHER);
        }
        // Ops after a failure were dropped unapplied (a dropped flush ack releases its waiter).
        batch.clear();
        // A crowd's batch is megabytes of room: not kept once the crowd is gone.
        batch.shrink_to(KEEP);
        let ok = result.is_ok();
        if let Err(e) = result {
            // The whole transaction is gone: no event of it may be reported stored.
            tracing::error!(
                "database write failed, {} run(s) affected: {e}",
                marks.len()
            );
            for (done, _) in marks.drain(..) {
                done.failed();
            }
        }
        for (thread_id, run_id) in &ends {
            in_flight.done(thread_id, run_id);
        }
        // Before the acks: whoever asked for the release waits for it with a flush.
        if shrink.swap(false, Ordering::AcqRel) {
            conn.shrink().await;
            written = 0;
        }
        // The acks before the runs' events: a run starting waits for its ack, and each task
        // woken here queues behind those woken before it.
        for ack in acks {
            let _ = ack.send(());
        }
        if ok {
            for (done, seq) in marks {
                done.committed(seq);
            }
            if let Some(c) = &mut checkpoints {
                c.after_commit();
            }
        }
    }
}
