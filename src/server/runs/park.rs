//! Parking a run on a human's answer: an agent whose step ends on a tool call it waits for
//! ([`RunContext::park`]) leaves the run as its [`ParkedRun`] state and the wait, with no task
//! holding the agent's future, until the answer (then [`Resume`] goes on), an abort or the
//! approval timeout. Ten thousand runs waiting on approvals each cost their connection and
//! this, not a task with a whole agent's state in it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::context::{
    AgentError, EventSink, Park, Resume, RunContext, RunEnd, RunSettings, ToolAnswers,
};
use crate::protocol::types::RunAgentInput;
use crate::protocol::verify::Verifier;

/// A run parked on a tool call ([`RunContext::park`]), until it is answered: its context
/// without the agent's future, the input's conversation, or anything sized for streaming.
/// Ten thousand runs waiting on approvals each hold this and their wait, not a task with the
/// agent's state in it.
pub(crate) struct ParkedRun {
    thread_id: String,
    run_id: String,
    settings: RunSettings,
    cancel: CancellationToken,
    verifier: Verifier,
    sink: Box<dyn EventSink>,
    answers: Arc<dyn ToolAnswers>,
    next_id: u64,
}

impl ParkedRun {
    /// The context the run goes on with: its input has only the thread and run ids.
    pub(crate) fn into_context(self) -> RunContext {
        RunContext {
            input: RunAgentInput::new(self.thread_id, self.run_id),
            settings: self.settings,
            cancel: self.cancel,
            verifier: self.verifier,
            sink: self.sink,
            answers: self.answers,
            next_id: self.next_id,
            waits: HashMap::new(),
            park: None,
        }
    }

    pub(crate) fn cancel(&self) -> &CancellationToken {
        &self.cancel
    }

    pub(crate) fn approval_timeout(&self) -> Duration {
        self.settings.approval_timeout
    }

    /// Stop accepting an answer to `tool_call_id` (the wait ended without one).
    pub(crate) fn forget(&self, tool_call_id: &str) {
        self.answers.forget(tool_call_id);
    }
}

impl RunContext {
    /// Wait, with the stream open, for `POST /api/ag-ui/tool-result` to answer `tool_call_id`
    /// like [`RunContext::wait_tool_result`], but without keeping the agent's step in memory:
    /// the agent returns what this returns, the run parks (its task holds only the wait and
    /// [`ParkedRun`]), and `then` goes on with the answer in a context whose input has only
    /// the thread and run ids. An abort ends the parked run as cancelled and the configured
    /// timeout with `APPROVAL_TIMEOUT`, as a waiting one.
    pub fn park(
        &mut self,
        tool_call_id: &str,
        then: Box<dyn Resume>,
    ) -> Result<RunEnd, AgentError> {
        self.expect_tool_result(tool_call_id);
        self.park = Some(Park {
            tool_call_id: tool_call_id.to_string(),
            then,
        });
        Ok(RunEnd::default())
    }

    /// The wait the agent's step parked the run on, if it did ([`RunContext::park`]): the
    /// run's parked state, the answer's receiver and what goes on with it. The run rests
    /// meanwhile ([`EventSink::rest`]).
    pub(crate) fn take_park(
        self: Box<Self>,
    ) -> Result<(Box<ParkedRun>, oneshot::Receiver<Value>, Park), Box<Self>> {
        let mut ctx = self;
        let Some(park) = ctx.park.take() else {
            return Err(ctx);
        };
        let Some(rx) = ctx.waits.remove(&park.tool_call_id) else {
            return Err(ctx);
        };
        ctx.sink.rest();
        let RunContext {
            input,
            settings,
            cancel,
            mut verifier,
            sink,
            answers,
            next_id,
            waits,
            park: _,
        } = *ctx;
        // Calls the agent expected answers to but did not park on are no longer awaited.
        for id in waits.keys() {
            answers.forget(id);
        }
        verifier.compact();
        let parked = Box::new(ParkedRun {
            thread_id: input.thread_id,
            run_id: input.run_id,
            settings,
            cancel,
            verifier,
            sink,
            answers,
            next_id,
        });
        Ok((parked, rx, park))
    }
}

#[cfg(test)]
mod tests;
