//! Driving a run: the task that runs an agent and guarantees a well-formed stream (exactly one
//! terminal event, everything closed, even when the agent panics), and the sink every event of
//! the run goes through.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;

use super::context::{wait_for_answer, Agent, AgentError, EventSink, RunContext, RunEnd, Sent};
use super::log::{Logged, RunLog};
use super::observers::{ObserverHub, Origin};

use super::thread_cache::ThreadCache;
use crate::protocol::chunks::ChunkExpander;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::types::{RunOutcome, PROTOCOL_VERSION};
use crate::server::clock::now_ms;
use crate::server::store::{Committed, RunStartedOp, Store};
use crate::wire::{RunErrorCode, RunState};

/// How many events a run sends between two turns it gives the other tasks. 64 rather than 16
/// (2026-12-02, the capacity benchmark's rows with one binary reading it from the environment,
/// in turn): 100 runs at once 595–781 → 759–1,129 k events/s in aggregate, 1,000 runs
/// 212–418 → 264–520 k, one stream 849–1,019 → 976–1,171 k, with their first events' p99 the
/// same within the noise (100 runs 24–91 against 31–46 ms, 1,000 runs 1.3 s either way); 256
/// made the 100 runs' first events wait longer (p99 71–72 ms).
const YIELD_EVERY: u64 = 64;

/// Where a run's events go: the thread's conversation and observers, the run's log (read by its
/// clients), and the database.
pub struct RunSink {
    pub(super) log: Arc<RunLog>,
    pub(super) threads: Arc<ThreadCache>,
    pub(super) hub: Arc<ObserverHub>,
    pub(super) store: Option<Store>,
    /// The run's thread, id and owner, shared with each event the observer hub holds.
    pub(super) origin: Arc<Origin>,
    /// The number of the last event sent.
    pub(crate) seq: u64,
    pub(super) chunks: ChunkExpander,
    /// A side run ([`RunAgentInput::is_proxied_mcp_request`]): its events go to its reader
    /// only — not to the thread, its observers or the store.
    pub(super) side: bool,
    /// The run's start, not yet written: it is committed with the first event (boxed within:
    /// the sink lives as long as the run, the start only until its first event).
    pub(super) start: Option<RunStartedOp>,
}

impl EventSink for RunSink {
    fn sent(&self) -> u64 {
        self.seq
    }

    fn send(&mut self, event: Event) -> Result<Sent, AgentError> {
        RunSink::send(self, event)
    }

    fn rest(&self) {
        self.log.rest();
        if !self.side {
            self.threads.compact(&self.origin.thread_id);
        }
    }
}

impl RunSink {
    /// Fails with `STORAGE_FAILED` once the database could not store an event of the run: the
    /// run must stop (its later events are not stored, so no gap is ever left in the log).
    /// Nothing here waits: a run streaming flat out sends each event without a future of its
    /// own, and waits only when the database's queue is full, for its start's commit, or to
    /// give the other tasks a turn.
    pub(crate) fn send(&mut self, mut event: Event) -> Result<Sent, AgentError> {
        if event.timestamp.is_none() {
            event.timestamp = Some(now_ms());
        }
        self.seq += 1;
        let json: Arc<str> = event.to_json().into();
        let logged = Arc::new(Logged {
            seq: self.seq,
            json: json.clone(),
        });
        if self.side {
            self.log.push(logged);
        } else {
            self.publish(event, logged);
        }
        if let Some(store) = &self.store {
            if self.log.has_failed() {
                return Err(AgentError::failed(
                    RunErrorCode::StorageFailed,
                    "the server could not store this run's events",
                ));
            }
            // Waits when the disk is behind: the run goes at the pace its events are kept.
            // The log is told when the event is committed; only then do readers see it.
            let done: Arc<dyn Committed> = self.log.clone();
            if let Some(start) = self.start.take() {
                // The first event: committed with the run's start (`start_for` waits for it).
                let store = store.clone();
                return Ok(Sent::Wait(Box::pin(async move {
                    store.run_started_with_first(start, json, done).await;
                })));
            }
            if let Some(wait) =
                store.queue_event(self.origin.run_id.clone(), self.seq, json, Some(done))
            {
                return Ok(Sent::Wait(wait));
            }
        }
        // A run ahead of its own client by more than the pace allows waits for it (see
        // `log::pace`): its reader would otherwise fall behind the log's window and read the rest
        // back from the database.
        if self.log.too_far(self.seq) {
            let (log, seq) = (self.log.clone(), self.seq);
            return Ok(Sent::Wait(Box::pin(async move { log.room_for(seq).await })));
        }
        // A run streaming flat out lets the other tasks have a turn every few events (it would
        // otherwise run a whole scheduler budget of them): with a thousand runs streaming, a new
        // request waits at every step of its start for each busy run to yield.
        if self.seq.is_multiple_of(YIELD_EVERY) {
            return Ok(Sent::Yield);
        }
        Ok(Sent::Done)
    }

