//! Persistence: threads, runs and every event of every run in SQLite (sqlx, migrations in
//! `migrations/`, WAL mode). One writer task applies writes in order, committing whatever is
//! queued in one transaction, so a busy run is not slowed by a commit per event while a quiet one
//! is committed event by event. Each committed event is reported to its run ([`Committed`]),
//! which hands events to clients only once they are committed: whatever a client has seen
//! survives a crash, and a crash loses at most events no client has seen.

use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tokio::sync::{mpsc, oneshot};

use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::RunAgentInput;
use crate::wire::RunState;

mod checkpoint;
mod edits;
mod error;
mod event_rows;
mod in_flight;
mod interrupts;
mod lock;
mod memory;
mod ops;
mod owners;
#[cfg(test)]
mod page_size_tests;
mod queue;
mod reads;
mod recover;
pub mod retention;
mod starts;
#[cfg(test)]
pub(crate) mod testing;
mod writer;
use checkpoint::Checkpoints;
pub use error::StoreError;
use in_flight::InFlight;
use lock::lock_database;
pub use ops::Committed;
use ops::Op;
use owners::OwnerLookups;
pub use owners::Owners;
pub use reads::title_of;
use writer::{writer, WriterConn};

/// Writes waiting for the writer; a run producing faster than the disk waits here. Three
/// quarters of a batch fill while the previous batch commits.
const QUEUE: usize = 3 * ops::BATCH / 4;

/// The most events of one run sent to the store and not yet committed (or failed): a full queue
/// plus the batch being committed, plus the one waiting to be queued. A run's in-memory log
/// keeps every one of them (its readers read uncommitted events only from there, see
/// `runs::LIVE_WINDOW`): a database that stalls must not make a reader miss events that will
/// never be stored, or the run's end with them. The bound is shared: all runs together have at
/// most this many, plus one each waiting to be queued and the first events in the urgent queue
/// ([`URGENT_QUEUE`]).
pub const MAX_UNCOMMITTED: usize = QUEUE + ops::BATCH + 1;

/// The writer's page cache, in KiB (SQLite's `cache_size` takes a negative number as KiB; the
/// cache grows only as pages are used). A thousand runs streaming at once each touch their own
/// leaf of the events index in every commit: with SQLite's default 2 MB those pages were
/// evicted and read back between commits (and dirty ones spilled mid-commit), which halved the
/// aggregate rate (the capacity benchmark's 1,000-runs row).
pub(super) const WRITER_CACHE_KIB: i64 = -16 * 1024;

/// The page size of a database this server creates (SQLite's default is 4 KB). A run's events
/// are stored up to 64 to a row of about 8 KB ([`event_rows`]): with 4 KB pages every row ran
/// into overflow pages, each written to the WAL and again by the checkpoint. With 16 KB pages
/// (the capacity benchmark, alternating on one binary with the page size from the environment,
/// 2026-12-04): one stream of 100,000 deltas 1,690 / 1,751 → 1,865 / 1,966 k events/s, 1,000
/// runs at once 667 / 710 → 799 / 802 / 817 k events/s; 10,000 runs waiting on an approval
/// 199–200 MB against 200–210 MB, within that row's spread. A database created with another
/// page size keeps it (WAL mode cannot change it).
pub(super) const PAGE_SIZE: u32 = 16 * 1024;

/// The page cache of each pooled connection (the readers and the checkpoints), in KiB: SQLite's
/// default. When every connection wrote in turn, each filled a writer's cache with the crowd's
/// pages: 10,000 runs waiting on an approval held four of them, about 60 MB.
pub(super) const READER_CACHE_KIB: i64 = -2 * 1024;

/// The pool's connections to a database file (an in-memory one has one connection).
pub(super) const POOL_SIZE: u32 = 4;

/// Starts of runs whose thread has nothing else queued, and the first events of started runs:
/// they go ahead of the queue.
const URGENT_QUEUE: usize = 1024;

/// A run's start, ready to be written ([`Store::run_started`]).
pub struct RunStartedOp(Box<ops::StartRow>);

/// The database and its writer.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    tx: mpsc::Sender<Op>,
    /// The writer takes these before the queue (see [`Store::run_started`]).
    urgent: mpsc::Sender<Op>,
    in_flight: Arc<InFlight>,
    /// New runs' owner checks, read together ([`Store::thread_and_run_owners`]).
    owners: OwnerLookups,
    /// An in-memory database (`:memory:`).
    in_memory: bool,
    /// Raised to have the writer hand its page cache back (see [`Store::release_memory`]).
    shrink_writer: Arc<AtomicBool>,
    /// The exclusive lock on `<db>.lock` this process holds while the database is open.
    _lock: Option<Arc<std::fs::File>>,
}

/// A stored run's replayable events and where the run stands.
pub type StoredEvents = Vec<(u64, String)>;

impl Store {
    /// Whether `path` names an in-memory database (nothing kept across restarts).
    pub fn is_memory(path: &str) -> bool {
        path == ":memory:" || path.is_empty()
    }

