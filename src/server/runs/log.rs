//! A run's event log and its readers: the newest events of a live run in memory, readers that
//! take them in order (falling back to the database for what memory no longer holds, or once
//! the run has ended), each event encoded once and shared. With a database, readers take only
//! committed events: what a client has seen survives a crash, so its `Last-Event-ID` is always
//! found again.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

// Locks that cannot be poisoned: a panic while one is held (none is expected) must not make
// every later request panic too.
use parking_lot::Mutex;

use tokio::sync::Notify;

use crate::protocol::compat::{downgrade_event, event_json_for, Version, V1_1};
use crate::protocol::event::Event;
use crate::server::store::{Committed, Store};

/// How many of a live run's newest events stay in memory; a reader further behind reads the
/// older ones from the database (without a database nothing is dropped).
pub const LIVE_WINDOW: usize = 16 * 1024;
const _: () = assert!(LIVE_WINDOW >= crate::server::store::MAX_UNCOMMITTED);
/// Most events a reader takes at once.
const READ_BATCH: usize = 256;

/// One event of a run, numbered from 1 (its SSE id), as its JSON (encoded once, shared by the
/// database, observers and every reader).
///
/// Only the JSON is kept: most readers send it as it is (SSE), and a decoded [`Event`] took
/// 360 bytes beside JSON of about 120, in every event of a live run's window (a run waiting on
/// an approval held 34 events: 20 KB with the decoded events, 6 KB without). A reader that
/// needs the event itself (protobuf frames, named events, CopilotKit replays, a downgrade for
/// an older peer) decodes it from the JSON, once per frame ([`Frame::event`]).
#[derive(Debug)]
pub struct Logged {
    pub seq: u64,
    pub json: Arc<str>,
}

impl Logged {
    /// The event, decoded from its JSON. The JSON is our own encoding of an event, so it
    /// decodes; were it ever not to, the reader gets a `RUN_ERROR` naming the event instead.
    pub fn decode(&self) -> Event {
        serde_json::from_str(&self.json)
            .and_then(Event::from_value)
            .unwrap_or_else(|e| {
                tracing::error!(seq = self.seq, "a logged event does not decode: {e}");
                Event::from(crate::protocol::event::EventKind::RunError {
                    message: format!("event {} of this run could not be read back: {e}", self.seq),
                    code: Some(crate::wire::RunErrorCode::InternalError.to_string()),
                    usage: None,
                })
            })
    }
}

/// An event as a reader hands it out: as logged, or downgraded for an older peer.
pub struct Frame {
    pub seq: u64,
    logged: Arc<Logged>,
    /// The event downgraded for an older peer, and its JSON for that peer.
    downgraded: Option<(Event, String)>,
    /// The event decoded from its JSON, once asked for.
    decoded: OnceLock<Event>,
}

impl Frame {
    pub fn event(&self) -> &Event {
        match &self.downgraded {
            Some((e, _)) => e,
            None => self.decoded.get_or_init(|| self.logged.decode()),
        }
    }

    pub fn json(&self) -> std::borrow::Cow<'_, str> {
        match &self.downgraded {
            Some((_, json)) => json.as_str().into(),
            None => (&*self.logged.json).into(),
        }
    }
}

/// A live run's events: the newest [`LIVE_WINDOW`] in memory, readers woken as events become
/// readable (as they arrive, or as they are committed when the run is persisted).
pub(super) struct RunLog {
    inner: Mutex<LogInner>,
    notify: Notify,
}

struct LogInner {
    events: VecDeque<Arc<Logged>>,
    /// The sequence number of `events[0]`.
    first: u64,
    /// The last event readers may take: the last committed one when `gated`, else the last.
    readable: u64,
    /// Events wait for their commit before readers see them.
    gated: bool,
    ended: bool,
    /// The database could not store some of this run's events: nothing after `readable` will
    /// ever be readable; readers end with a `RUN_ERROR` `STORAGE_FAILED` of their own.
    failed: bool,
    /// The run waits (on a human's answer, see [`RunLog::rest`]): committed events leave memory
    /// as they are committed, until the run sends again.
    resting: bool,
}

impl LogInner {
    /// Let the committed events go: readers further behind read them from the database, as
    /// they do for events past the window. The room they took goes too.
    fn drop_committed(&mut self) {
        let before = self.events.len();
        while self.events.front().is_some_and(|e| e.seq <= self.readable) {
            self.events.pop_front();
            self.first += 1;
        }
        if self.events.len() < before {
            self.events.shrink_to_fit();
        }
    }
}

