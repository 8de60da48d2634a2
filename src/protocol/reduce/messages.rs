//! Messages as wholes: opening text and reasoning messages, appending their deltas,
//! reconciling a `MESSAGES_SNAPSHOT`, and attaching encrypted values.

use std::collections::HashMap;

use super::model::{merge, Change, Conversation, Step};
use crate::protocol::event::EncryptedSubtype;
use crate::protocol::types::{Content, ContentPart, JsonObject, Message, TextPart};

impl Conversation {
    /// `TEXT_MESSAGE_START` / `REASONING_MESSAGE_START`: create, or reuse an existing id (a
    /// reopened message keeps its content and later deltas append).
    pub(super) fn open_message(
        &mut self,
        id: &str,
        make: impl FnOnce() -> Message,
        name: Option<&String>,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        let (i, change) = match self.locate(id) {
            Some(i) => (i, Change::MessageUpdated { index: i }),
            None => {
                let i = self.push_message(make());
                (i, Change::MessageAdded { index: i })
            }
        };
        let m = &mut self.messages[i];
        if let Some(name) = name {
            set_name(m, name);
        }
        merge(m.metadata_mut(), meta);
        if let Some(s) = sub {
            *m.subagent_run_id_mut() = Some(s.clone());
        }
        change
    }

    pub(super) fn append_text(&mut self, id: &str, delta: &str, meta: Option<&JsonObject>) -> Step {
        let i = self.locate(id).ok_or_else(|| no_message(id))?;
        let m = &mut self.messages[i];
        match m {
            Message::Assistant(a) => a.content.get_or_insert_with(String::new).push_str(delta),
            Message::Developer(t) | Message::System(t) => t.content.push_str(delta),
            Message::Reasoning(r) => r.content.push_str(delta),
            Message::User(u) => push_content(&mut u.content, delta),
            Message::Tool(t) => push_content(&mut t.content, delta),
            Message::Activity(_) => return Err(format!("cannot append text to activity {id}")),
        }
        merge(m.metadata_mut(), meta);
        Ok(Change::MessageUpdated { index: i })
    }

    /// Reconcile by id: snapshot copies replace local ones in place, new ones append in snapshot
    /// order, the rest are dropped — except client-side activity/reasoning messages when the
    /// snapshot carries none of that role (the agent does not know about them).
    pub(super) fn messages_snapshot(&mut self, snapshot: &[Message]) -> Change {
        use crate::protocol::types::Role;
        let has = |role| snapshot.iter().any(|m| m.role() == role);
        let (keep_activity, keep_reasoning) = (!has(Role::Activity), !has(Role::Reasoning));
        // Last occurrence wins when a snapshot repeats an id.
        let mut incoming: HashMap<&str, &Message> = snapshot.iter().map(|m| (m.id(), m)).collect();
        let mut next = Vec::with_capacity(snapshot.len().max(self.messages.len()));
        for local in std::mem::take(&mut self.messages) {
            match incoming.remove(local.id()) {
                Some(m) => next.push(m.clone()),
                None => match local.role() {
                    Role::Activity if keep_activity => next.push(local),
                    Role::Reasoning if keep_reasoning => next.push(local),
                    _ => {}
                },
            }
        }
        for m in snapshot {
            if let Some(m) = incoming.remove(m.id()) {
                next.push(m.clone());
            }
        }
        self.messages = next;
        self.reindex();
        Change::MessagesReset
    }

    pub(super) fn encrypted_value(
        &mut self,
        subtype: EncryptedSubtype,
        entity: &str,
        value: &str,
        kind: Option<&String>,
    ) -> Step {
        let (i, slots) = match subtype {
            EncryptedSubtype::Message => {
                let Some(i) = self.locate(entity) else {
                    return Ok(Change::None);
                };
                let slots = match &mut self.messages[i] {
                    Message::Developer(m) | Message::System(m) => {
                        (&mut m.encrypted_value, &mut m.encrypted_value_type)
                    }
                    Message::Assistant(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::User(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Tool(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Reasoning(m) => (&mut m.encrypted_value, &mut m.encrypted_value_type),
                    Message::Activity(_) => {
                        return Err(format!("encrypted value for activity {entity} ignored"))
                    }
                };
                (i, slots)
            }
            EncryptedSubtype::ToolCall => {
                let Some((i, j)) = self.find_tool_call(entity) else {
                    return Ok(Change::None);
                };
                let Some(tc) = self.tool_call_mut(i, j) else {
                    return Ok(Change::None);
                };
                (i, (&mut tc.encrypted_value, &mut tc.encrypted_value_type))
            }
        };
        *slots.0 = Some(value.to_string());
        *slots.1 = kind.cloned();
        Ok(Change::MessageUpdated { index: i })
    }
}

pub(super) fn no_message(id: &str) -> String {
    format!("no message {id}; event ignored")
}

fn set_name(m: &mut Message, name: &str) {
    let slot = match m {
        Message::Developer(t) | Message::System(t) => &mut t.name,
        Message::Assistant(a) => &mut a.name,
        Message::User(u) => &mut u.name,
        _ => return,
    };
    *slot = Some(name.to_string());
}

/// Append to text content; multimodal content grows its trailing text part (or gets one).
fn push_content(content: &mut Content, delta: &str) {
    match content {
        Content::Text(s) => s.push_str(delta),
        Content::Parts(parts) => match parts.last_mut() {
            Some(ContentPart::Text(t)) => t.text.push_str(delta),
            _ => parts.push(ContentPart::Text(TextPart {
                text: delta.to_string(),
                id: None,
                metadata: None,
            })),
        },
    }
}
