//! Run lifecycle: what `RUN_STARTED`, `RUN_FINISHED` and `RUN_ERROR` reset or keep, and the
//! subagents a run invokes.

use serde_json::Value;

use super::model::{
    changed, Change, Conversation, RunStatus, Step, SubagentRecord, SubagentStatus,
};
use crate::protocol::types::{RunAgentInput, RunOutcome, TokenUsage};

impl Conversation {
    pub(super) fn run_started(
        &mut self,
        thread_id: &str,
        run_id: &str,
        input: Option<&RunAgentInput>,
    ) -> Change {
        self.thread_id = Some(thread_id.to_string());
        self.run = RunStatus::Running {
            run_id: run_id.to_string(),
        };
        self.pending_tool_call_ids.clear();
        self.result = None;
        self.render_hints
            .retain(|h| h.run_id.as_deref() != Some(run_id));
        let Some(input) = input else {
            return Change::Run;
        };
        if input.resume.is_some() {
            self.pending_interrupts.clear();
        }
        changed(self.append_new(&input.messages) > 0, Change::MessagesReset).or(Change::Run)
    }

    pub(super) fn run_finished(
        &mut self,
        run_id: &str,
        result: Option<&Value>,
        outcome: Option<&RunOutcome>,
        usage: Option<&[TokenUsage]>,
    ) -> Change {
        self.run = RunStatus::Finished {
            run_id: run_id.to_string(),
            outcome: outcome.cloned(),
        };
        self.pending_interrupts.clear();
        self.pending_tool_call_ids.clear();
        self.result = None;
        match outcome {
            Some(RunOutcome::Interrupt { interrupts }) => {
                self.pending_interrupts = interrupts.clone()
            }
            Some(RunOutcome::Success {
                pending_tool_call_ids,
            }) => {
                self.pending_tool_call_ids = pending_tool_call_ids.clone().unwrap_or_default();
                self.result = result.cloned();
            }
            None => self.result = result.cloned(),
            Some(RunOutcome::Cancelled) => {}
        }
        self.run_ended(usage)
    }

    /// Take back what run `run_id` added: the messages whose ids are in `produced` and the
    /// render hints it sent. The other hints keep their place among the remaining messages.
    /// (A server uses this when a failed run is run again and the new run replaces it.)
    pub fn forget_run(&mut self, run_id: &str, produced: &std::collections::HashSet<String>) {
        self.render_hints
            .retain(|h| h.run_id.as_deref() != Some(run_id));
        if produced.is_empty() {
            return;
        }
        // removed_before[i]: how many of the first i messages go.
        let mut removed_before = Vec::with_capacity(self.messages.len() + 1);
        let mut removed = 0;
        removed_before.push(0);
        for m in &self.messages {
            removed += usize::from(produced.contains(m.id()));
            removed_before.push(removed);
        }
        for h in &mut self.render_hints {
            let p = h.position.min(self.messages.len());
            h.position = p - removed_before[p];
        }
        self.messages.retain(|m| !produced.contains(m.id()));
        self.reindex();
    }

    /// Shared tail of `RUN_FINISHED` and `RUN_ERROR`: nothing stays open after a run.
    pub(super) fn run_ended(&mut self, usage: Option<&[TokenUsage]>) -> Change {
        self.usage.extend(usage.unwrap_or_default().iter().cloned());
        self.active_steps.clear();
        self.reasoning_spans.clear();
        self.open_tool_calls.clear();
        Change::Run
    }

    pub(super) fn subagent_started(
        &mut self,
        subagent_run_id: &str,
        name: &str,
        description: Option<&String>,
        parent_tool_call_id: Option<&String>,
    ) -> Change {
        let record = SubagentRecord {
            id: subagent_run_id.to_string(),
            name: name.to_string(),
            description: description.cloned(),
            status: SubagentStatus::Running,
            parent_tool_call_id: parent_tool_call_id.cloned(),
        };
        match self.subagents.iter_mut().find(|r| r.id == subagent_run_id) {
            Some(r) => *r = record,
            None => self.subagents.push(record),
        }
        Change::Subagents
    }

    pub(super) fn set_subagent_status(&mut self, id: &str, status: SubagentStatus) -> Step {
        let record = self.subagents.iter_mut().find(|r| r.id == id);
        record
            .ok_or_else(|| format!("unknown subagent {id}"))?
            .status = status;
        Ok(Change::Subagents)
    }
}
