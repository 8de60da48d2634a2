//! A run's `resume` checked against the interrupts its thread waits on (AG-UI 1.1: one resume
//! answers every open interrupt, each once, and nothing else — refused with 422 before any
//! stream), and answers to expired interrupts turned into the run's `RUN_ERROR`
//! (`INTERRUPT_EXPIRED`) instead of reaching the agent.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::context::{Agent, AgentError, AgentInfo, RunContext, RunEnd, RunSettings};
use super::Runs;
use crate::protocol::interrupts::{check_resume, ResumeError};
use crate::protocol::types::{Interrupt, RunAgentInput};
use crate::server::agents::InputError;
use crate::server::clock::now_ms;
use crate::server::error::ApiError;
use crate::wire::RunErrorCode;

impl Runs {
    /// The interrupts thread `thread_id` waits on: its conversation's in memory, else what its
    /// last stored run ended on.
    async fn open_interrupts(&self, thread_id: &str) -> Result<Vec<Interrupt>, ApiError> {
        if let Some(open) = self.threads.open_interrupts(thread_id) {
            return Ok(open);
        }
        let Some(store) = &self.store else {
            return Ok(Vec::new());
        };
        store.flush_thread(thread_id).await;
        Ok(store.open_interrupts(thread_id).await?)
    }

    /// Check `input.resume` (if any) against the thread's open interrupts: Err for a resume
    /// that does not answer exactly them, Ok(Some) when it answers an expired one (the run
    /// starts, and ends at once in `RUN_ERROR`).
    pub(super) async fn check_resume(
        &self,
        input: &RunAgentInput,
    ) -> Result<Option<ResumeError>, ApiError> {
        let Some(resume) = &input.resume else {
            return Ok(None);
        };
        let open = self.open_interrupts(&input.thread_id).await?;
        match check_resume(&open, resume, now_ms()) {
            Ok(()) => Ok(None),
            Err(e) if e.is_expiry() => Ok(Some(e)),
            Err(e) => Err(ApiError::Unprocessable(e.to_string())),
        }
    }
}

/// Stands in for the agent of a run whose resume answers an expired interrupt: the run ends
/// in `RUN_ERROR` `INTERRUPT_EXPIRED` and the agent never sees the answer.
pub(super) struct Expired {
    pub agent: Arc<dyn Agent>,
    pub error: ResumeError,
}

impl Agent for Expired {
    fn info(&self) -> AgentInfo {
        self.agent.info()
    }

    fn check_input(&self, input: &RunAgentInput, settings: &RunSettings) -> Result<(), InputError> {
        self.agent.check_input(input, settings)
    }

    fn run<'a>(&'a self, _ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        let error = AgentError::failed(RunErrorCode::InterruptExpired, self.error.to_string());
        Box::pin(async move { Err(error) })
    }
}
