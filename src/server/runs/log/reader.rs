//! A client's view of one run's events (see the parent module): the live log while the run is
//! in memory, the database for what the log no longer holds or once the run has ended.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

use super::{Frame, Logged, RunLog, READ_BATCH};
use crate::protocol::compat::{downgrade_event, event_json_for, Version, V1_1};
use crate::protocol::event::{Event, EVENT_TYPES};
use crate::server::store::Store;

/// The terminal event a reader gives when the run's events could not be stored.
fn storage_failed() -> Arc<Logged> {
    let event = Event::from(crate::protocol::event::EventKind::RunError {
        message: "the server could not store this run's events; the run was stopped".into(),
        code: Some(crate::wire::RunErrorCode::StorageFailed.to_string()),
        usage: None,
    });
    Arc::new(Logged {
        seq: 0,
        json: event.to_json().into(),
    })
}

/// Whether a stored event can be sent as one: a JSON object whose `type` is an AG-UI event
/// type. The text is our own encoding of an event that was verified when it was sent; this
/// guards against a damaged database, and reads the text without building anything (no
/// allocation). A reader catching up on a long run checks every event it reads: decoding each
/// into an [`Event`] took about 8 % of the server's CPU there (`perf`, a `long 1000000`
/// drained by curl).
fn stored_event_is_sound(json: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Probe>(json).is_ok_and(|p| EVENT_TYPES.contains(&&*p.kind))
}

/// A client's view of one run's events, from a given position: the live log while the run is
/// in memory, the database for what the log no longer holds or once the run has ended. Events
/// come in order, each once; the reader ends after the run's last event.
pub struct RunReader {
    pub(in crate::server::runs) run_id: String,
    pub(in crate::server::runs) log: Option<Arc<RunLog>>,
    pub(in crate::server::runs) store: Option<Store>,
    /// The number of the last event taken.
    pub(in crate::server::runs) after: u64,
    pub(in crate::server::runs) pending: VecDeque<Arc<Logged>>,
    pub(in crate::server::runs) peer: Option<Version>,
    /// Without a live log: what was queued for the database has been committed since this
    /// reader first read from it.
    pub(in crate::server::runs) flushed: bool,
    /// The `STORAGE_FAILED` end was given.
    pub(in crate::server::runs) told_failure: bool,
    /// The run keeps pace with this reader (the response that started it; see `pace`).
    pub(in crate::server::runs) paces: bool,
}

impl Drop for RunReader {
    fn drop(&mut self) {
        if let (true, Some(log)) = (self.paces, &self.log) {
            log.pace.release();
        }
    }
}

