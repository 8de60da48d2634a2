//! The events a turn emits as its parts arrive: reasoning, text and tool call messages.

use std::collections::HashSet;

use serde_json::Value;

use super::{Call, Turn};
use crate::protocol::event::EventKind;
use crate::protocol::types::ReasoningRole;

impl Turn {
    pub(super) fn reasoning(&mut self, delta: &str, out: &mut Vec<EventKind>) {
        let message_id = match &self.reasoning_open {
            Some((_, m)) => m.clone(),
            None => {
                let span = self.fresh("reasoning");
                let m = self.fresh("reasoning-msg");
                out.push(EventKind::ReasoningStart {
                    message_id: span.clone(),
                });
                out.push(EventKind::ReasoningMessageStart {
                    message_id: m.clone(),
                    role: ReasoningRole::Reasoning,
                });
                self.reasoning_open = Some((span, m.clone()));
                m
            }
        };
        out.push(EventKind::ReasoningMessageContent {
            message_id,
            delta: delta.into(),
        });
    }

    pub(super) fn close_reasoning(&mut self, out: &mut Vec<EventKind>) {
        if let Some((span, m)) = self.reasoning_open.take() {
            out.push(EventKind::ReasoningMessageEnd { message_id: m });
            out.push(EventKind::ReasoningEnd { message_id: span });
        }
    }

    pub(super) fn text(&mut self, delta: &str, out: &mut Vec<EventKind>) {
        // The answer starts: the thinking before it is over.
        self.close_reasoning(out);
        self.content.push_str(delta);
        let message_id = match &self.text_open {
            Some(m) => m.clone(),
            None => {
                let m = if self.message_used {
                    self.fresh("msg")
                } else {
                    self.message_used = true;
                    self.message_id.clone()
                };
                out.push(EventKind::TextMessageStart {
                    message_id: m.clone(),
                    role: Some(Default::default()),
                    name: None,
                });
                self.text_open = Some(m.clone());
                m
            }
        };
        out.push(EventKind::TextMessageContent {
            message_id,
            delta: delta.into(),
        });
    }

    pub(super) fn close_text(&mut self, out: &mut Vec<EventKind>) {
        if let Some(m) = self.text_open.take() {
            out.push(EventKind::TextMessageEnd { message_id: m });
        }
    }

    pub(super) fn tool_call(
        &mut self,
        c: &Value,
        pos: usize,
        taken: &mut HashSet<String>,
        out: &mut Vec<EventKind>,
    ) {
        self.close_reasoning(out);
        self.close_text(out);
        // Older Ollama sends no `index`: each whole call is its own entry.
        let index = c.get("index").and_then(Value::as_u64).unwrap_or(pos as u64);
        let id = c
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let f = c.get("function");
        let name = f
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let args = f
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
            .unwrap_or("");
        // A new id at an index already in use is a new call (Ollama numbers a parallel batch
        // 0, 0, 0…); the same or no id continues the call.
        let slot = match self.slots.get(&index) {
            Some(&s) if id.is_none() || self.calls[s].upstream_id.as_deref() == id => s,
            _ => {
                let ours = match id {
                    Some(id) if !taken.contains(id) => id.to_string(),
                    _ => self.fresh("call"),
                };
                taken.insert(ours.clone());
                self.calls.push(Call {
                    id: ours,
                    name: String::new(),
                    arguments: String::new(),
                    upstream_id: id.map(str::to_string),
                    started: false,
                    ended: false,
                });
                self.slots.insert(index, self.calls.len() - 1);
                self.calls.len() - 1
            }
        };
        let parent = self.message_id.clone();
        let call = &mut self.calls[slot];
        if !call.started {
            if let Some(n) = name {
                call.name = n.to_string();
                call.started = true;
                self.message_used = true;
                out.push(EventKind::ToolCallStart {
                    tool_call_id: call.id.clone(),
                    tool_call_name: call.name.clone(),
                    parent_message_id: Some(parent),
                });
                // Fragments that came before the name.
                if !call.arguments.is_empty() {
                    out.push(EventKind::ToolCallArgs {
                        tool_call_id: call.id.clone(),
                        delta: call.arguments.clone(),
                    });
                }
            }
        }
        if !args.is_empty() {
            call.arguments.push_str(args);
            if call.started {
                out.push(EventKind::ToolCallArgs {
                    tool_call_id: call.id.clone(),
                    delta: args.into(),
                });
            }
        }
    }
}
