//! Verification: the ordering rules of AG-UI 1.1 over one stream of (expanded) events. A
//! violation is fatal: the stream is rejected and nothing after it is applied.
//!
//! Error wording follows the official TypeScript client where it has one, so messages read the
//! same whichever client a user compares us with.

use super::error::ProtocolError;
use std::collections::{HashMap, HashSet};

use super::compat::parse_version;
use super::event::{Event, EventKind};
use super::types::{RunOutcome, PROTOCOL_VERSION};

mod spans;
use spans::{continuing, open, sorted, sorted_keys};

#[derive(Debug, Clone, PartialEq, Default)]
enum Phase {
    #[default]
    BeforeFirst,
    Running {
        run_id: String,
    },
    Finished,
    Errored,
}

/// The verifier of one stream.
#[derive(Debug, Default)]
pub struct Verifier {
    phase: Phase,
    /// Open items by id, each with the `subagentRunId` of its opener.
    text: HashMap<String, Option<String>>,
    tools: HashMap<String, Option<String>>,
    reasoning: HashMap<String, Option<String>>,
    spans: HashMap<String, Option<String>>,
    /// The text message and lane the last delta continued: the next delta of the same message
    /// (nearly every event of a stream) is checked without a lookup. Cleared as `text` changes.
    last_text: Option<(String, Option<String>)>,
    steps: HashSet<(Option<String>, String)>,
    subagents_active: Vec<String>,
    subagents_seen: HashSet<String>,
    /// The stream's thread: the input's when known, else the first `RUN_STARTED`'s. A stream
    /// does not switch threads.
    thread: Option<(String, &'static str)>,
}

impl Verifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// The stream answers a run of this thread (the input's `threadId`): every boundary event
    /// must carry it.
    pub fn expect_thread(&mut self, thread_id: &str) {
        self.thread = Some((thread_id.to_string(), "the input's threadId"));
    }

    /// A boundary event's `threadId` must be the stream's thread.
    fn check_thread(&mut self, ty: &str, thread_id: &str) -> Result<(), ProtocolError> {
        match &self.thread {
            Some((thread, source)) if thread != thread_id => Err(ProtocolError::Violation(format!(
                "{ty} threadId '{thread_id}' does not match {source} '{thread}': a stream does not switch threads"
            ))),
            Some(_) => Ok(()),
            None => {
                self.thread = Some((thread_id.to_string(), "the stream's first threadId"));
                Ok(())
            }
        }
    }

    /// Whether every run in the stream so far has ended (and there was at least one event).
    pub fn is_complete(&self) -> bool {
        matches!(self.phase, Phase::Finished | Phase::Errored)
    }

