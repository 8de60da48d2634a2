//! A run's event log and its readers: the newest events of a live run in memory, readers that
//! take them in order (falling back to the database for what memory no longer holds, or once
//! the run has ended), each event encoded once and shared. With a database, readers take only
//! committed events: what a client has seen survives a crash, so its `Last-Event-ID` is always
//! found again.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

mod pace;
mod reader;
pub use reader::RunReader;

// Locks that cannot be poisoned: a panic while one is held (none is expected) must not make
// every later request panic too.
use parking_lot::Mutex;

use tokio::sync::Notify;

use crate::protocol::event::Event;
use crate::server::store::Committed;

/// How many of a live run's newest events stay in memory; a reader further behind reads the
/// older ones from the database (without a database nothing is dropped). Events not yet
/// committed always stay, even past the window: readers take those only from here, and the
/// store bounds how many there are ([`crate::server::store::MAX_UNCOMMITTED`]), so a run holds
/// at most the window plus that many.
pub const LIVE_WINDOW: usize = 16 * 1024;
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
///
/// 40 bytes: the decoded and downgraded events are boxed. A frame is made and moved for every
/// event every reader takes; with an [`Event`] inline twice it was 776 bytes, copied at each
/// move, for the SSE readers that never decode (test `a_frame_is_small`).
pub struct Frame {
    pub seq: u64,
    logged: Arc<Logged>,
    /// The event downgraded for an older peer, and its JSON for that peer.
    downgraded: Option<Box<(Event, String)>>,
    /// The event decoded from its JSON, once asked for.
    decoded: OnceLock<Box<Event>>,
}

impl Frame {
    pub fn event(&self) -> &Event {
        match self.downgraded.as_deref() {
            Some((e, _)) => e,
            None => self.decoded.get_or_init(|| Box::new(self.logged.decode())),
        }
    }

    pub fn json(&self) -> std::borrow::Cow<'_, str> {
        match self.downgraded.as_deref() {
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
    /// Where the run's own reader is, which the run keeps pace with.
    pace: pace::Pace,
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
        self.drop_committed_beyond(0);
        if self.events.len() < before {
            self.events.shrink_to_fit();
        }
    }

    /// Committed events past the newest [`LIVE_WINDOW`] leave memory; uncommitted ones stay.
    fn drop_past_window(&mut self) {
        self.drop_committed_beyond(LIVE_WINDOW);
    }

    /// The oldest committed events leave until at most `keep` events are held (or none of
    /// those left is committed).
    fn drop_committed_beyond(&mut self, keep: usize) {
        while self.events.len() > keep
            && self.events.front().is_some_and(|e| e.seq <= self.readable)
        {
            self.events.pop_front();
            self.first += 1;
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
            pace: pace::Pace::new(),
        }
    }

    /// Whether the run, having sent event `seq`, must wait for its own reader; then
    /// [`RunLog::room_for`] is the wait.
    pub(super) fn too_far(&self, seq: u64) -> bool {
        self.pace.too_far(seq)
    }

    /// Waits until the run's own reader has caught up with event `seq` enough (see `pace`).
    pub(super) async fn room_for(&self, seq: u64) {
        self.pace.room_for(seq).await
    }

    pub(super) fn push(&self, logged: Arc<Logged>) {
        let mut inner = self.inner.lock();
        let seq = logged.seq;
        inner.resting = false;
        inner.events.push_back(logged);
        if inner.gated {
            inner.drop_past_window();
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
        } else {
            inner.drop_past_window();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(seq: u64) -> Arc<Logged> {
        Arc::new(Logged {
            seq,
            json: r#"{"type":"RAW","event":null}"#.into(),
        })
    }

    /// Uncommitted events never leave memory, however many there are past the window (a
    /// reader takes them only from here); once committed, all but the window's newest go, and
    /// a reader is sent to the database for them.
    #[test]
    fn only_committed_events_leave_the_window() {
        let log = RunLog::new(true);
        let n = (LIVE_WINDOW * 3) as u64;
        for seq in 1..=n {
            log.push(logged(seq));
        }
        assert_eq!(log.held(), n as usize, "uncommitted events are all kept");
        log.committed(LIVE_WINDOW as u64);
        assert_eq!(
            log.held(),
            n as usize - LIVE_WINDOW,
            "the committed ones past the window go"
        );
        log.committed(n);
        assert_eq!(log.held(), LIVE_WINDOW, "the newest window stays");
        log.push(logged(n + 1));
        assert_eq!(
            log.held(),
            LIVE_WINDOW,
            "the oldest committed one made room"
        );
        assert_eq!(log.last_seq(), n + 1, "the new uncommitted event is kept");
        log.committed(n + 1);
        assert_eq!(log.held(), LIVE_WINDOW);
        let inner = log.inner.lock();
        assert_eq!(inner.first, n + 2 - LIVE_WINDOW as u64);
        assert_eq!(inner.events.front().map(|e| e.seq), Some(inner.first));
    }

    /// Without a database nothing is dropped (no reader could find it elsewhere).
    #[test]
    fn without_a_database_the_log_keeps_everything() {
        let log = RunLog::new(false);
        let n = (LIVE_WINDOW + 10) as u64;
        for seq in 1..=n {
            log.push(logged(seq));
        }
        assert_eq!(log.held(), n as usize);
    }
}

#[cfg(test)]
#[test]
fn a_frame_is_small() {
    assert!(
        std::mem::size_of::<Frame>() <= 48,
        "{}",
        std::mem::size_of::<Frame>()
    );
}
