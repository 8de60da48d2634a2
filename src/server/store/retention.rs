//! Retention (`--retention DAYS`): old runs' events and threads untouched for that long are
//! deleted, at startup and then hourly.

use std::time::Duration;

use super::Store;

impl Store {
    /// Retention: delete the events of runs that ended before `cutoff` (Unix ms), and threads
    /// not updated since `cutoff` with their runs (none of them in progress). A thread updated
    /// since keeps its messages and state; its old runs keep their summary row. Returns how many
    /// (events, threads) were deleted.
    pub async fn cleanup(&self, cutoff: i64) -> Result<(u64, u64), super::StoreError> {
        self.flush().await;
        let mut tx = self.pool.begin().await?;
        let events = sqlx::query(
            "DELETE FROM events WHERE run_id IN \
             (SELECT id FROM runs WHERE status != 'running' AND ended_at IS NOT NULL AND ended_at < ?)",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        // Threads untouched since the cutoff, none of whose runs is in progress.
        sqlx::query(
            "DELETE FROM events WHERE run_id IN (SELECT id FROM runs WHERE thread_id IN \
             (SELECT id FROM threads WHERE updated_at < ?1 AND NOT EXISTS \
             (SELECT 1 FROM runs r WHERE r.thread_id = threads.id AND r.status = 'running')))",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM runs WHERE thread_id IN \
             (SELECT id FROM threads WHERE updated_at < ?1 AND NOT EXISTS \
             (SELECT 1 FROM runs r WHERE r.thread_id = threads.id AND r.status = 'running'))",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        let threads = sqlx::query(
            "DELETE FROM threads WHERE updated_at < ?1 AND NOT EXISTS \
             (SELECT 1 FROM runs WHERE runs.thread_id = threads.id)",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok((events, threads))
    }
}

/// Delete what `--retention` says is too old, now and then every hour.
pub async fn retention_task(store: Store, keep: Duration) {
    let mut tick = tokio::time::interval(Duration::from_secs(3600));
    loop {
        tick.tick().await;
        let cutoff = crate::server::clock::now_ms() - keep.as_millis() as i64;
        match store.cleanup(cutoff).await {
            Ok((0, 0)) => {}
            Ok((events, threads)) => tracing::info!(
                "retention: deleted {events} event(s) of old runs and {threads} old thread(s)"
            ),
            Err(e) => tracing::error!("retention cleanup failed: {e}"),
        }
    }
}
