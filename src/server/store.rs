//! Persistence: threads, runs and every event of every run in SQLite (sqlx, migrations in
//! `migrations/`, WAL mode). One writer task applies writes in order, committing whatever is
//! queued in one transaction, so a busy run is not slowed by a commit per event while a quiet one
//! is committed event by event. Each committed event is reported to its run ([`Committed`]),
//! which hands events to clients only once they are committed: whatever a client has seen
//! survives a crash, and a crash loses at most events no client has seen.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Message, RunAgentInput};
use crate::wire::{run_events_url, RunState, RunSummary, ThreadSummary, ThreadView};

mod edits;
mod error;
mod in_flight;
mod interrupts;
mod lock;
mod ops;
mod recover;
pub mod retention;
mod writer;
pub use error::StoreError;
use in_flight::InFlight;
use lock::lock_database;
pub use ops::Committed;
use ops::Op;
use writer::writer;

/// Writes waiting for the writer; a run producing faster than the disk waits here. Three
/// quarters of a batch fill while the previous batch commits.
const QUEUE: usize = 3 * ops::BATCH / 4;

/// The most events of one run sent to the store and not yet committed (or failed): a full queue
/// plus the batch being committed, plus the one waiting to be queued. A run's in-memory log must
/// hold at least this many (its readers read uncommitted events only from there, see
/// `runs::LIVE_WINDOW`): a database that stalls must not make a reader miss events that will
/// never be stored, or the run's end with them.
pub const MAX_UNCOMMITTED: usize = QUEUE + ops::BATCH + 1;

/// Each connection's page cache, in KiB (SQLite's `cache_size` takes a negative number as KiB;
/// the cache grows only as pages are used).
const CACHE_KIB: i64 = -16 * 1024;

/// Starts of runs whose thread has nothing else queued: they go ahead of the queue.
const URGENT_QUEUE: usize = 1024;

/// A run's start, ready to be written ([`Store::run_started`]).
pub struct RunStartedOp(Op);

