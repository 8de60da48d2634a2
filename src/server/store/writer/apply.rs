//! One batch of writes as one transaction: starts, ends and every run's events, each run's
//! consecutive events in as few rows as fit (see [`event_rows`](super::super::event_rows)),
//! written by multi-row inserts.

use sqlx::sqlite::SqliteConnection;
use sqlx::Connection;
use tokio::sync::oneshot;

use super::super::event_rows::Rows;
use super::super::ops::{EndRow, Op, StartRow};

/// Apply `batch` (drained) in one transaction; the flushes' acks are collected in `acks`, to
/// be sent once it is committed.
pub(super) async fn apply(
    conn: &mut SqliteConnection,
    batch: &mut Vec<Op>,
    acks: &mut Vec<oneshot::Sender<()>>,
) -> Result<(), sqlx::Error> {
    let mut tx = conn.begin().await?;
    // Events are gathered per run and written together at the end: a run's events of one
    // commit in one row (a statement or a row per event would cost more than the writing).
    // Other writes keep their order against them where it matters: a run id started again
    // deletes its earlier events, so those are written first.
    let mut events = Rows::default();
    for op in batch.drain(..) {
        if let Op::Event {
            run_id, seq, json, ..
        } = op
        {
            events.push(run_id, seq, json);
            continue;
        }
        match op {
            Op::RunStarted(row) => {
                let StartRow {
                    thread_id,
                    run_id,
                    agent_id,
                    owner,
                    at,
                    title,
                    input,
                    messages,
                    message_count,
                    state,
                } = *row;
                if events.has_run(&run_id) {
                    insert_events(&mut tx, &mut events).await?;
                }
                sqlx::query(
                    "INSERT INTO threads (id, title, agent_id, created_at, updated_at, messages, state, message_count, owner) \
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
                     ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, \
                     updated_at = excluded.updated_at, messages = excluded.messages, \
                     state = excluded.state, message_count = excluded.message_count, \
                     title = CASE WHEN threads.title = '' THEN excluded.title ELSE threads.title END \
                     WHERE threads.owner = excluded.owner",
                )
                .bind(&thread_id)
                .bind(&title)
                .bind(&agent_id)
                .bind(at)
                .bind(at)
                .bind(&messages)
                .bind(&state)
                .bind(message_count)
                .bind(&owner)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO runs (id, thread_id, agent_id, status, started_at, input, owner) \
                     VALUES (?, ?, ?, 'running', ?, ?, ?) \
                     ON CONFLICT (id) DO UPDATE SET status = 'running', started_at = excluded.started_at, \
                     ended_at = NULL, error = NULL, input = excluded.input \
                     WHERE runs.owner = excluded.owner",
                )
                .bind(&run_id)
                .bind(&thread_id)
                .bind(&agent_id)
                .bind(at)
                .bind(&input)
                .bind(&owner)
                .execute(&mut *tx)
                .await?;
                // A run id used again (after its previous run ended) starts a new event log.
                // Never another user's: their run id is refused before it gets here.
                sqlx::query(
                    "DELETE FROM events WHERE run_id = ? \
                     AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
                )
                .bind(&run_id)
                .bind(&run_id)
                .bind(&owner)
                .execute(&mut *tx)
                .await?;
            }
            Op::Event { .. } => unreachable!("handled above"),
            Op::RunEnded(row) => {
                let EndRow {
                    thread_id,
                    run_id,
                    status,
                    at,
                    error,
                    messages,
                    message_count,
                    state,
                    render_hints,
                } = *row;
                sqlx::query("UPDATE runs SET status = ?, ended_at = ?, error = ? WHERE id = ?")
                    .bind(status.as_str())
                    .bind(at)
                    .bind(&error)
                    .bind(&run_id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE threads SET messages = ?, state = ?, render_hints = ?, updated_at = ?, \
                     message_count = ? WHERE id = ?",
                )
                .bind(&messages)
                .bind(&state)
                .bind(&render_hints)
                .bind(at)
                .bind(message_count)
                .bind(&thread_id)
                .execute(&mut *tx)
                .await?;
            }
            Op::Flush(ack) => acks.push(ack),
        }
    }
    insert_events(&mut tx, &mut events).await?;
    tx.commit().await
}

/// Rows per multi-row insert (3 parameters each, well under SQLite's 32766).
const ROWS_PER_INSERT: usize = 256;

async fn insert_events(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    events: &mut Rows,
) -> Result<(), sqlx::Error> {
    let mut rows = events.take().into_iter().peekable();
    while rows.peek().is_some() {
        let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT OR REPLACE INTO events (run_id, seq, event) ",
        );
        // Bound as shared text: SQLite reads the bytes in place, no copy per row.
        q.push_values(rows.by_ref().take(ROWS_PER_INSERT), |mut b, row| {
            let (run_id, key) = (row.run_id.clone(), row.key() as i64);
            b.push_bind(run_id).push_bind(key).push_bind(row.text());
        });
        q.build().execute(&mut **tx).await?;
    }
    Ok(())
}