    /// Open (creating if missing) the database at `path`, or an in-memory one for `:memory:`,
    /// and bring its schema up to date.
    pub async fn open(path: &str) -> Result<Store, StoreError> {
        let memory = Self::is_memory(path);
        let lock = if memory {
            None
        } else {
            Some(lock_database(path)?)
        };
        let options = if memory {
            SqliteConnectOptions::from_str("sqlite::memory:")?
        } else {
            SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                // Applied only when the file is created (before its first table).
                .page_size(PAGE_SIZE)
                .pragma("cache_size", READER_CACHE_KIB.to_string())
                // Checkpoints run beside the writer, not in its commits (see `checkpoint`).
                .pragma(
                    "wal_autocheckpoint",
                    checkpoint::AUTOCHECKPOINT_PAGES.to_string(),
                )
        }
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true);
        // An in-memory database lives as long as its one connection.
        // No ping before each read: a local database's connection has nothing to lose in
        // between, and sqlx pings it again as it goes back to the pool (each ping is a round
        // trip to the connection's thread, which a thousand runs starting at once waited for).
        let pool = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(if memory { 1 } else { POOL_SIZE })
            .min_connections(if memory { 1 } else { 0 })
            .idle_timeout(if memory {
                None
            } else {
                Some(Duration::from_secs(600))
            })
            .max_lifetime(if memory {
                None
            } else {
                Some(Duration::from_secs(3600))
            })
            .connect_with(options.clone())
            .await
            .map_err(|source| StoreError::Open {
                path: path.into(),
                source,
            })?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                path: path.into(),
                source,
            })?;
        let (tx, rx) = mpsc::channel(QUEUE);
        let (urgent, urgent_rx) = mpsc::channel(URGENT_QUEUE);
        let in_flight = Arc::new(InFlight::default());
        let checkpoints = (!memory).then(|| Checkpoints::new(pool.clone()));
        // The writer has a connection of its own with the large cache (an in-memory database
        // has only its one pooled connection).
        let conn = match memory {
            true => WriterConn::pool(pool.clone()),
            false => {
                let own = options.pragma("cache_size", WRITER_CACHE_KIB.to_string());
                WriterConn::own(own)
                    .await
                    .map_err(|source| StoreError::Open {
                        path: path.into(),
                        source,
                    })?
            }
        };
        let shrink = Arc::new(AtomicBool::new(false));
        let writing = writer(
            conn,
            rx,
            urgent_rx,
            in_flight.clone(),
            checkpoints,
            shrink.clone(),
        );
        let (owners, answering) = OwnerLookups::new(pool.clone());
        writer::spawn(writing, answering).map_err(|e| StoreError::Open {
            path: path.into(),
            source: sqlx::Error::Io(e),
        })?;
        Ok(Store {
            owners,
            pool,
            tx,
            urgent,
            in_flight,
            in_memory: memory,
            shrink_writer: shrink,
            _lock: lock,
        })
    }

    /// Wait until every write sent so far is committed.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        self.send(Op::Flush(tx)).await;
        let _ = rx.await;
    }

    /// Wait until every start or end of a run of `thread_id` sent so far is committed: what a
    /// read of the thread's row or its runs' rows must see. Returns at once when none is queued.
    pub async fn flush_thread(&self, thread_id: &str) {
        if self.in_flight.has_thread(thread_id) {
            self.flush().await;
        }
    }

    /// [`Store::flush_thread`] for one run's row.
    pub async fn flush_run(&self, run_id: &str) {
        if self.in_flight.has_run(run_id) {
            self.flush().await;
        }
    }

    /// A run ended; `conv` is its thread's conversation now. Returns the size of what was
    /// written (the thread's approximate size in memory, for keeping idle threads by bytes).
    /// Serialising a long thread is CPU work: it runs off the async workers.
    pub async fn run_ended(
        &self,
        run_id: &str,
        status: RunState,
        error: Option<String>,
        conv: Conversation,
        thread_id: &str,
        at: i64,
    ) -> usize {
        let encoded = tokio::task::spawn_blocking(move || {
            (
                serde_json::to_string(&conv.messages).unwrap_or_default(),
                conv.messages.len() as i64,
                conv.state.to_string(),
                serde_json::to_string(&conv.render_hints).unwrap_or_else(|_| "[]".into()),
            )
        })
        .await;
        let Ok((messages, message_count, state, render_hints)) = encoded else {
            tracing::error!(run = %run_id, "could not encode the thread at the run's end");
            return 0;
        };
        let bytes = messages.len() + state.len() + render_hints.len();
        self.in_flight.add(thread_id, run_id);
        self.send(Op::RunEnded(Box::new(ops::EndRow {
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            status,
            at,
            error,
            messages,
            message_count,
            state,
            render_hints,
        })))
        .await;
        bytes
    }
}

/// Reset `conv` to the start of a run of `input`: its messages, and its state as the baseline of
/// the run's deltas.
pub fn start_conversation(conv: &mut Conversation, input: &RunAgentInput, now: i64) {
    let mut started = Event::from(EventKind::RunStarted {
        thread_id: input.thread_id.clone(),
        run_id: input.run_id.clone(),
        parent_run_id: input.parent_run_id.clone(),
        input: Some(Box::new(input.clone())),
        protocol_version: Some(crate::protocol::types::PROTOCOL_VERSION.into()),
    });
    started.timestamp = Some(now);
    conv.apply(&started);
    conv.state = input.state.clone();
    conv.warnings.clear();
}

#[cfg(test)]
impl Store {
    /// Make the database refuse to grow, as a full disk does: later writes fail with SQLite's
    /// "database or disk is full". Only for `:memory:` stores, whose one connection is the
    /// writer's too (the setting is per connection).
    pub(crate) async fn fill_disk(&self) {
        let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
            .fetch_one(&self.pool)
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "PRAGMA max_page_count = {pages}"
        )))
        .execute(&self.pool)
        .await
        .unwrap();
    }
}
