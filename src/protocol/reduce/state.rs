//! Shared state (`STATE_SNAPSHOT`/`STATE_DELTA`) and activity messages, whose content is patched
//! the same all-or-nothing way.

use serde_json::Value;

use super::model::{merge, Change, Conversation, Step, STATE_LIMIT};
use super::patch::{patch_within, PatchFailure};
use crate::protocol::limits::check_json;
use crate::protocol::types::{ActivityMessage, JsonObject, Message};

impl Conversation {
    pub(super) fn activity_snapshot(
        &mut self,
        message_id: &str,
        activity_type: &str,
        content: &JsonObject,
        replace: Option<bool>,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Step {
        let Some(i) = self.locate(message_id) else {
            let index = self.push_message(Message::Activity(ActivityMessage {
                id: message_id.to_string(),
                activity_type: activity_type.to_string(),
                content: content.clone(),
                metadata: meta.filter(|m| !m.is_empty()).cloned(),
                subagent_run_id: sub.cloned(),
            }));
            return Ok(Change::MessageAdded { index });
        };
        let Message::Activity(a) = &mut self.messages[i] else {
            return Err(not_activity("ACTIVITY_SNAPSHOT", message_id));
        };
        if replace == Some(false) {
            return Ok(Change::None);
        }
        a.content = content.clone();
        a.activity_type = activity_type.to_string();
        merge(&mut a.metadata, meta);
        Ok(Change::MessageUpdated { index: i })
    }

    pub(super) fn activity_delta(
        &mut self,
        message_id: &str,
        activity_type: &str,
        patch: &[Value],
        meta: Option<&JsonObject>,
    ) -> Step {
        let Some(i) = self.locate(message_id) else {
            return Ok(Change::None);
        };
        let Message::Activity(a) = &mut self.messages[i] else {
            return Err(not_activity("ACTIVITY_DELTA", message_id));
        };
        let mut doc = Value::Object(std::mem::take(&mut a.content));
        let applied = patch_within(&mut doc, patch, true, &self.state_limits);
        // On failure `doc` is the untouched original; on success it is still an object.
        if let Value::Object(content) = doc {
            a.content = content;
        }
        // Past the limits, an activity patch is only dropped: activity content is not the state
        // the limits' error code names, and nothing past the limits was built.
        applied.map_err(|e| match e {
            PatchFailure::Invalid(e) | PatchFailure::Limit(e) => {
                format!("Failed to apply activity patch to {message_id}: {e}")
            }
        })?;
        a.activity_type = activity_type.to_string();
        merge(&mut a.metadata, meta);
        Ok(Change::MessageUpdated { index: i })
    }
}

impl Conversation {
    /// `STATE_SNAPSHOT`: refused (fatally) when the snapshot is past the state limits.
    pub(super) fn state_snapshot(&mut self, snapshot: &Value) -> Step {
        if let Err(e) = check_json(snapshot, &self.state_limits) {
            return Err(self.refuse(format!("STATE_SNAPSHOT refused: the state would be {e}")));
        }
        self.state = snapshot.clone();
        Ok(Change::State)
    }

    /// `STATE_DELTA`: all-or-nothing; refused (fatally) when the result would pass the limits,
    /// which is found out while applying, before anything past them is built.
    pub(super) fn state_delta(&mut self, delta: &[Value]) -> Step {
        match patch_within(&mut self.state, delta, false, &self.state_limits) {
            Ok(()) => Ok(Change::State),
            Err(PatchFailure::Invalid(e)) => Err(format!("Failed to apply state patch: {e}")),
            Err(PatchFailure::Limit(e)) => {
                Err(self.refuse(format!("STATE_DELTA refused: the state would be {e}")))
            }
        }
    }

    /// Mark the event being applied as refused with [`STATE_LIMIT`]; returns the message.
    fn refuse(&mut self, message: String) -> String {
        self.refused = Some(super::Refused {
            code: STATE_LIMIT,
            message: message.clone(),
        });
        message
    }
}

fn not_activity(event: &str, id: &str) -> String {
    format!("{event} targets {id}, which is not an activity message; ignored")
}
