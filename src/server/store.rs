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

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Message, RunAgentInput};
use crate::wire::{run_events_url, RunState, RunSummary, ThreadSummary, ThreadView};

mod recover;
mod writer;
use writer::writer;

/// Writes waiting for the writer; a run producing faster than the disk waits here.
const QUEUE: usize = 8192;
/// Most writes committed in one transaction.
const BATCH: usize = 2048;

/// Told, after each commit, the number of the last committed event of its run.
pub trait Committed: Send + Sync {
    fn committed(&self, seq: u64);
}

/// A write, applied in the order sent.
enum Op {
    RunStarted {
        thread_id: String,
        run_id: String,
        agent_id: String,
        owner: String,
        at: i64,
        title: String,
        input: String,
        messages: String,
        state: String,
    },
    Event {
        run_id: String,
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
        state: String,
        render_hints: String,
    },
    Flush(oneshot::Sender<()>),
}

/// The database and its writer.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
    tx: mpsc::Sender<Op>,
}

/// A stored run's replayable events and where the run stands.
pub type StoredEvents = Vec<(u64, String)>;

impl Store {
    /// Open (creating if missing) the database at `path`, or an in-memory one for `:memory:`,
    /// and bring its schema up to date.
    pub async fn open(path: &str) -> Result<Store, String> {
        let memory = path == ":memory:" || path.is_empty();
        let options = if memory {
            SqliteConnectOptions::from_str("sqlite::memory:").map_err(|e| e.to_string())?
        } else {
            SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
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
            .map_err(|e| format!("cannot open the database '{path}': {e}"))?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|e| format!("cannot migrate the database '{path}': {e}"))?;
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(writer(pool.clone(), rx));
        Ok(Store { pool, tx })
    }

    async fn send(&self, op: Op) {
        if let Err(mpsc::error::SendError(op)) = self.tx.send(op).await {
            tracing::error!("the database writer has stopped; a write was lost");
            // Nothing will be committed any more: do not hold the run's clients back.
            if let Op::Event {
                seq,
                done: Some(done),
                ..
            } = op
            {
                done.committed(seq);
            }
        }
    }

    /// Wait until every write sent so far is committed.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        self.send(Op::Flush(tx)).await;
        let _ = rx.await;
    }

    /// A run started on a thread; `input` is what the agent runs with, `messages` the thread's
    /// messages now (its history and the input's new messages: a client may send only recent
    /// ones). Returns once the run is committed, so that its events URL, handed to the client
    /// with the response headers, works even after a crash.
    pub async fn run_started(
        &self,
        input: &RunAgentInput,
        messages: &[Message],
        agent_id: &str,
        owner: &str,
        at: i64,
    ) {
        self.send(Op::RunStarted {
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            agent_id: agent_id.to_string(),
            owner: owner.to_string(),
            at,
            title: title_of(messages),
            input: serde_json::to_string(input).unwrap_or_default(),
            messages: serde_json::to_string(messages).unwrap_or_default(),
            state: input.state.to_string(),
        })
        .await;
        self.flush().await;
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

    /// A run ended; `conv` is its thread's conversation now.
    pub async fn run_ended(
        &self,
        run_id: &str,
        status: RunState,
        error: Option<String>,
        conv: &Conversation,
        thread_id: &str,
        at: i64,
    ) {
        self.send(Op::RunEnded {
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            status,
            at,
            error,
            messages: serde_json::to_string(&conv.messages).unwrap_or_default(),
            state: conv.state.to_string(),
            render_hints: serde_json::to_string(&conv.render_hints).unwrap_or_else(|_| "[]".into()),
        })
        .await;
    }

    /// Every thread of `owner`, most recently updated first.
    pub async fn threads(&self, owner: &str) -> Result<Vec<ThreadSummary>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, title, agent_id, created_at, updated_at, messages FROM threads \
             WHERE owner = ? ORDER BY updated_at DESC, id",
        )
        .bind(owner)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let messages: String = row.try_get("messages")?;
            let count = serde_json::from_str::<Vec<Value>>(&messages).map_or(0, |m| m.len());
            let last_run = self.last_run(&id).await?;
            out.push(ThreadSummary {
                title: row.try_get("title")?,
                agent_id: row.try_get("agent_id")?,
                created_at: row.try_get("created_at")?,
                updated_at: row.try_get("updated_at")?,
                message_count: count as u64,
                last_run,
                id,
            });
        }
        Ok(out)
    }

    /// Who owns a thread (None: no such thread).
    pub async fn thread_owner(&self, id: &str) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar("SELECT owner FROM threads WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Who owns a run (None: no such run).
    pub async fn run_owner(&self, run_id: &str) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar("SELECT owner FROM runs WHERE id = ?")
            .bind(run_id)
            .fetch_optional(&self.pool)
            .await
    }

    /// One thread as stored (its messages and state as of its last run start or end).
    pub async fn thread(&self, id: &str) -> Result<Option<ThreadView>, sqlx::Error> {
        let Some(row) = sqlx::query(
            "SELECT id, title, agent_id, created_at, updated_at, messages, state, render_hints \
             FROM threads WHERE id = ?",
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
        }))
    }

    /// A thread's runs, oldest first (only the last one with `last_only`).
    async fn runs_of(
        &self,
        thread_id: &str,
        last_only: bool,
    ) -> Result<Vec<RunSummary>, sqlx::Error> {
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
    pub async fn last_run(&self, thread_id: &str) -> Result<Option<RunSummary>, sqlx::Error> {
        Ok(self.runs_of(thread_id, true).await?.pop())
    }

    /// One run.
    pub async fn run(&self, run_id: &str) -> Result<Option<RunSummary>, sqlx::Error> {
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
    pub async fn run_input(&self, run_id: &str) -> Result<Option<RunAgentInput>, sqlx::Error> {
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
    ) -> Result<StoredEvents, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT seq, event FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(run_id)
        .bind(after as i64)
        .bind(limit as i64)
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

fn run_summary(row: &sqlx::sqlite::SqliteRow) -> Result<RunSummary, sqlx::Error> {
    let run_id: String = row.try_get("id")?;
    let status: String = row.try_get("status")?;
    Ok(RunSummary {
        events_url: run_events_url(&run_id),
        thread_id: row.try_get("thread_id")?,
        agent_id: row.try_get("agent_id")?,
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