    /// Whether a run is open.
    pub fn is_running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// Check one event; warnings (never fatal) are appended to `warnings`.
    pub fn check(&mut self, e: &Event, warnings: &mut Vec<String>) -> Result<(), ProtocolError> {
        let ty = e.type_name();
        match (&self.phase, &e.kind) {
            (Phase::BeforeFirst, EventKind::RunStarted { .. } | EventKind::RunError { .. }) => {}
            (Phase::BeforeFirst, _) => {
                return Err(ProtocolError::Violation(format!("First event must be 'RUN_STARTED' (got '{ty}')")))
            }
            (Phase::Finished, EventKind::RunStarted { .. } | EventKind::RunError { .. }) => {}
            (Phase::Finished, _) => {
                return Err(ProtocolError::Violation(format!(
                    "Cannot send event type '{ty}': The run has already finished with 'RUN_FINISHED'. Start a new run with 'RUN_STARTED'."
                )))
            }
            (Phase::Errored, EventKind::RunStarted { .. }) => {}
            (Phase::Errored, _) => {
                return Err(ProtocolError::Violation(format!(
                    "Cannot send event type '{ty}': The run has already errored with 'RUN_ERROR'. Start a new run with 'RUN_STARTED'."
                )))
            }
            (Phase::Running { .. }, _) => {}
        }
        let lane = &e.subagent_run_id;
        match &e.kind {
            EventKind::RunStarted {
                thread_id,
                run_id,
                protocol_version,
                ..
            } => {
                self.check_thread(ty, thread_id)?;
                if self.is_running() {
                    return Err(ProtocolError::Violation(
                        "Cannot send 'RUN_STARTED' while a run is still active. The previous run must be finished with 'RUN_FINISHED' first."
                            .into(),
                    ));
                }
                self.reset_items();
                if let Some(v) = protocol_version {
                    check_version(v, warnings);
                }
                self.phase = Phase::Running {
                    run_id: run_id.clone(),
                };
            }
            EventKind::RunFinished {
                thread_id,
                run_id,
                outcome,
                ..
            } => {
                self.check_thread(ty, thread_id)?;
                if let Some(RunOutcome::Interrupt { interrupts }) = outcome {
                    let mut seen = HashSet::new();
                    if let Some(dup) = interrupts.iter().find(|i| !seen.insert(i.id.as_str())) {
                        return Err(ProtocolError::Violation(format!(
                            "RUN_FINISHED interrupt id '{}' appears twice: interrupt ids are unique within a run",
                            dup.id
                        )));
                    }
                }
                if let Phase::Running { run_id: started } = &self.phase {
                    if started != run_id {
                        return Err(ProtocolError::Violation(format!(
                            "RUN_FINISHED runId '{run_id}' does not match the RUN_STARTED runId '{started}'"
                        )));
                    }
                }
                for (what, open) in [
                    ("text messages", sorted_keys(&self.text)),
                    ("tool calls", sorted_keys(&self.tools)),
                    ("reasoning messages", sorted_keys(&self.reasoning)),
                    ("reasoning spans", sorted_keys(&self.spans)),
                    (
                        "steps",
                        self.steps
                            .iter()
                            .map(|(_, s)| s.clone())
                            .collect::<Vec<_>>(),
                    ),
                    ("subagents", self.subagents_active.clone()),
                ] {
                    if !open.is_empty() {
                        return Err(ProtocolError::Violation(format!(
                            "Cannot send 'RUN_FINISHED' while {what} are still active: {}",
                            open.join(", ")
                        )));
                    }
                }
                self.phase = Phase::Finished;
            }
            EventKind::RunError { .. } => {
                self.reset_items();
                self.phase = Phase::Errored;
            }
            EventKind::TextMessageStart { message_id, .. } => {
                self.last_text = None;
                open(
                    &mut self.text,
                    message_id,
                    lane,
                    "text message",
                    "TEXT_MESSAGE_START",
                )?
            }
            EventKind::TextMessageContent { message_id, .. } => {
                let same = |(id, l): &(String, Option<String>)| id == message_id && l == lane;
                if !self.last_text.as_ref().is_some_and(same) {
                    continuing(&self.text, message_id, lane, "text message", ty)?;
                    self.last_text = Some((message_id.clone(), lane.clone()));
                }
            }
            EventKind::TextMessageEnd { message_id } => {
                continuing(&self.text, message_id, lane, "text message", ty)?;
                self.last_text = None;
                self.text.remove(message_id);
            }
            EventKind::ToolCallStart { tool_call_id, .. } => open(
                &mut self.tools,
                tool_call_id,
                lane,
                "tool call",
                "TOOL_CALL_START",
            )?,
            EventKind::ToolCallArgs { tool_call_id, .. } => {
                continuing(&self.tools, tool_call_id, lane, "tool call", ty)?
            }
            EventKind::ToolCallEnd { tool_call_id } => {
                continuing(&self.tools, tool_call_id, lane, "tool call", ty)?;
                self.tools.remove(tool_call_id);
            }
            EventKind::ReasoningMessageStart { message_id, .. } => open(
                &mut self.reasoning,
                message_id,
                lane,
                "reasoning message",
                "REASONING_MESSAGE_START",
            )?,
            EventKind::ReasoningMessageContent { message_id, .. } => {
                continuing(&self.reasoning, message_id, lane, "reasoning message", ty)?
            }
            EventKind::ReasoningMessageEnd { message_id } => {
                continuing(&self.reasoning, message_id, lane, "reasoning message", ty)?;
                self.reasoning.remove(message_id);
            }
            EventKind::ReasoningStart { message_id } => open(
                &mut self.spans,
                message_id,
                lane,
                "reasoning span",
                "REASONING_START",
            )?,
            EventKind::ReasoningEnd { message_id } => {
                continuing(&self.spans, message_id, lane, "reasoning span", ty)?;
                self.spans.remove(message_id);
            }
            EventKind::StepStarted { step_name } => {
                let fresh = self.steps.insert((lane.clone(), step_name.clone()));
                if !fresh {
                    return Err(ProtocolError::Violation(format!(
                        "Step \"{step_name}\" is already active for 'STEP_STARTED'"
                    )));
                }
            }
            EventKind::StepFinished { step_name } => {
                let was_active = self.steps.remove(&(lane.clone(), step_name.clone()));
                if !was_active {
                    return Err(ProtocolError::Violation(format!(
                        "Cannot send 'STEP_FINISHED' for step \"{step_name}\" that was not started"
                    )));
                }
            }
            EventKind::SubagentStarted {
                subagent_run_id, ..
            } => {
                if !self.subagents_seen.insert(subagent_run_id.clone()) {
                    return Err(ProtocolError::Violation(format!(
                        "Subagent run '{subagent_run_id}' was already started; subagentRunId values must be unique"
                    )));
                }
                self.subagents_active.push(subagent_run_id.clone());
            }
            EventKind::SubagentFinished {
                subagent_run_id, ..
            }
            | EventKind::SubagentError {
                subagent_run_id, ..
            } => {
                let Some(pos) = self
                    .subagents_active
                    .iter()
                    .position(|s| s == subagent_run_id)
                else {
                    return Err(ProtocolError::Violation(format!(
                        "Cannot send '{ty}' for subagent run '{subagent_run_id}' that was not started or already ended"
                    )));
                };
                self.subagents_active.remove(pos);
            }
            _ => {}
        }
        Ok(())
    }

