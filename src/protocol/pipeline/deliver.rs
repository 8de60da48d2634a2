//! The stages after enforcement: chunk expansion, verification and the reducer, delivering each
//! event with what it changed.

use super::{Delivered, Pipeline};
use crate::protocol::compat::V1_0;
use crate::protocol::event::{Event, EventKind};

impl Pipeline {
    /// An event past enforcement: chunk expansion, verification and the reducer.
    pub(super) fn push_enforced(&mut self, event: Event) -> Vec<Delivered> {
        let mut out = Vec::new();
        self.push_enforced_into(event, &mut out);
        out
    }

    /// [`Pipeline::push_enforced`], delivering into `out`.
    pub(super) fn push_enforced_into(&mut self, event: Event, out: &mut Vec<Delivered>) {
        if self.predates_subagents()
            && matches!(
                event.kind,
                EventKind::SubagentStarted { .. }
                    | EventKind::SubagentFinished { .. }
                    | EventKind::SubagentError { .. }
            )
        {
            self.warnings.push(format!(
                "dropping {}: the peer speaks a protocol version before 1.0, which has no subagents",
                event.type_name()
            ));
            return;
        }
        // With no chunk open and none arriving, expansion gives the event itself.
        if !event.kind.is_chunk() && !self.chunks.has_open() {
            self.deliver(event, out);
            return;
        }
        let expanded = match self.chunks.expand(event) {
            Ok(v) => v,
            Err(e) => {
                self.fail(e.to_string());
                return;
            }
        };
        for e in expanded {
            if !self.deliver(e, out) {
                break;
            }
        }
    }

    /// Verify one event and apply it to the conversation; false when it ended the stream.
    fn deliver(&mut self, e: Event, out: &mut Vec<Delivered>) -> bool {
        if let Err(err) = self.verifier.check(&e, &mut self.warnings) {
            self.fail(err.to_string());
            return false;
        }
        if let EventKind::RunError { message, code, .. } = &e.kind {
            self.run_errors.push((message.clone(), code.clone()));
        }
        // An event past a bound ends the stream, undelivered; the conversation is as before it.
        let applied = self.conversation.apply_checked(&e);
        self.warnings.append(&mut self.conversation.warnings);
        match applied {
            Ok(change) => {
                out.push(Delivered {
                    event: e,
                    change,
                    warnings_through: self.warnings.len(),
                });
                true
            }
            Err(refused) => {
                if self.error.is_none() {
                    self.error_code = Some(refused.code);
                }
                self.fail(refused.message);
                false
            }
        }
    }

    fn predates_subagents(&self) -> bool {
        self.options.max_protocol_version.is_some_and(|v| v < V1_0)
    }
}