/// The database and its writer.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    tx: mpsc::Sender<Op>,
    /// The writer takes these before the queue (see [`Store::run_started`]).
    urgent: mpsc::Sender<Op>,
    in_flight: Arc<InFlight>,
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
                // A thousand runs streaming at once each touch their own leaf of the events
                // index in every commit: with SQLite's default 2 MB page cache those pages were
                // evicted and read back between commits (and dirty ones spilled mid-commit),
                // which halved the aggregate rate (the capacity benchmark's 1,000-runs row).
                .pragma("cache_size", CACHE_KIB.to_string())
        }
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true);
        // An in-memory database lives as long as its one connection.
        let pool = SqlitePoolOptions::new()
            .max_connections(if memory { 1 } else { 4 })
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
            .connect_with(options)
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
        tokio::spawn(writer(pool.clone(), rx, urgent_rx, in_flight.clone()));
        Ok(Store {
            pool,
            tx,
            urgent,
            in_flight,
            _lock: lock,
        })
    }

    async fn send(&self, op: Op) {
        if let Err(mpsc::error::SendError(op)) = self.tx.send(op).await {
            tracing::error!("the database writer has stopped; a write was lost");
            // Nothing will be committed any more: the run's clients are told it failed.
            if let Op::Event {
                done: Some(done), ..
            } = op
            {
                done.failed();
            }
        }
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

    /// The write recording that a run started on a thread; `input` is what the agent runs
    /// with, `messages` the thread's messages now (its history and the input's new messages: a
    /// client may send only recent ones). Serialising is CPU work: callers build it off the
    /// async workers.
    pub fn run_started_op(
        input: &RunAgentInput,
        messages: &[Message],
        agent_id: &str,
        owner: &str,
        at: i64,
    ) -> RunStartedOp {
        RunStartedOp(Op::RunStarted {
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            agent_id: agent_id.to_string(),
            owner: owner.to_string(),
            at,
            title: title_of(messages),
            input: serde_json::to_string(input).unwrap_or_default(),
            messages: serde_json::to_string(messages).unwrap_or_default(),
            message_count: messages.len() as i64,
            state: input.state.to_string(),
        })
    }

    /// Record a run's start ([`Store::run_started_op`]). Returns once the run is committed, so
    /// that its events URL, handed to the client with the response headers, works even after a
    /// crash.
    ///
    /// When neither its thread nor its run id has a start or end queued, it goes ahead of the
    /// queue (its commit then waits for no other run's events): nothing queued can touch the
    /// rows it writes. Otherwise it goes in order, behind them.
    pub async fn run_started(&self, op: RunStartedOp) {
        let Op::RunStarted {
            thread_id, run_id, ..
        } = &op.0
        else {
            unreachable!("a RunStartedOp holds a start")
        };
        if !self.in_flight.add(thread_id, run_id) {
            self.send(op.0).await;
            self.flush().await;
            return;
        }
        let (ack, committed) = oneshot::channel();
        for op in [op.0, Op::Flush(ack)] {
            if self.urgent.send(op).await.is_err() {
                tracing::error!("the database writer has stopped; a write was lost");
                return;
            }
        }
        let _ = committed.await;
    }

    /// Event number `seq` (1-based) of a run; `done` is told once it is committed (or once the
    /// write has failed: the run is not held back by a broken disk, the failure is logged).
    pub async fn event(
        &self,
        run_id: &str,
        seq: u64,
        json: Arc<str>,
        done: Option<Arc<dyn Committed>>,
    ) {
        self.send(Op::Event {
            run_id: run_id.to_string(),
            seq,
            json,
            done,
        })
        .await;
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
        self.send(Op::RunEnded {
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            status,
            at,
            error,
            messages,
            message_count,
            state,
            render_hints,
        })
        .await;
        bytes
    }

    /// The `limit` most recently updated threads of `owner`, newest first: one summary row each
    /// (the messages themselves are not read). With `search`, only threads whose title (the
    /// user's, else the first user message) contains it, ignoring ASCII case.
    pub async fn threads(
        &self,
        owner: &str,
        search: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ThreadSummary>, StoreError> {
        let pattern = search.map(edits::contains_pattern);
        let rows = sqlx::query(
            "SELECT t.id, COALESCE(t.custom_title, t.title) AS title, t.agent_id, t.created_at, t.updated_at, t.message_count, \
             r.id AS run_id, r.thread_id AS run_thread, r.agent_id AS run_agent, r.status, \
             r.started_at, r.ended_at, r.error, \
             (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = r.id) AS n \
             FROM threads t LEFT JOIN runs r ON r.id = \
             (SELECT id FROM runs WHERE thread_id = t.id ORDER BY started_at DESC, rowid DESC LIMIT 1) \
             WHERE t.owner = ? AND (? IS NULL OR COALESCE(t.custom_title, t.title) LIKE ? ESCAPE '\\') \
             ORDER BY t.updated_at DESC, t.id LIMIT ?",
        )
        .bind(owner)
        .bind(&pattern)
        .bind(&pattern)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let last_run = match row.try_get::<Option<String>, _>("run_id")? {
                Some(_) => Some(run_summary_from(&row, "run_id", "run_thread", "run_agent")?),
                None => None,
            };
            out.push(ThreadSummary {
                id: row.try_get("id")?,
                title: row.try_get("title")?,
                agent_id: row.try_get("agent_id")?,
                created_at: row.try_get("created_at")?,
                updated_at: row.try_get("updated_at")?,
                message_count: row.try_get::<i64, _>("message_count")?.max(0) as u64,
                last_run,
            });
        }
        Ok(out)
    }

    /// Who owns a thread (None: no such thread).
    pub async fn thread_owner(&self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT owner FROM threads WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Who owns a run (None: no such run).
    pub async fn run_owner(&self, run_id: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT owner FROM runs WHERE id = ?")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// One thread as stored (its messages and state as of its last run start or end).
    pub async fn thread(&self, id: &str) -> Result<Option<ThreadView>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT id, COALESCE(custom_title, title) AS title, agent_id, created_at, updated_at, \
             messages, state, render_hints FROM threads WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let messages: String = row.try_get("messages")?;
        let state: String = row.try_get("state")?;
        let hints: String = row.try_get("render_hints")?;
        Ok(Some(ThreadView {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            agent_id: row.try_get("agent_id")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            messages: serde_json::from_str(&messages).unwrap_or_default(),
            state: serde_json::from_str(&state).unwrap_or(Value::Null),
            runs: self.runs_of(id, false).await?,
            render_hints: serde_json::from_str(&hints).unwrap_or_default(),
            feedback: self.feedback(id).await?,
        }))
    }

    /// A thread's runs, oldest first (only the last one with `last_only`).
    async fn runs_of(
        &self,
        thread_id: &str,
        last_only: bool,
    ) -> Result<Vec<RunSummary>, StoreError> {
        let sql = if last_only {
            "SELECT id, thread_id, agent_id, status, started_at, ended_at, error, \
             (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) AS n \
             FROM runs WHERE thread_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1"
        } else {
            "SELECT id, thread_id, agent_id, status, started_at, ended_at, error, \
             (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) AS n \
             FROM runs WHERE thread_id = ? ORDER BY started_at, rowid"
        };
        let rows = sqlx::query(sql)
            .bind(thread_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(run_summary).collect()
    }

    /// A thread's most recent run.
    pub async fn last_run(&self, thread_id: &str) -> Result<Option<RunSummary>, StoreError> {
        Ok(self.runs_of(thread_id, true).await?.pop())
    }

    /// One run.
    pub async fn run(&self, run_id: &str) -> Result<Option<RunSummary>, StoreError> {
        let row = sqlx::query(
            "SELECT id, thread_id, agent_id, status, started_at, ended_at, error, \
             (SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = runs.id) AS n \
             FROM runs WHERE id = ?",
        )
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run_summary).transpose()
    }

    /// The input a run's agent ran with.
    pub async fn run_input(&self, run_id: &str) -> Result<Option<RunAgentInput>, StoreError> {
        let row = sqlx::query("SELECT input FROM runs WHERE id = ?")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(r) => serde_json::from_str(&r.try_get::<String, _>("input")?).ok(),
            None => None,
        })
    }

    /// Up to `limit` events of a run numbered after `after`, in order.
    pub async fn events_after(
        &self,
        run_id: &str,
        after: u64,
        limit: u64,
    ) -> Result<StoredEvents, StoreError> {
        // SQLite integers are signed: a position past i64::MAX would wrap to a negative one
        // and select every event.
        let Ok(after) = i64::try_from(after) else {
            return Ok(Vec::new());
        };
        let rows = sqlx::query(
            "SELECT seq, event FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(run_id)
        .bind(after)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>("seq")? as u64, r.try_get("event")?)))
            .collect()
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

