//! Shared state (`STATE_SNAPSHOT`/`STATE_DELTA`) and activity messages, whose content is patched
//! the same all-or-nothing way.

use json_patch::PatchOperation;
use serde::Deserialize;
use serde_json::Value;

use super::{merge, Change, Conversation, Step};
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
        let applied = patch_atomically(&mut doc, patch, true);
        // On failure `doc` is the untouched original; on success it is still an object.
        if let Value::Object(content) = doc {
            a.content = content;
        }
        applied.map_err(|e| format!("Failed to apply activity patch to {message_id}: {e}"))?;
        a.activity_type = activity_type.to_string();
        merge(&mut a.metadata, meta);
        Ok(Change::MessageUpdated { index: i })
    }
}

fn not_activity(event: &str, id: &str) -> String {
    format!("{event} targets {id}, which is not an activity message; ignored")
}

/// Apply RFC 6902 ops all-or-nothing. `json_patch::patch` undoes a failed patch in place, but its
/// undo hits `unreachable!` when a `move` lands on an ancestor of its source, so patches with a
/// `move` (and, for activity content, ones that could replace the root) run on a copy instead.
pub(super) fn patch_atomically(
    doc: &mut Value,
    ops: &[Value],
    keep_object: bool,
) -> Result<(), String> {
    let ops = ops
        .iter()
        .map(PatchOperation::deserialize)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let on_copy = ops
        .iter()
        .any(|op| matches!(op, PatchOperation::Move(_)) || (keep_object && op.path().is_root()));
    if !on_copy {
        return json_patch::patch(doc, &ops).map_err(|e| e.to_string());
    }
    let mut copy = doc.clone();
    json_patch::patch_unsafe(&mut copy, &ops).map_err(|e| e.to_string())?;
    if keep_object && !copy.is_object() {
        return Err("the patch would replace the object with a non-object".into());
    }
    *doc = copy;
    Ok(())
}
