//! The id lookups behind O(1) deltas: message id → position and tool call id → owning message,
//! kept exact, and rebuilt rather than trusted when `messages` was edited directly.

use std::collections::HashMap;

use super::model::Conversation;
use crate::protocol::types::{Message, ToolCall};

impl Conversation {
    /// Position of message `id`; a stale entry (after direct edits to `messages`) triggers a
    /// rebuild instead of a wrong answer.
    /// The last message first: a streamed message's deltas all go to it, and comparing its id
    /// costs less than hashing the one asked for.
    pub(super) fn locate(&mut self, id: &str) -> Option<usize> {
        let last = self.messages.len().checked_sub(1);
        if last.is_some_and(|i| self.messages[i].id() == id) {
            return last;
        }
        match self.index.get(id) {
            Some(&i) if self.messages.get(i).is_some_and(|m| m.id() == id) => Some(i),
            Some(_) => {
                self.reindex();
                self.index.get(id).copied()
            }
            None => None,
        }
    }

    /// (message position, position in its `toolCalls`) of tool call `tc_id`.
    pub(super) fn find_tool_call(&mut self, tc_id: &str) -> Option<(usize, usize)> {
        if let Some(found) = self.lookup_tool_call(tc_id) {
            return Some(found);
        }
        if !self.tool_owner.contains_key(tc_id) {
            return None;
        }
        self.reindex();
        self.lookup_tool_call(tc_id)
    }

    fn lookup_tool_call(&self, tc_id: &str) -> Option<(usize, usize)> {
        let owner = self.tool_owner.get(tc_id)?;
        let i = *self.index.get(owner)?;
        let Some(Message::Assistant(a)) = self.messages.get(i) else {
            return None;
        };
        let calls = a.tool_calls.as_ref().filter(|_| a.id == *owner)?;
        Some((i, calls.iter().rposition(|tc| tc.id == tc_id)?))
    }

    pub(super) fn tool_call_mut(&mut self, i: usize, j: usize) -> Option<&mut ToolCall> {
        match self.messages.get_mut(i)? {
            Message::Assistant(a) => a.tool_calls.as_mut()?.get_mut(j),
            _ => None,
        }
    }

    /// Append the messages whose id is not present yet; returns how many were added.
    pub(super) fn append_new(&mut self, messages: &[Message]) -> usize {
        let before = self.messages.len();
        for m in messages {
            if !self.index.contains_key(m.id()) {
                self.push_message(m.clone());
            }
        }
        self.messages.len() - before
    }

    pub(super) fn push_message(&mut self, m: Message) -> usize {
        let i = self.messages.len();
        self.index.insert(m.id().to_string(), i);
        register_tool_calls(&mut self.tool_owner, &m);
        self.messages.push(m);
        i
    }

    /// `base`, or `base-2`, `base-3`… if a message already uses it (ids must stay unique).
    pub(super) fn unique_id(&self, base: &str) -> String {
        let mut id = base.to_string();
        let mut n = 2;
        while self.index.contains_key(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }
}

pub(super) fn register_tool_calls(owner: &mut HashMap<String, String>, m: &Message) {
    if let Message::Assistant(a) = m {
        for tc in a.tool_calls.iter().flatten() {
            owner.insert(tc.id.clone(), a.id.clone());
        }
    }
}
