//! Startup recovery: runs a previous process left in progress end, in the database, as they
//! would have had the server stayed up long enough to say so.

use serde_json::Value;
use sqlx::Row;

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::protocol::types::{RunAgentInput, RunOutcome};
use crate::wire::RunState;

use super::{start_conversation, Store};

impl Store {
    /// After a restart: runs the previous process left in progress are over. Each gets a final
    /// `RUN_ERROR` (code `SERVER_RESTARTED`) so its replay ends like any stream, status
    /// `interrupted`, and its thread the conversation its stored events describe.
    pub async fn recover(&self, now: i64) -> Result<usize, super::StoreError> {
        let rows = sqlx::query("SELECT id, thread_id, input FROM runs WHERE status = 'running'")
            .fetch_all(&self.pool)
            .await?;
        for row in &rows {
            let run_id: String = row.try_get("id")?;
            let thread_id: String = row.try_get("thread_id")?;
            let input: String = row.try_get("input")?;
            // The thread as the run found it (its earlier messages and render hints; this
            // run's hints come from its events), then the run's input, then its events.
            let mut conv = Conversation::default();
            let row = sqlx::query("SELECT messages, render_hints FROM threads WHERE id = ?")
                .bind(&thread_id)
                .fetch_optional(&self.pool)
                .await?;
            if let Some(row) = row {
                let messages: String = row.try_get("messages")?;
                let hints: String = row.try_get("render_hints")?;
                if let Ok(messages) = serde_json::from_str(&messages) {
                    conv.apply(&Event::from(EventKind::MessagesSnapshot { messages }));
                }
                conv.render_hints = serde_json::from_str(&hints).unwrap_or_default();
            }
            if let Ok(input) = serde_json::from_str::<RunAgentInput>(&input) {
                start_conversation(&mut conv, &input, now);
            }
            let last = self.replay_run(&run_id, &mut conv).await?;
            // Its terminal event was stored but not its status (the process stopped between
            // the two): the run is over as it ended, and no second terminal event is added.
            let ended = match &conv.run {
                RunStatus::Finished {
                    outcome: Some(RunOutcome::Cancelled),
                    ..
                } => Some((RunState::Cancelled, None)),
                RunStatus::Finished { .. } => Some((RunState::Finished, None)),
                RunStatus::Error { message, .. } => Some((RunState::Error, Some(message.clone()))),
                _ => None,
            };
            if let Some((status, error)) = ended {
                self.run_ended(&run_id, status, error, conv, &thread_id, now)
                    .await;
                continue;
            }
            let mut end = Event::from(EventKind::RunError {
                message: "the server stopped while this run was in progress".into(),
                code: Some(crate::wire::RunErrorCode::ServerRestarted.to_string()),
                usage: None,
            });
            end.timestamp = Some(now);
            conv.apply(&end);
            self.event(run_id.as_str().into(), last + 1, end.to_json().into(), None)
                .await;
            self.run_ended(
                &run_id,
                RunState::Interrupted,
                Some("the server stopped while this run was in progress".into()),
                conv,
                &thread_id,
                now,
            )
            .await;
        }
        self.flush().await;
        Ok(rows.len())
    }

    /// Apply run `run_id`'s stored events to `conv` (all but `RUN_STARTED`: `conv` already
    /// holds the run's input); returns the last event's number (0: none).
    pub async fn replay_run(
        &self,
        run_id: &str,
        conv: &mut Conversation,
    ) -> Result<u64, super::StoreError> {
        let mut chunks = ChunkExpander::new();
        let mut last = 0;
        loop {
            let batch = self.events_after(run_id, last, 4096).await?;
            let Some((seq, _)) = batch.last() else {
                return Ok(last);
            };
            last = *seq;
            for (_, json) in &batch {
                let Ok(v) = serde_json::from_str::<Value>(json) else {
                    continue;
                };
                let Ok(event) = Event::from_value(v) else {
                    continue;
                };
                if matches!(event.kind, EventKind::RunStarted { .. }) {
                    continue;
                }
                for e in chunks.expand(event).unwrap_or_default() {
                    conv.apply(&e);
                }
            }
        }
    }
}
