//! Runs: the registry of runs in progress (each with a cancel handle), the task that drives an
//! agent and guarantees a well-formed stream, the waits for human answers, the observer hub,
//! and each thread's current conversation computed by the shared reducer.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::FutureExt;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::compat::{downgrade_event, parse_version, Version};
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{RunAgentInput, RunOutcome, PROTOCOL_VERSION};

use super::agents::{Agent, AgentError, RunContext, RunEnd, RunSettings};
use super::error::ApiError;

/// How many events the observer hub buffers; an observer further behind is resynchronised.
pub const HUB_CAPACITY: usize = 4096;
/// How many events a run may get ahead of a slow HTTP client before it waits.
const CLIENT_BUFFER: usize = 256;

/// One event as observers see it.
#[derive(Debug)]
pub struct Observed {
    pub seq: u64,
    pub thread_id: String,
    pub run_id: String,
    pub json: String,
}

struct ActiveRun {
    thread_id: String,
    cancel: CancellationToken,
    #[allow(dead_code)]
    started: Instant,
}

struct Waiter {
    run_id: String,
    thread_id: String,
    tx: oneshot::Sender<Value>,
}

/// Every run of this server.
pub struct Runs {
    active: Mutex<HashMap<String, ActiveRun>>,
    waits: Mutex<HashMap<String, Waiter>>,
    threads: Mutex<HashMap<String, Conversation>>,
    latest_thread: Mutex<Option<String>>,
    hub: broadcast::Sender<Arc<Observed>>,
    seq: AtomicU64,
}

/// A started run: the events for the client that started it, and its cancel handle.
pub struct StartedRun {
    pub events: mpsc::Receiver<Event>,
    pub cancel: CancellationToken,
}

impl Runs {
    pub fn new() -> Arc<Self> {
        let (hub, _) = broadcast::channel(HUB_CAPACITY);
        Arc::new(Runs {
            active: Mutex::default(),
            waits: Mutex::default(),
            threads: Mutex::default(),
            latest_thread: Mutex::default(),
            hub,
            seq: AtomicU64::new(0),
        })
    }

    /// Start `agent` on `input` in its own task. The returned receiver yields the run's events,
    /// from `RUN_STARTED` to exactly one terminal event.
    pub fn start(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        input: RunAgentInput,
        settings: RunSettings,
    ) -> Result<StartedRun, ApiError> {
        let cancel = CancellationToken::new();
        {
            let mut active = self.active.lock().unwrap();
            if active.contains_key(&input.run_id) {
                return Err(ApiError::Conflict(format!(
                    "run '{}' is already in progress",
                    input.run_id
                )));
            }
            active.insert(
                input.run_id.clone(),
                ActiveRun {
                    thread_id: input.thread_id.clone(),
                    cancel: cancel.clone(),
                    started: Instant::now(),
                },
            );
        }
        let (tx, rx) = mpsc::channel(CLIENT_BUFFER);
        let sink = RunSink {
            tx: Some(tx),
            runs: self.clone(),
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            peer: input.protocol_version.as_deref().and_then(parse_version),
            chunks: ChunkExpander::new(),
        };
        self.begin_thread(&input);
        let ctx = RunContext::new(input, settings, cancel.clone(), sink, self.clone());
        tokio::spawn(drive(agent, ctx));
        Ok(StartedRun { events: rx, cancel })
    }

    /// Cancel runs by run id and/or thread id (both absent: every run). Returns how many.
    pub fn abort(&self, run_id: Option<&str>, thread_id: Option<&str>) -> usize {
        let active = self.active.lock().unwrap();
        let mut n = 0;
        for (id, run) in active.iter() {
            let hit = match (run_id, thread_id) {
                (Some(r), _) => r == id,
                (None, Some(t)) => t == run.thread_id,
                (None, None) => true,
            };
            if hit {
                run.cancel.cancel();
                n += 1;
            }
        }
        n
    }

    /// Runs still in progress (their tasks have not ended).
    pub fn active_count(&self) -> usize {
        self.active.lock().unwrap().len()
    }

    pub fn is_active(&self, run_id: &str) -> bool {
        self.active.lock().unwrap().contains_key(run_id)
    }

