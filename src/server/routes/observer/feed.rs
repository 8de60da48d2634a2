//! The observer stream's body: one hub subscription per observer, its events filtered by thread
//! and owner and written in batches, a resync (snapshots) after it fell behind, keep-alive
//! comments while nothing happens.

use std::collections::HashMap;
use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::protocol::sse;
use crate::protocol::types::PROTOCOL_VERSION;
use crate::server::accounts::User;
use crate::server::clock::now_ms;
use crate::server::runs::{Observed, Subscription, Taken};

/// How many already-waiting events go into one write of the observer stream: about 19 KB of
/// frames. A fan-out of 2,000 events to 10,000 observers (the capacity benchmark's row, the
/// builds in turn) cost the server 1.35-1.74 s of CPU with 128 (four runs) against 1.89-2.07 s
/// with 64 (two; half the writes); 256 took 4.5 s (two; writes larger than the socket took at
/// once).
const BATCH: usize = 128;
/// The least capacity of one write of the observer stream.
const OUT_CAPACITY: usize = 4096;
/// Bytes reserved per event waiting when a write begins (an event's frame is about 150):
/// room for the whole batch at once. Grown a doubling at a time from 4 KB, a batch of 64
/// frames was copied twice more (4 and 8 KB) on its way to 16 KB, for every observer.
const FRAME_ROOM: usize = 192;

/// One observer: its hub subscription and what it has delivered so far.
struct Observer<S> {
    sub: Subscription,
    view: View<S>,
    connected: bool,
}

/// What an observer shows and has shown.
struct View<S> {
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
    /// Events numbered up to this are already reflected in a resync snapshot.
    skip_upto: u64,
    /// Runs whose `RUN_STARTED` this observer delivered and whose terminal event it has not:
    /// run id → thread id.
    open_runs: HashMap<String, String>,
    /// Only this user's runs are delivered (None: every run).
    owner: Option<User>,
    /// The room a write reserves at its first frame: for the events waiting when it began.
    room: usize,
}

/// The observer stream's body over a hub subscription. `snapshot(thread)` must return the
/// sequence number of the last event sent to the hub and the conversations (of that thread, or
/// of all threads) reflecting exactly the events up to it ([`Runs::observer_snapshot`]).
///
/// When it fell behind what the hub holds it writes `: resync after <n> missed events`, then per
/// thread (the filtered one, or every thread): `RUN_STARTED` if a run is in progress whose
/// start the observer has not seen, `MESSAGES_SNAPSHOT` (every message, activities included),
/// `STATE_SNAPSHOT`, and the terminal event of a run it saw start whose end fell in the gap.
/// These carry `id: <S>` (the sequence number the snapshot reflects) and `metadata:
/// {"threadId", "resync": true}`. Live events numbered up to S are then skipped (the snapshot
/// has them), so nothing is applied twice. Dropping the stream (client gone) drops the
/// subscription; no task is left behind. The stream ends when the hub is gone.
///
/// [`Runs::observer_snapshot`]: crate::server::runs::Runs::observer_snapshot
pub fn observer_stream<S>(
    sub: Subscription,
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>) + Send + 'static,
{
    observer_stream_from(sub, thread, keep_alive, snapshot, Start::Live, None)
}

/// How an observer stream begins.
pub enum Start {
    /// With the events after the subscription's place (the live ones, or those after the
    /// client's `Last-Event-ID`).
    Live,
    /// With a resync (snapshots): the client's `Last-Event-ID` is older than what is held.
    Resync,
}

/// [`observer_stream`] for a client resuming with `Last-Event-ID` ([`Start`]), showing only
/// `owner`'s runs (`snapshot` must then show only theirs too).
pub fn observer_stream_from<S>(
    sub: Subscription,
    thread: Option<String>,
    keep_alive: Duration,
    snapshot: S,
    start: Start,
    owner: Option<User>,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>) + Send + 'static,
{
    let observer = Observer {
        sub,
        view: View {
            thread,
            keep_alive,
            snapshot,
            skip_upto: 0,
            open_runs: HashMap::new(),
            owner,
            room: OUT_CAPACITY,
        },
        connected: false,
    };
    let mut start = Some(start);
    futures::stream::unfold(observer, move |mut o| {
        let start = start.take();
        async move {
            if !o.connected {
                o.connected = true;
                let mut out = sse::encode_comment("connected");
                if let Some(Start::Resync) = start {
                    o.view.resync(0, &mut out);
                    o.sub.skip_to(o.view.skip_upto);
                }
                return Some((Ok(Bytes::from(out)), o));
            }
            let deadline = Instant::now() + o.view.keep_alive;
            loop {
                // Checked first too: a filtered observer may see a flood of other threads' events
                // and still owes its client a keep-alive.
                if Instant::now() >= deadline {
                    return Some((Ok(Bytes::from_static(sse::KEEP_ALIVE.as_bytes())), o));
                }
                let mut out = String::new();
                o.view.room = (o.sub.behind().clamp(1, BATCH as u64) as usize) * FRAME_ROOM;
                // One write: a resync if it fell behind, then the events that follow, BATCH at
                // most, all read under the hub's lock (delivering only copies their frames).
                let mut taken = 0;
                while taken < BATCH {
                    match o.sub.take(BATCH - taken, |ev| o.view.deliver(ev, &mut out)) {
                        Taken::Closed => return None,
                        Taken::Lagged(n) => {
                            o.view.resync(n, &mut out);
                            o.sub.skip_to(o.view.skip_upto);
                            // Counted as one event: a run outpacing this observer cannot keep it
                            // resynchronising without a write.
                            taken += 1;
                        }
                        Taken::Events(0) => break,
                        Taken::Events(n) => taken += n,
                    }
                }
                if !out.is_empty() {
                    return Some((Ok(Bytes::from(out)), o));
                }
                if taken == 0 {
                    // Until something is published, the keep-alive's deadline, or the hub's end
                    // (the next take says which).
                    o.sub.wait(deadline).await;
                }
            }
        }
    })
}