impl RunLog {
    /// A log whose events are readable as pushed (`persisted` false), or once committed (the
    /// database then also holds what the bounded window drops).
    pub(super) fn new(persisted: bool) -> Self {
        RunLog {
            inner: Mutex::new(LogInner {
                events: VecDeque::new(),
                first: 1,
                readable: 0,
                gated: persisted,
                ended: false,
                failed: false,
                resting: false,
            }),
            notify: Notify::new(),
        }
    }

    pub(super) fn push(&self, logged: Arc<Logged>) {
        let mut inner = self.inner.lock();
        let seq = logged.seq;
        inner.resting = false;
        inner.events.push_back(logged);
        if inner.gated && inner.events.len() > LIVE_WINDOW {
            inner.events.pop_front();
            inner.first += 1;
        }
        if inner.gated {
            return;
        }
        inner.readable = seq;
        drop(inner);
        self.notify.notify_waiters();
    }

    /// The number of the last event pushed (0: none yet).
    pub(super) fn last_seq(&self) -> u64 {
        let inner = self.inner.lock();
        inner.first + inner.events.len() as u64 - 1
    }

    /// How many events memory holds.
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.inner.lock().events.len()
    }

    /// Whether the run has ended (its log takes no more events).
    pub(super) fn has_ended(&self) -> bool {
        self.inner.lock().ended
    }

    pub(super) fn end(&self) {
        self.inner.lock().ended = true;
        self.notify.notify_waiters();
    }

    /// The run will send nothing for a while (it waits on a human's answer): with a database,
    /// its committed events leave memory now, and the rest as they are committed, until the
    /// run sends again. A waiting run's readers have taken them already (or read them from the
    /// database, as any reader behind the window does); a run of ten thousand waiting held
    /// about 6 KB of events each.
    pub(super) fn rest(&self) {
        let mut inner = self.inner.lock();
        if inner.gated {
            inner.resting = true;
            inner.drop_committed();
        }
    }
}

impl Committed for RunLog {
    fn committed(&self, seq: u64) {
        let mut inner = self.inner.lock();
        if seq <= inner.readable || inner.failed {
            return;
        }
        inner.readable = seq;
        if inner.resting {
            inner.drop_committed();
        }
        drop(inner);
        self.notify.notify_waiters();
    }

    fn failed(&self) {
        self.inner.lock().failed = true;
        self.notify.notify_waiters();
    }
}

impl RunLog {
    /// Whether some of the run's events could not be stored.
    pub(super) fn has_failed(&self) -> bool {
        self.inner.lock().failed
    }
}

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

/// A client's view of one run's events, from a given position: the live log while the run is
/// in memory, the database for what the log no longer holds or once the run has ended. Events
/// come in order, each once; the reader ends after the run's last event.
pub struct RunReader {
    pub(super) run_id: String,
    pub(super) log: Option<Arc<RunLog>>,
    pub(super) store: Option<Store>,
    /// The number of the last event taken.
    pub(super) after: u64,
    pub(super) pending: VecDeque<Arc<Logged>>,
    pub(super) peer: Option<Version>,
    pub(super) flushed: bool,
    /// The `STORAGE_FAILED` end was given.
    pub(super) told_failure: bool,
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

    /// The number of the last event taken.
    pub fn position(&self) -> u64 {
        self.after
    }

    fn shape(&self, logged: Arc<Logged>) -> Option<Frame> {
        let downgraded = match self.peer {
            Some(v) if v < V1_1 => {
                let event = downgrade_event(logged.decode(), v)?;
                let json = event_json_for(&event, v);
                Some((event, json))
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
    async fn next_stored(&mut self) -> Option<Arc<Logged>> {
        let store = self.store.clone()?;
        if !self.flushed {
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
            // A stored event that does not decode (a damaged database) is left out; what does
            // is kept and sent as stored.
            let valid = serde_json::from_str(&json).is_ok_and(|v| Event::from_value(v).is_ok());
            if valid {
                self.pending.push_back(Arc::new(Logged {
                    seq,
                    json: json.into(),
                }));
            } else {
                tracing::error!(run = %self.run_id, seq, "a stored event does not parse");
            }
        }
        // Newer events may be in memory again; the in-memory log is consulted next time.
        self.flushed = self.log.is_none();
        self.pending.pop_front()
    }
}