    pub(crate) fn register_wait(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
    ) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.waits.lock().unwrap().insert(
            tool_call_id.to_string(),
            Waiter {
                run_id: run_id.to_string(),
                thread_id: thread_id.to_string(),
                tx,
            },
        );
        rx
    }

    pub(crate) fn forget_wait(&self, tool_call_id: &str) {
        self.waits.lock().unwrap().remove(tool_call_id);
    }

    /// Answer a tool call a running agent waits on. Returns the (thread, run) it belonged to,
    /// or None when nothing waits on that id.
    pub fn resolve_wait(&self, tool_call_id: &str, answer: Value) -> Option<(String, String)> {
        let waiter = self.waits.lock().unwrap().remove(tool_call_id)?;
        let ids = (waiter.thread_id, waiter.run_id);
        waiter.tx.send(answer).ok().map(|_| ids)
    }

    /// Tool calls currently waiting for an answer: (tool call id, thread id, run id).
    pub fn pending_waits(&self) -> Vec<(String, String, String)> {
        let waits = self.waits.lock().unwrap();
        let mut v: Vec<_> = waits
            .iter()
            .map(|(id, w)| (id.clone(), w.thread_id.clone(), w.run_id.clone()))
            .collect();
        v.sort();
        v
    }

    /// Subscribe to every event of every run.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Observed>> {
        self.hub.subscribe()
    }

    /// A copy of a thread's conversation (None: the most recently active thread).
    pub fn thread(&self, thread_id: Option<&str>) -> Option<(String, Conversation)> {
        let id = match thread_id {
            Some(t) => t.to_string(),
            None => self.latest_thread.lock().unwrap().clone()?,
        };
        let threads = self.threads.lock().unwrap();
        threads.get(&id).map(|c| (id.clone(), c.clone()))
    }

    /// For resynchronising an observer: the sequence number of the last event sent to the hub
    /// and a copy of the conversations (of `thread_id` only, or of every thread), taken
    /// atomically, so they reflect exactly the events numbered up to that sequence number.
    pub fn observer_snapshot(&self, thread_id: Option<&str>) -> (u64, Vec<(String, Conversation)>) {
        let threads = self.threads.lock().unwrap();
        let seq = self.seq.load(Ordering::Relaxed);
        let convs = match thread_id {
            Some(t) => threads
                .get(t)
                .map(|c| vec![(t.to_string(), c.clone())])
                .unwrap_or_default(),
            None => {
                let mut v: Vec<_> = threads
                    .iter()
                    .map(|(k, c)| (k.clone(), c.clone()))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            }
        };
        (seq, convs)
    }

    /// How many observers are subscribed to the hub.
    pub fn observer_count(&self) -> usize {
        self.hub.receiver_count()
    }

    /// Ids of the threads seen, sorted.
    pub fn thread_ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.threads.lock().unwrap().keys().cloned().collect();
        v.sort();
        v
    }

    /// The thread's conversation takes the run's input: its messages and its state, which is
    /// the baseline of the run's state deltas.
    fn begin_thread(&self, input: &RunAgentInput) {
        let mut threads = self.threads.lock().unwrap();
        let conv = threads.entry(input.thread_id.clone()).or_default();
        let mut started = Event::from(EventKind::RunStarted {
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            parent_run_id: input.parent_run_id.clone(),
            input: Some(Box::new(input.clone())),
            protocol_version: Some(PROTOCOL_VERSION.into()),
        });
        started.timestamp = Some(now_ms());
        conv.apply(&started);
        conv.state = input.state.clone();
        conv.warnings.clear();
        *self.latest_thread.lock().unwrap() = Some(input.thread_id.clone());
    }

    fn publish(&self, thread_id: &str, run_id: &str, event: &Event, chunks: &mut ChunkExpander) {
        let json = event.to_json();
        // The store is a client of the run like any other: chunks become triads first.
        let expanded = if matches!(event.kind, EventKind::RunStarted { .. }) {
            Vec::new()
        } else {
            chunks.expand(event.clone()).unwrap_or_default()
        };
        // Applying, numbering and sending happen under the threads lock, so sequence numbers
        // reach the hub in order and a snapshot taken under the same lock reflects exactly the
        // events numbered up to the counter (see `observer_snapshot`).
        let mut threads = self.threads.lock().unwrap();
        if !expanded.is_empty() {
            let conv = threads.entry(thread_id.to_string()).or_default();
            for e in &expanded {
                conv.apply(e);
            }
            conv.warnings.clear();
        }
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        // No receivers is fine; a full buffer overwrites the oldest (lagging observers resync).
        // Never blocks: the run does not wait for observers.
        let _ = self.hub.send(Arc::new(Observed {
            seq,
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            json,
        }));
    }

    fn end(&self, run_id: &str) {
        self.active.lock().unwrap().remove(run_id);
        self.waits.lock().unwrap().retain(|_, w| w.run_id != run_id);
    }
}

