//! A run's start as the store writes it: the start's row, alone or with the run's first event,
//! ahead of the queue when nothing queued can touch its rows.

use std::sync::Arc;

use tokio::sync::oneshot;

use super::ops::{Committed, Op, StartRow};
use super::{title_of, RunStartedOp, Store};
use crate::protocol::types::{Message, RunAgentInput};

impl Store {
    /// The write recording that a run started on a thread; `input` is what the agent runs
    /// with, `messages` the thread's messages now (its history and the input's new messages: a
    /// client may send only recent ones). Serialising is CPU work: callers build it off the
    /// async workers.
    pub fn run_started_op(
        input: &RunAgentInput,
        messages: &[Message],
        agent_id: &str,
        owner: &str,
        at: i64,
    ) -> RunStartedOp {
        RunStartedOp(Box::new(StartRow {
            thread_id: input.thread_id.clone(),
            run_id: input.run_id.clone(),
            agent_id: agent_id.to_string(),
            owner: owner.to_string(),
            at,
            title: title_of(messages),
            input: serde_json::to_string(input).unwrap_or_default(),
            messages: serde_json::to_string(messages).unwrap_or_default(),
            message_count: messages.len() as i64,
            state: input.state.to_string(),
        }))
    }

    /// Record a run's start ([`Store::run_started_op`]). Returns once the run is committed, so
    /// that its events URL, handed to the client with the response headers, works even after a
    /// crash.
    pub async fn run_started(&self, op: RunStartedOp) {
        self.start_run(op, None).await;
    }

    /// [`Store::run_started`] with the run's first event (`RUN_STARTED`, number 1), committed
    /// in the same transaction; `done` is told as for [`Store::event`]. A new run's first event
    /// is thereby committed when its start is: the response can carry it with its headers,
    /// rather than after the run's task has had its first turn and a second commit (with a
    /// thousand runs streaming, each of those waited for every busy task to yield, or for a
    /// batch of their events to commit).
    pub async fn run_started_with_first(
        &self,
        op: RunStartedOp,
        json: Arc<str>,
        done: Arc<dyn Committed>,
    ) {
        self.start_run(op, Some((json, done))).await;
    }

    /// When neither its thread nor its run id has a start or end queued, a start goes ahead of
    /// the queue (its commit then waits for no other run's events): nothing queued can touch the
    /// rows it writes, and its first event has nothing before it. Otherwise it goes in order,
    /// behind them.
    async fn start_run(&self, op: RunStartedOp, first: Option<(Arc<str>, Arc<dyn Committed>)>) {
        let StartRow {
            thread_id, run_id, ..
        } = &*op.0;
        let first = first.map(|(json, done)| Op::Event {
            run_id: run_id.as_str().into(),
            seq: 1,
            json,
            done: Some(done),
        });
        let urgent = self.in_flight.add(thread_id, run_id);
        let (ack, committed) = oneshot::channel();
        let ops = [Some(Op::RunStarted(op.0)), first, Some(Op::Flush(ack))];
        let queue = if urgent { &self.urgent } else { &self.tx };
        for op in ops.into_iter().flatten() {
            if !Self::send_on(queue, op).await {
                return;
            }
        }
        let _ = committed.await;
    }
}