impl<S> View<S>
where
    S: FnMut(Option<&str>) -> (u64, Vec<(String, Conversation)>),
{
    fn deliver(&mut self, ev: &Observed, out: &mut String) {
        if ev.seq <= self.skip_upto {
            return;
        }
        if self
            .thread
            .as_deref()
            .is_some_and(|t| t != &*ev.origin.thread_id)
        {
            return;
        }
        if self.owner.as_ref().is_some_and(|o| *o != ev.origin.owner) {
            return;
        }
        // Event JSON always starts with its type (`preserve_order`).
        if ev.json.starts_with(r#"{"type":"RUN_STARTED""#) {
            let known = self.open_runs.insert(
                ev.origin.run_id.to_string(),
                ev.origin.thread_id.to_string(),
            );
            if known.is_some() {
                // Already announced by a resync.
                return;
            }
        } else if ev.json.starts_with(r#"{"type":"RUN_FINISHED""#)
            || ev.json.starts_with(r#"{"type":"RUN_ERROR""#)
        {
            self.open_runs.remove(&*ev.origin.run_id);
        }
        let frame = ev.frame();
        if out.capacity() == 0 {
            // Room for the events waiting: a batch rarely grows it.
            out.reserve(
                self.room
                    .clamp(OUT_CAPACITY, BATCH * FRAME_ROOM)
                    .max(frame.len()),
            );
        }
        out.push_str(frame);
    }

    fn resync(&mut self, missed: u64, out: &mut String) {
        out.push_str(&sse::encode_comment(&format!(
            "resync after {missed} missed events"
        )));
        let (seq, threads) = (self.snapshot)(self.thread.as_deref());
        self.skip_upto = self.skip_upto.max(seq);
        let id = seq.to_string();
        let now = now_ms();
        for (thread_id, conv) in &threads {
            let mut events = Vec::new();
            if let RunStatus::Running { run_id } = &conv.run {
                if !self.open_runs.contains_key(run_id) {
                    self.open_runs.insert(run_id.clone(), thread_id.clone());
                    events.push(EventKind::RunStarted {
                        thread_id: thread_id.clone(),
                        run_id: run_id.clone(),
                        parent_run_id: None,
                        input: None,
                        protocol_version: Some(PROTOCOL_VERSION.into()),
                    });
                }
            }
            events.push(EventKind::MessagesSnapshot {
                messages: conv.messages.clone(),
            });
            events.push(EventKind::StateSnapshot {
                snapshot: conv.state.clone(),
            });
            let open_here: Vec<String> = self
                .open_runs
                .iter()
                .filter(|(_, t)| *t == thread_id)
                .map(|(r, _)| r.clone())
                .collect();
            for run_id in &open_here {
                let terminal = match &conv.run {
                    RunStatus::Finished { run_id: r, outcome } if r == run_id => {
                        EventKind::RunFinished {
                            thread_id: thread_id.clone(),
                            run_id: run_id.clone(),
                            result: conv.result.clone(),
                            outcome: outcome.clone(),
                            usage: None,
                        }
                    }
                    // RUN_ERROR names no run: only attributable when one run was open here.
                    RunStatus::Error { message, code } if open_here.len() == 1 => {
                        EventKind::RunError {
                            message: message.clone(),
                            code: code.clone(),
                            usage: None,
                        }
                    }
                    // Still running, or several concurrent runs on one thread: the live
                    // terminal event (numbered after the snapshot) will come.
                    _ => continue,
                };
                self.open_runs.remove(run_id);
                events.push(terminal);
            }
            let mut meta = Map::new();
            meta.insert("threadId".into(), Value::String(thread_id.clone()));
            meta.insert("resync".into(), Value::Bool(true));
            for kind in events {
                let event = Event::from(kind)
                    .with_timestamp(now)
                    .with_metadata(meta.clone());
                out.push_str(&sse::encode_event(&event.to_json(), Some(&id), None));
            }
        }
    }
}