impl RunReader {
    /// The next event with its number, downgraded for an older peer (events it does not know
    /// are skipped); None after the last.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            let logged = self.next_logged().await?;
            if let Some(f) = self.shape(logged) {
                return Some(f);
            }
        }
    }

    /// The next event if one is ready now, without waiting.
    pub fn ready(&mut self) -> Option<Frame> {
        loop {
            if self.pending.is_empty() {
                self.fill_from_log();
            }
            let logged = self.pending.pop_front()?;
            if let Some(f) = self.shape(logged) {
                return Some(f);
            }
        }
    }

    /// Like [`RunReader::next`], as an owned event.
    pub async fn recv(&mut self) -> Option<Event> {
        self.next().await.map(|f| f.event().clone())
    }

    /// This reader, downgrading events for a peer speaking `peer` (None: as logged).
    pub fn for_peer(mut self, peer: Option<Version>) -> Self {
        self.peer = peer;
        self
    }

    /// This reader, the run's own: the run goes at most [`super::pace::PACE_AHEAD`] events ahead of it.
    pub(in crate::server::runs) fn pacing(mut self) -> Self {
        if let Some(log) = &self.log {
            self.paces = true;
            log.pace.reached(self.after);
        }
        self
    }

    /// The number of the last event taken.
    pub fn position(&self) -> u64 {
        self.after
    }

    fn shape(&self, logged: Arc<Logged>) -> Option<Frame> {
        let downgraded = match self.peer {
            Some(v) if v < V1_1 => {
                let event = downgrade_event(logged.decode(), v)?;
                let json = event_json_for(&event, v);
                Some(Box::new((event, json)))
            }
            _ => None,
        };
        Some(Frame {
            seq: logged.seq,
            logged,
            downgraded,
            decoded: OnceLock::new(),
        })
    }

    /// Take what the in-memory log has after our position. Returns false when the log no
    /// longer holds the next event (it must come from the database).
    fn fill_from_log(&mut self) -> bool {
        let Some(log) = &self.log else { return false };
        let inner = log.inner.lock();
        // Saturating: a position from a client may be any number (the route refuses those past
        // the run, but nothing here may overflow).
        let next = self.after.saturating_add(1);
        if next < inner.first {
            return false;
        }
        let start = usize::try_from(next - inner.first).unwrap_or(usize::MAX);
        for e in inner.events.iter().skip(start).take(READ_BATCH) {
            if e.seq > inner.readable {
                break;
            }
            self.after = e.seq;
            self.pending.push_back(e.clone());
        }
        drop(inner);
        if self.paces {
            log.pace.reached(self.after);
        }
        true
    }

    /// Reads from the database are boxed: a reader waiting for the next event (a run on an
    /// approval, an observer's run) holds only the wait, not the room of a database query.
    async fn next_logged(&mut self) -> Option<Arc<Logged>> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            let Some(log) = self.log.clone() else {
                return Box::pin(self.next_stored()).await;
            };
            let notified = log.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !self.fill_from_log() {
                if let Some(e) = Box::pin(self.next_stored()).await {
                    return Some(e);
                }
                // The database has nothing more: only possible without one.
                return None;
            }
            if !self.pending.is_empty() {
                continue;
            }
            {
                let inner = log.inner.lock();
                let last = inner.first + inner.events.len() as u64 - 1;
                if inner.failed && self.after >= inner.readable {
                    if self.told_failure {
                        return None;
                    }
                    self.told_failure = true;
                    return Some(storage_failed());
                }
                if inner.ended && self.after >= last {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Events from the database, a batch at a time.
    ///
    /// A live run's events leave its log only once committed, so a reader behind the log reads
    /// them without waiting for anything. Only a reader of a run no longer in memory waits,
    /// once, for what is queued to be committed. (A reader behind a live run used to wait for
    /// the writer's whole queue before each batch of 256: it fell further behind with every
    /// batch while the run streamed on.)
    async fn next_stored(&mut self) -> Option<Arc<Logged>> {
        let store = self.store.clone()?;
        if self.log.is_none() && !self.flushed {
            store.flush().await;
            self.flushed = true;
        }
        let rows = match store
            .events_after(&self.run_id, self.after, READ_BATCH as u64)
            .await
        {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(run = %self.run_id, "cannot read the run's events: {e}");
                return None;
            }
        };
        if rows.is_empty() {
            return None;
        }
        for (seq, json) in rows {
            self.after = seq;
            // A stored event that is not one (a damaged database) is left out; what is, is
            // kept and sent as stored.
            if stored_event_is_sound(&json) {
                self.pending.push_back(Arc::new(Logged {
                    seq,
                    json: json.into(),
                }));
            } else {
                tracing::error!(run = %self.run_id, seq, "a stored event does not parse");
            }
        }
        if let (true, Some(log)) = (self.paces, &self.log) {
            log.pace.reached(self.after);
        }
        // Newer events may be in memory again; the in-memory log is consulted next time.
        self.pending.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::stored_event_is_sound;
    use crate::protocol::event::{Event, EventKind};
    use crate::server::agents::demo::testing::{input_for, settings};
    use crate::server::agents::demo::DemoAgent;
    use crate::server::runs::Runs;
    use crate::server::store::testing::{fresh_store, hold_write_lock};

    /// A reader behind a live run reads what the run's log no longer holds from the database
    /// without waiting for the writer: those events were committed before they left the log.
    /// Here the writer is held (another program holds the database's write lock while a write
    /// is queued): a reader that waited for the writer's queue to be committed would wait
    /// until the lock's busy timeout.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_reader_behind_a_live_run_does_not_wait_for_the_writer() {
        let (store, dir, path) = fresh_store("behind").await;
        let runs = Runs::with_store(store.clone());
        // A run waiting on an approval: its committed events leave its log.
        let input = input_for("approval");
        let run_id = input.run_id.clone();
        let mut started = runs
            .start(Arc::new(DemoAgent), input, settings())
            .await
            .unwrap();
        let mut seen = Vec::new();
        while !matches!(seen.last(), Some(EventKind::ToolCallEnd { .. })) {
            seen.push(started.events.recv().await.expect("the run goes on").kind);
        }
        let log = runs.registry.log(&run_id).expect("the run is in progress");
        for _ in 0..1000 {
            if log.held() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(log.held(), 0, "the waiting run's events left its log");
        let mut other = hold_write_lock(&path).await;
        // The writer takes this and waits for the lock.
        store.queue_event(run_id.as_str().into(), 1_000, "{}".into(), None);
        let mut behind = runs.reader(&run_id, 0, None).await.unwrap();
        for (i, want) in seen.iter().enumerate() {
            let got = tokio::time::timeout(Duration::from_secs(2), behind.recv())
                .await
                .unwrap_or_else(|_| panic!("event {} waited for the writer", i + 1))
                .expect("the stored events");
            assert_eq!(&got.kind, want, "event {}", i + 1);
        }
        sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
        drop(other);
        runs.abort(Some(&run_id), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stored_event_is_sound_only_as_an_object_of_a_known_type() {
        let event = Event::from(EventKind::TextMessageContent {
            message_id: "m".into(),
            delta: "a \"quoted\" \\ delta".into(),
        })
        .to_json();
        assert!(stored_event_is_sound(&event));
        assert!(stored_event_is_sound(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#
        ));
        for damaged in [
            "",
            "not json",
            "[1]",
            r#"{"n":1}"#,
            r#"{"type":"NOT_AN_EVENT"}"#,
            r#"{"type":7}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"cut"#,
            r#"{"type":"RUN_STARTED"} trailing"#,
            r#"{"type":"RUN_STARTED","type":"RUN_ERROR"}"#,
        ] {
            assert!(!stored_event_is_sound(damaged), "{damaged:?} passed");
        }
    }
}