    /// The thread's conversation takes the event, then the observer hub numbers and sends it
    /// and the run's log takes it, all under the thread cache's lock (see `thread_cache`): a
    /// conversation copied under that lock reflects exactly the run's events up to its log's
    /// last one (what `join` relies on).
    fn publish(&mut self, event: Event, logged: Arc<Logged>) {
        // The conversation is a client of the run like any other: chunks become triads first.
        // With no chunk open and none arriving, that would give the event itself: it is applied
        // as it is, without a copy (nearly every event of a run).
        let expanded;
        let apply: &[Event] = match &event.kind {
            EventKind::RunStarted { .. } => &[],
            kind if !kind.is_chunk() && !self.chunks.has_open() => std::slice::from_ref(&event),
            _ => {
                expanded = self.chunks.expand(event).unwrap_or_default();
                &expanded
            }
        };
        let (hub, origin, log) = (&self.hub, &self.origin, &self.log);
        self.threads.apply_then(&origin.thread_id, apply, || {
            hub.publish(origin, logged.json.clone());
            log.push(logged);
        });
    }
}

/// Drive one run whose `RUN_STARTED` was sent ([`start`]): the agent, then exactly one terminal
/// event with everything closed — whatever the agent did, including panicking. Once it is
/// stored, the thread's conversation is written with the run's end.
pub(super) async fn drive(
    agent: Arc<dyn Agent>,
    mut ctx: Box<RunContext>,
    log: Arc<RunLog>,
    threads: Arc<ThreadCache>,
    store: Option<Store>,
) {
    // The step after the agent is boxed, so that this future holds only what the agent's step
    // needs: a future is as large as its largest step, and the task of a run that waits (on an
    // approval, on its LLM) would otherwise hold the room of the run's end — events, the
    // conversation, the store's write — all along. `drive`'s future was 2,120 bytes with its
    // start and end inline; the run's whole task is now about 1 KB (1,152 bytes on 2026-12-04,
    // in the debug build that `tests/connection_memory.rs` counts a waiting run's heap with).
    let mut result = guarded(agent.run(&mut ctx)).await;
    // A step that parked the run on a human's answer (`RunContext::park`) is over: its future
    // is gone, and until the answer comes the run is its parked state and this wait.
    while result.is_ok() {
        let (parked, answer, park) = match ctx.take_park() {
            Ok(parked) => parked,
            Err(back) => {
                ctx = back;
                break;
            }
        };
        let answer = wait_for_answer(
            parked.cancel(),
            parked.approval_timeout(),
            answer,
            &park.tool_call_id,
        )
        .await;
        parked.forget(&park.tool_call_id);
        ctx = Box::new(parked.into_context());
        result = match answer {
            Ok(answer) => guarded(park.then.resume(&mut ctx, answer)).await,
            Err(e) => Err(e),
        };
    }
    Box::pin(end(result, ctx, log, threads, store)).await;
}

/// An agent's step, a panic in it turned into a failure.
async fn guarded(step: BoxFuture<'_, Result<RunEnd, AgentError>>) -> Result<RunEnd, AgentError> {
    match AssertUnwindSafe(step).catch_unwind().await {
        Ok(r) => r,
        Err(_) => Err(AgentError::failed(
            RunErrorCode::InternalError,
            "the agent failed unexpectedly",
        )),
    }
}

/// A run's `RUN_STARTED`, before its task begins: with a database, committed together with
/// the run's start ([`RunSink::start`]), so the response's first write can carry it.
pub(super) async fn start(ctx: &mut RunContext) {
    let started = Event::from(EventKind::RunStarted {
        thread_id: ctx.input.thread_id.clone(),
        run_id: ctx.input.run_id.clone(),
        parent_run_id: ctx.input.parent_run_id.clone(),
        input: None,
        protocol_version: Some(PROTOCOL_VERSION.into()),
    });
    let _ = ctx.send_checked(started).await;
}

/// A run's end, once its agent returned `result`: what it left open closed, exactly one
/// terminal event, then the thread's conversation stored with the run's end.
async fn end(
    result: Result<RunEnd, AgentError>,
    mut ctx: Box<RunContext>,
    log: Arc<RunLog>,
    threads: Arc<ThreadCache>,
    store: Option<Store>,
) {
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
            code: Some(code.to_string()),
            usage: None,
        },
    };
    let (status, error) = match &terminal {
        EventKind::RunFinished {
            outcome: Some(RunOutcome::Cancelled),
            ..
        } => (RunState::Cancelled, None),
        EventKind::RunError { message, .. } => (RunState::Error, Some(message.clone())),
        _ => (RunState::Finished, None),
    };
    let run_id = ctx.input.run_id.clone();
    if let Err(e) = ctx.send_checked(Event::from(terminal)).await {
        tracing::error!(run = %run_id, "could not end the run cleanly: {e:?}");
    }
    log.end();
    if let Some(store) = store {
        let thread_id = &ctx.input.thread_id;
        if let Some(conv) = threads.get(thread_id) {
            let bytes = store
                .run_ended(&run_id, status, error, conv, thread_id, now_ms())
                .await;
            threads.record_size(thread_id, bytes);
        }
    }
}

async fn close_open(ctx: &mut RunContext) {
    for e in ctx.verifier.closing_events() {
        let _ = ctx.send_checked(e).await;
    }
}
