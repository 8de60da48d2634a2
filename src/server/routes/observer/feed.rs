//! The observer stream's body: one hub subscription per observer, its events filtered by thread
//! and owner and written in batches, a resync (snapshots) after it fell behind, keep-alive
//! comments while nothing happens.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::Arc;
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
use crate::server::runs::{Edge, Observed, Origin, SharedFrame, Subscription, Taken};

/// How many already-waiting events one step of the observer stream takes. Runs of them go out
/// as slices of the hub's shared frames (see [`Out`]); hyper gathers a step's pieces, and the
/// steps that follow at once, into one vectored write.
pub(super) const BATCH: usize = 128;
/// A run of consecutive frames shorter than this is copied rather than sent as a slice of its
/// own: an observer of one thread among busy others would otherwise hand the kernel one piece
/// per event.
const SLICE_FROM: usize = 2048;

/// One observer: its hub subscription and what it has delivered so far.
struct Observer<S> {
    sub: Subscription,
    view: View<S>,
    connected: bool,
    /// The pieces of the last step not yet handed to the connection.
    queued: VecDeque<Bytes>,
}

/// One step's bytes, in order: runs of consecutive frames as slices of the hub's buffers
/// (shared by every observer: 10,000 observers of a run send the same bytes, cache-warm,
/// instead of 10,000 copies), short runs and the rest (comments, resyncs) copied between them.
#[derive(Default)]
struct Out {
    pieces: VecDeque<Bytes>,
    text: Vec<u8>,
    /// The run of frames being extended: its buffer and range.
    run: Option<(Bytes, usize, usize)>,
}

impl Out {
    fn push_str(&mut self, text: &str) {
        self.close_run();
        self.text.extend_from_slice(text.as_bytes());
    }

    fn push_frame(&mut self, frame: &SharedFrame) {
        if let Some((segment, _, end)) = &mut self.run {
            if segment.as_ptr() == frame.segment.as_ptr() && *end == frame.start {
                *end = frame.end;
                return;
            }
        }
        self.close_run();
        self.run = Some((frame.segment.clone(), frame.start, frame.end));
    }

    fn close_run(&mut self) {
        let Some((segment, start, end)) = self.run.take() else {
            return;
        };
        if end - start < SLICE_FROM {
            self.text.extend_from_slice(&segment[start..end]);
        } else {
            self.flush_text();
            self.pieces.push_back(segment.slice(start..end));
        }
    }

    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            self.pieces
                .push_back(Bytes::from(std::mem::take(&mut self.text)));
        }
    }

    /// Every piece, in order.
    fn finish(mut self) -> VecDeque<Bytes> {
        self.close_run();
        self.flush_text();
        self.pieces
    }
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
    /// The origin of the last event delivered or not, and whether it was shown.
    last_origin: Option<(Arc<Origin>, bool)>,
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
            last_origin: None,
        },
        connected: false,
        queued: VecDeque::new(),
    };
    let mut start = Some(start);
    futures::stream::unfold(observer, move |mut o| {
        let start = start.take();
        async move {
            if let Some(piece) = o.queued.pop_front() {
                return Some((Ok(piece), o));
            }
            if !o.connected {
                o.connected = true;
                let mut out = Out::default();
                out.push_str(&sse::encode_comment("connected"));
                if let Some(Start::Resync) = start {
                    o.view.resync(0, &mut out);
                    o.sub.skip_to(o.view.skip_upto);
                }
                o.queued = out.finish();
                return o.queued.pop_front().map(|piece| (Ok(piece), o));
            }
            let deadline = Instant::now() + o.view.keep_alive;
            loop {
                // Checked first too: a filtered observer may see a flood of other threads' events
                // and still owes its client a keep-alive.
                if Instant::now() >= deadline {
                    return Some((Ok(Bytes::from_static(sse::KEEP_ALIVE.as_bytes())), o));
                }
                let mut out = Out::default();
                // One step: a resync if it fell behind, then the events that follow, BATCH at
                // most, all read under the hub's lock (delivering only gathers their frames).
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
                o.queued = out.finish();
                if let Some(piece) = o.queued.pop_front() {
                    return Some((Ok(piece), o));
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
    fn deliver(&mut self, ev: &Observed, out: &mut Out) {
        if ev.seq <= self.skip_upto {
            return;
        }
        if !self.shows(&ev.origin) {
            return;
        }
        if ev.edge == Edge::Start {
            let known = self.open_runs.insert(
                ev.origin.run_id.to_string(),
                ev.origin.thread_id.to_string(),
            );
            if known.is_some() {
                // Already announced by a resync.
                return;
            }
        } else if ev.edge == Edge::End {
            self.open_runs.remove(&*ev.origin.run_id);
        }
        match ev.frame() {
            Some(frame) => out.push_frame(frame),
            // Every event taken has its frame; encoded here should that ever not hold.
            None => {
                out.close_run();
                sse::push_numbered_event(&mut out.text, &ev.json, ev.seq);
            }
        }
    }

    /// Whether this observer shows the runs of `origin` (its thread, its owner): decided once
    /// per run in a row rather than for each event (a run's events share their origin).
    fn shows(&mut self, origin: &Arc<Origin>) -> bool {
        if let Some((last, shown)) = &self.last_origin {
            if Arc::ptr_eq(last, origin) {
                return *shown;
            }
        }
        let shown = self
            .thread
            .as_deref()
            .is_none_or(|t| t == &*origin.thread_id)
            && self.owner.as_ref().is_none_or(|o| *o == origin.owner);
        // Held, so that no other run's origin can come to have its address.
        self.last_origin = Some((origin.clone(), shown));
        shown
    }

    fn resync(&mut self, missed: u64, out: &mut Out) {
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
