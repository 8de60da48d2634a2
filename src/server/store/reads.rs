//! What the store reads: thread lists, a thread, its runs, a run's input and events.

use futures::TryStreamExt;
use serde_json::Value;
use sqlx::Row;

use super::{edits, event_rows, Owners, Store, StoreError, StoredEvents};
use crate::protocol::types::{Message, RunAgentInput};
use crate::wire::{run_events_url, RunState, RunSummary, ThreadSummary, ThreadView};

impl Store {
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

    /// A thread's owner and a run's owner and thread ([`Owners`]), in one read shared with the
    /// other runs starting meanwhile: what a new run's checks need (see `Runs::check_owner`).
    pub async fn thread_and_run_owners(
        &self,
        thread_id: &str,
        run_id: &str,
    ) -> Result<Owners, StoreError> {
        self.owners.lookup(thread_id, run_id).await
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
        // A row's key is the number of the last event it holds (see `event_rows`): the first
        // row selected holds event `after + 1`. Rows are read one at a time and the read stops
        // once `limit` events are taken: a row holds up to 64 events, and a read of the first
        // `limit` rows decoded up to 64 times the events asked for (a reader behind a long run
        // took 256 events at a time from 256 rows, 16,384 events decoded and dropped for each
        // batch: it never caught up).
        let mut rows = sqlx::query(
            "SELECT seq, event FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(run_id)
        .bind(after)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch(&self.pool);
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        while out.len() < limit {
            let Some(r) = rows.try_next().await? else {
                break;
            };
            let last = r.try_get::<i64, _>("seq")? as u64;
            let room = limit - out.len();
            event_rows::decode_into(last, r.try_get("event")?, after as u64, room, &mut out)
                .map_err(StoreError::Corrupt)?;
        }
        Ok(out)
    }
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
