//! How writes reach the writer: queued in order, a run waiting only when the queue is full.

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::ops::{Committed, Op};
use super::Store;

impl Store {
    pub(super) async fn send(&self, op: Op) {
        Self::send_on(&self.tx, op).await;
    }

    /// Queue `op` on `queue`; false when the writer has stopped.
    pub(super) async fn send_on(queue: &mpsc::Sender<Op>, op: Op) -> bool {
        let Err(mpsc::error::SendError(op)) = queue.send(op).await else {
            return true;
        };
        Self::lost(op);
        false
    }

    /// A write the stopped writer will never apply.
    fn lost(op: Op) {
        tracing::error!("the database writer has stopped; a write was lost");
        // Nothing will be committed any more: the run's clients are told it failed.
        if let Op::Event {
            done: Some(done), ..
        } = op
        {
            done.failed();
        }
    }

    /// Event number `seq` (1-based) of a run; `done` is told once it is committed (or once the
    /// write has failed: the run is not held back by a broken disk, the failure is logged).
    pub async fn event(
        &self,
        run_id: Arc<str>,
        seq: u64,
        json: Arc<str>,
        done: Option<Arc<dyn Committed>>,
    ) {
        if let Some(wait) = self.queue_event(run_id, seq, json, done) {
            wait.await;
        }
    }

    /// [`Store::event`] without waiting when the writer's queue has room (nearly always):
    /// otherwise the future it returns waits for room, and the caller must await it before
    /// its run's next write. A streaming run queues each event this way, without a future of
    /// its own per event (moving the event's write into one, and that into the queue, was
    /// about 5 % of a single stream's time, `perf`).
    pub fn queue_event(
        &self,
        run_id: Arc<str>,
        seq: u64,
        json: Arc<str>,
        done: Option<Arc<dyn Committed>>,
    ) -> Option<BoxFuture<'static, ()>> {
        let op = Op::Event {
            run_id,
            seq,
            json,
            done,
        };
        // A try never goes ahead of a run already waiting for room: the queue's room goes to
        // those waiting first.
        match self.tx.try_send(op) {
            Ok(()) => None,
            Err(mpsc::error::TrySendError::Full(op)) => {
                let tx = self.tx.clone();
                Some(Box::pin(async move {
                    Self::send_on(&tx, op).await;
                }))
            }
            Err(mpsc::error::TrySendError::Closed(op)) => {
                Self::lost(op);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::event_rows::tests::store_with_runs;
    use super::super::testing::hold_write_lock;
    use super::super::{ops::BATCH, QUEUE};

    fn event(seq: u64) -> std::sync::Arc<str> {
        format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{seq}"}}"#).into()
    }

    /// A run queues its events without waiting while the writer keeps up; once the writer is
    /// held (another program holds the database's write lock) and the queue is full, the event
    /// that finds no room comes back as a wait, which ends only once the writer goes on — and
    /// every event, the waiting one too, is stored once, in order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_event_waits_for_room_only_once_the_queue_is_full() {
        let (store, dir) = store_with_runs("queue", &["r"]).await;
        let path = dir.join("studio.db");
        let path = path.to_str().unwrap();
        let mut other = hold_write_lock(path).await;
        let most = (QUEUE + BATCH + 10) as u64;
        // The first event, taken by the writer (which is then held) before the others come: a
        // writer slow to wake would otherwise take a full queue at once, and make room for
        // another before it is held.
        assert!(store.queue_event("r".into(), 1, event(1), None).is_none());
        for _ in 0..500 {
            if store.tx.capacity() == QUEUE {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            store.tx.capacity(),
            QUEUE,
            "the writer took the first event"
        );
        let mut waited = None;
        for seq in 2..=most {
            if let Some(wait) = store.queue_event("r".into(), seq, event(seq), None) {
                waited = Some((seq, wait));
                break;
            }
        }
        let (at, mut wait) = waited.expect("a full queue makes the run wait");
        // The writer took what was queued when it woke (at least the first event), then was
        // held: the queue filled behind it.
        assert!(
            at as usize > QUEUE && at as usize <= QUEUE + BATCH + 1,
            "waited at event {at}"
        );
        assert!(
            tokio::time::timeout(Duration::from_millis(300), &mut wait)
                .await
                .is_err(),
            "the wait ended while the writer was held"
        );
        sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
        tokio::time::timeout(Duration::from_secs(30), wait)
            .await
            .expect("room once the writer goes on");
        store.flush().await;
        let stored = store.events_after("r", 0, most).await.unwrap();
        assert_eq!(stored.len() as u64, at);
        assert!(stored
            .iter()
            .zip(1..)
            .all(|((seq, json), n)| *seq == n && **json == *event(n)));
        drop(other);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