fn run_summary(row: &sqlx::sqlite::SqliteRow) -> Result<RunSummary, StoreError> {
    run_summary_from(row, "id", "thread_id", "agent_id")
}

/// A run's summary from a row whose id, thread and agent columns have these names (a query
/// joining threads and runs renames them); the other columns keep the runs table's names.
fn run_summary_from(
    row: &sqlx::sqlite::SqliteRow,
    id: &str,
    thread: &str,
    agent: &str,
) -> Result<RunSummary, StoreError> {
    let run_id: String = row.try_get(id)?;
    let status: String = row.try_get("status")?;
    Ok(RunSummary {
        events_url: run_events_url(&run_id),
        thread_id: row.try_get(thread)?,
        agent_id: row.try_get(agent)?,
        status: RunState::parse(&status).unwrap_or(RunState::Interrupted),
        started_at: row.try_get("started_at")?,
        ended_at: row.try_get("ended_at")?,
        event_count: row.try_get::<i64, _>("n")? as u64,
        error: row.try_get("error")?,
        run_id,
    })
}

/// A thread's title: its first user message's text, on one line, shortened.
pub fn title_of(messages: &[Message]) -> String {
    let text = messages.iter().find_map(|m| match serde_json::to_value(m) {
        Ok(v) if v["role"] == "user" => match &v["content"] {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => parts
                .iter()
                .find_map(|p| p["text"].as_str().map(str::to_string)),
            _ => None,
        },
        _ => None,
    });
    let one_line = text
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match one_line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
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
