//! The interrupts a stored thread waits on: what its last run's terminal event left open, for
//! checking a `resume` when the thread is no longer in memory (after a restart, or evicted).

use super::{Store, StoreError};
use crate::protocol::event::{Event, EventKind};
use crate::protocol::types::{Interrupt, RunOutcome};

impl Store {
    /// The interrupts a thread's last run ended on (empty: it ended otherwise, or has not).
    pub async fn open_interrupts(&self, thread_id: &str) -> Result<Vec<Interrupt>, StoreError> {
        let Some(last) = self.last_run(thread_id).await? else {
            return Ok(Vec::new());
        };
        let terminal = self
            .events_after(&last.run_id, last.event_count.saturating_sub(1), 1)
            .await?;
        let Some((_, json)) = terminal.first() else {
            return Ok(Vec::new());
        };
        let event = serde_json::from_str(json)
            .ok()
            .and_then(|v| Event::from_value(v).ok());
        Ok(match event.map(|e| e.kind) {
            Some(EventKind::RunFinished {
                outcome: Some(RunOutcome::Interrupt { interrupts }),
                ..
            }) => interrupts,
            _ => Vec::new(),
        })
    }
}
