//! Checkpoints off the writer's path. In WAL mode a commit only appends to the log; copying the
//! log back into the database file (a checkpoint, with its fsyncs) is what SQLite does every
//! 1,000 pages by default, inside the commit that crossed the mark — so the writer, and every
//! run whose events wait for their commit, stopped for it. Measured on this machine kind
//! (50 transactions of 4,096 rows): 240–270 k rows/s with those checkpoints, 395–400 k without,
//! at the same CPU time.
//!
//! So the writer's connection checkpoints by itself only past [`AUTOCHECKPOINT_PAGES`] (a bound
//! on the log's size should these checkpoints fall behind), and the writer starts a passive
//! checkpoint on another pooled connection at most every [`EVERY`]: it copies what is committed
//! while the writer goes on appending, and lets the log start over from its beginning once it
//! has caught up. Durability is unchanged: a commit is durable when it is in the log.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::SqlitePool;

/// Pages of log past which a committing connection checkpoints by itself (64 MiB at 4 KiB).
pub(super) const AUTOCHECKPOINT_PAGES: u32 = 16 * 1024;

/// How often, at most, the writer starts a background checkpoint.
const EVERY: Duration = Duration::from_millis(500);

/// The writer's side: when the last checkpoint started and whether one is running.
pub(super) struct Checkpoints {
    pool: SqlitePool,
    /// The server's runtime, where the checkpoints run (the writer has one of its own).
    runtime: tokio::runtime::Handle,
    last: Instant,
    running: Arc<AtomicBool>,
}

impl Checkpoints {
    /// Called on the server's runtime.
    pub(super) fn new(pool: SqlitePool) -> Self {
        Checkpoints {
            pool,
            runtime: tokio::runtime::Handle::current(),
            last: Instant::now(),
            running: Arc::default(),
        }
    }

    /// After a commit: start a passive checkpoint when one is due and none is running.
    pub(super) fn after_commit(&mut self) {
        if self.last.elapsed() < EVERY || self.running.swap(true, Ordering::AcqRel) {
            return;
        }
        self.last = Instant::now();
        let (pool, running) = (self.pool.clone(), self.running.clone());
        self.runtime.spawn(async move {
            let done = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                .execute(&pool)
                .await;
            if let Err(e) = done {
                // The log goes on growing until the writer's own bound checkpoints it.
                tracing::warn!("background checkpoint failed: {e}");
            }
            running.store(false, Ordering::Release);
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::protocol::types::RunAgentInput;
    use crate::server::store::Store;

    /// The events reach the database file while the log stays far below the connection's own
    /// bound: only a background checkpoint can have copied them there.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn committed_events_are_checkpointed_in_the_background() {
        let dir = std::env::temp_dir().join(format!("agui-ckpt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("studio.db");
        let store = Store::open(db.to_str().unwrap()).await.unwrap();
        let before = std::fs::metadata(&db).unwrap().len();
        let input = RunAgentInput::new("t1".to_string(), "r1".to_string());
        let op = Store::run_started_op(&input, &input.messages, "demo", "", 1);
        store.run_started(op).await;
        let event = format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"{}"}}"#,
            "x".repeat(200)
        );
        let mut seq = 0;
        // Two commits more than `EVERY` apart: the second one starts a checkpoint.
        for _ in 0..2 {
            for _ in 0..2_000 {
                seq += 1;
                store
                    .event("r1".into(), seq, event.as_str().into(), None)
                    .await;
            }
            store.flush().await;
            tokio::time::sleep(super::EVERY + Duration::from_millis(100)).await;
        }
        seq += 1;
        store
            .event("r1".into(), seq, event.as_str().into(), None)
            .await;
        store.flush().await;
        // 4,001 events of 250 bytes: about 1 MB, some 250 pages of a log whose own bound is
        // 16,384 pages.
        let deadline = Instant::now() + Duration::from_secs(10);
        let size = loop {
            let size = std::fs::metadata(&db).unwrap().len();
            if size > before + 500_000 || Instant::now() > deadline {
                break size;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(
            size > before + 500_000,
            "database file {before} -> {size} bytes: nothing was checkpointed"
        );
        assert_eq!(
            store.events_after("r1", 0, 10_000).await.unwrap().len(),
            4_001
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
