//! Tool calls: attaching a call to its assistant message, streaming its arguments, and placing
//! its result right after the calls it answers.

use super::model::{merge, Change, Conversation, Step};
use crate::protocol::types::{
    AssistantMessage, Content, JsonObject, Message, ToolCall, ToolMessage,
};

impl Conversation {
    pub(super) fn tool_call_start(
        &mut self,
        tc_id: &str,
        name: &str,
        parent: Option<&str>,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        if let Some((i, j)) = self.find_tool_call(tc_id) {
            if let Some(tc) = self.tool_call_mut(i, j) {
                tc.function.name = name.to_string();
                merge(&mut tc.metadata, meta);
            }
            return Change::MessageUpdated { index: i };
        }
        let is_assistant = |c: &Self, i: usize| matches!(c.messages[i], Message::Assistant(_));
        let existing = match parent.map(|p| (p, self.locate(p))) {
            Some((_, Some(i))) if is_assistant(self, i) => Some(i),
            Some((p, None)) => return self.new_call_message(p.to_string(), tc_id, name, meta, sub),
            // Absent, or names a non-assistant message: the call gets a message of its own.
            _ => self.locate(tc_id).filter(|&i| is_assistant(self, i)),
        };
        let Some(i) = existing else {
            let id = self.unique_id(tc_id);
            return self.new_call_message(id, tc_id, name, meta, sub);
        };
        self.attach_call(i, tc_id, name, meta);
        Change::MessageUpdated { index: i }
    }

    fn new_call_message(
        &mut self,
        id: String,
        tc_id: &str,
        name: &str,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Change {
        let i = self.push_message(Message::Assistant(AssistantMessage {
            id,
            subagent_run_id: sub.cloned(),
            ..Default::default()
        }));
        self.attach_call(i, tc_id, name, meta);
        Change::MessageAdded { index: i }
    }

    fn attach_call(&mut self, i: usize, tc_id: &str, name: &str, meta: Option<&JsonObject>) {
        let mut call = ToolCall::new(tc_id.to_string(), name.to_string());
        merge(&mut call.metadata, meta);
        if let Message::Assistant(a) = &mut self.messages[i] {
            a.tool_calls.get_or_insert_with(Vec::new).push(call);
            self.tool_owner.insert(tc_id.to_string(), a.id.clone());
        }
    }

    pub(super) fn edit_tool_call(
        &mut self,
        tc_id: &str,
        meta: Option<&JsonObject>,
        edit: impl FnOnce(&mut ToolCall),
    ) -> Step {
        let (i, j) = self
            .find_tool_call(tc_id)
            .ok_or_else(|| format!("no tool call {tc_id}; event ignored"))?;
        if let Some(tc) = self.tool_call_mut(i, j) {
            edit(tc);
            merge(&mut tc.metadata, meta);
        }
        Ok(Change::MessageUpdated { index: i })
    }

    pub(super) fn tool_result(
        &mut self,
        id: &str,
        tc_id: &str,
        content: &Content,
        meta: Option<&JsonObject>,
        sub: Option<&String>,
    ) -> Step {
        if let Some(i) = self.locate(id) {
            let Message::Tool(t) = &mut self.messages[i] else {
                return Err(format!(
                    "TOOL_CALL_RESULT {id} names a non-tool message; ignored"
                ));
            };
            t.content = content.clone();
            t.tool_call_id = tc_id.to_string();
            merge(&mut t.metadata, meta);
            self.pending_tool_call_ids.retain(|p| p != tc_id);
            return Ok(Change::MessageUpdated { index: i });
        }
        let mut at = self.messages.len();
        if let Some((owner, _)) = self.find_tool_call(tc_id) {
            at = owner + 1;
            while matches!(self.messages.get(at), Some(Message::Tool(_))) {
                at += 1;
            }
        }
        let message = Message::Tool(ToolMessage {
            id: id.to_string(),
            content: content.clone(),
            tool_call_id: tc_id.to_string(),
            error: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: meta.filter(|m| !m.is_empty()).cloned(),
            subagent_run_id: sub.cloned(),
        });
        self.messages.insert(at, message);
        self.index.insert(id.to_string(), at);
        for (k, m) in self.messages.iter().enumerate().skip(at + 1) {
            if let Some(slot) = self.index.get_mut(m.id()) {
                *slot = k;
            }
        }
        self.pending_tool_call_ids.retain(|p| p != tc_id);
        Ok(Change::MessageAdded { index: at })
    }
}