    /// Give back the room of what is no longer open (a run that waits on a human keeps its
    /// verifier for as long as it waits; maps keep their capacity as entries leave).
    pub fn compact(&mut self) {
        self.text.shrink_to_fit();
        self.tools.shrink_to_fit();
        self.reasoning.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.steps.shrink_to_fit();
        self.subagents_active.shrink_to_fit();
        self.subagents_seen.shrink_to_fit();
    }

    /// The events that close everything still open, innermost first, so a producer that stops
    /// mid-run can end it cleanly (then `RUN_FINISHED` with a cancelled outcome).
    pub fn closing_events(&self) -> Vec<Event> {
        let mut out = Vec::new();
        let lane_of = |lane: &Option<String>, kind: EventKind| {
            let mut e = Event::from(kind);
            e.subagent_run_id = lane.clone();
            e
        };
        for (id, lane) in sorted(&self.tools) {
            out.push(lane_of(
                lane,
                EventKind::ToolCallEnd {
                    tool_call_id: id.clone(),
                },
            ));
        }
        for (id, lane) in sorted(&self.text) {
            out.push(lane_of(
                lane,
                EventKind::TextMessageEnd {
                    message_id: id.clone(),
                },
            ));
        }
        for (id, lane) in sorted(&self.reasoning) {
            out.push(lane_of(
                lane,
                EventKind::ReasoningMessageEnd {
                    message_id: id.clone(),
                },
            ));
        }
        for (id, lane) in sorted(&self.spans) {
            out.push(lane_of(
                lane,
                EventKind::ReasoningEnd {
                    message_id: id.clone(),
                },
            ));
        }
        let mut steps: Vec<_> = self.steps.iter().collect();
        steps.sort();
        for (lane, name) in steps {
            out.push(lane_of(
                lane,
                EventKind::StepFinished {
                    step_name: name.clone(),
                },
            ));
        }
        for id in self.subagents_active.iter().rev() {
            out.push(Event::from(EventKind::SubagentError {
                subagent_run_id: id.clone(),
                message: "the run was stopped".into(),
                code: Some("cancelled".into()),
            }));
        }
        out
    }

    /// The id of the open run, if one is open.
    pub fn run_id(&self) -> Option<&str> {
        match &self.phase {
            Phase::Running { run_id } => Some(run_id),
            _ => None,
        }
    }

    fn reset_items(&mut self) {
        self.last_text = None;
        self.text.clear();
        self.tools.clear();
        self.reasoning.clear();
        self.spans.clear();
        self.steps.clear();
        self.subagents_active.clear();
    }
}

#[cfg(test)]
mod tests;

fn check_version(declared: &str, warnings: &mut Vec<String>) {
    let ours = parse_version(PROTOCOL_VERSION).expect("our version parses");
    match parse_version(declared) {
        None => warnings.push(format!(
            "cannot interpret the producer's protocolVersion '{declared}' (expected MAJOR.MINOR); continuing as {PROTOCOL_VERSION}"
        )),
        Some(v) if v > ours => warnings.push(format!(
            "the producer declares protocolVersion {declared}, newer than the {PROTOCOL_VERSION} this client implements; unknown material will be dropped"
        )),
        Some(_) => {}
    }
}