/// Where a run's events go: the thread store and observers, then the client that started it.
pub struct RunSink {
    tx: Option<mpsc::Sender<Event>>,
    runs: Arc<Runs>,
    thread_id: String,
    run_id: String,
    /// The protocol version the client declared; older peers get downgraded events.
    peer: Option<Version>,
    chunks: ChunkExpander,
}

impl RunSink {
    pub(crate) async fn send(&mut self, mut event: Event) {
        if event.timestamp.is_none() {
            event.timestamp = Some(now_ms());
        }
        self.runs
            .publish(&self.thread_id, &self.run_id, &event, &mut self.chunks);
        let event = match self.peer {
            Some(v) => match downgrade_event(event, v) {
                Some(e) => e,
                None => return,
            },
            None => event,
        };
        if let Some(tx) = &self.tx {
            if tx.send(event).await.is_err() {
                // The client went away; its stream guard has cancelled the run.
                self.tx = None;
            }
        }
    }
}

/// Drive one run: `RUN_STARTED`, the agent, then exactly one terminal event with everything
/// closed — whatever the agent did, including panicking.
async fn drive(agent: Arc<dyn Agent>, mut ctx: RunContext) {
    let started = Event::from(EventKind::RunStarted {
        thread_id: ctx.input.thread_id.clone(),
        run_id: ctx.input.run_id.clone(),
        parent_run_id: ctx.input.parent_run_id.clone(),
        input: None,
        protocol_version: Some(PROTOCOL_VERSION.into()),
    });
    let _ = ctx.send_checked(started).await;
    let outcome = AssertUnwindSafe(agent.run(&mut ctx)).catch_unwind().await;
    let result = match outcome {
        Ok(r) => r,
        Err(_) => Err(AgentError::failed(
            "INTERNAL_ERROR",
            "the agent failed unexpectedly",
        )),
    };
    let result = match result {
        Ok(_) | Err(AgentError::Cancelled) if ctx.is_cancelled() => Err(AgentError::Cancelled),
        other => other,
    };
    let terminal = match result {
        Ok(RunEnd {
            outcome,
            result,
            usage,
        }) => {
            close_open(&mut ctx).await;
            EventKind::RunFinished {
                thread_id: ctx.input.thread_id.clone(),
                run_id: ctx.input.run_id.clone(),
                result,
                outcome,
                usage: usage.map(|u| vec![u]),
            }
        }
        Err(AgentError::Cancelled) => {
            close_open(&mut ctx).await;
            EventKind::RunFinished {
                thread_id: ctx.input.thread_id.clone(),
                run_id: ctx.input.run_id.clone(),
                result: None,
                outcome: Some(RunOutcome::Cancelled),
                usage: None,
            }
        }
        Err(AgentError::Failed { message, code }) => EventKind::RunError {
            message,
            code: Some(code),
            usage: None,
        },
    };
    let run_id = ctx.input.run_id.clone();
    if let Err(e) = ctx.send_checked(Event::from(terminal)).await {
        tracing::error!(run = %run_id, "could not end the run cleanly: {e:?}");
    }
    ctx.runs.end(&run_id);
}

async fn close_open(ctx: &mut RunContext) {
    for e in ctx.verifier.closing_events() {
        let _ = ctx.send_checked(e).await;
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
