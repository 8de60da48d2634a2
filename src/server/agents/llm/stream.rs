//! From streamed Chat Completions chunks to AG-UI events, for one model turn: `content` becomes
//! a text message, `reasoning_content`/`reasoning` a reasoning message inside a reasoning span,
//! `tool_calls` fragments tool calls (several in parallel, by `index`), and `usage` the turn's
//! token counts. Pure: it returns the events, the caller emits them.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::protocol::event::EventKind;
use crate::protocol::types::TokenUsage;

mod emit;

/// A chunk the model server sent that cannot be read as one.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkError {
    /// The server reported an error inside the stream (`{"error": {...}}`).
    Upstream(String),
    /// Not a chunk at all.
    Malformed(String),
}

/// One tool call of the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// The id the server gave, which `id` differs from when that one was taken.
    upstream_id: Option<String>,
    /// `TOOL_CALL_START` was emitted (a call whose name never came is never started).
    started: bool,
    ended: bool,
}

/// The state of one streamed turn.
#[derive(Debug)]
pub struct Turn {
    /// The assistant message this turn streams: its text, and the parent of its tool calls.
    message_id: String,
    /// Prefix of the ids this turn makes up (reasoning ids, later text messages, calls
    /// without an id).
    prefix: String,
    next: u32,
    /// The open text message, if any.
    text_open: Option<String>,
    /// `message_id` was taken (by text or as a tool call's parent): later text needs a new id.
    message_used: bool,
    /// The open reasoning span and message.
    reasoning_open: Option<(String, String)>,
    calls: Vec<Call>,
    /// The server's `index` → position in `calls` of the call it continues.
    slots: HashMap<u64, usize>,
    /// All text of the turn, for the conversation sent back next round. Like each call's
    /// `arguments`, it is bounded by the run's upstream byte budget, which counts the raw
    /// body before decoding: a decoded JSON string is never longer than its encoding.
    pub content: String,
    pub finish_reason: Option<String>,
    /// `data: [DONE]` arrived.
    pub done: bool,
    pub usage: Option<TokenUsage>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
}

impl Turn {
    pub fn new(message_id: String, prefix: String) -> Self {
        Turn {
            message_id,
            prefix,
            next: 0,
            text_open: None,
            message_used: false,
            reasoning_open: None,
            calls: Vec::new(),
            slots: HashMap::new(),
            content: String::new(),
            finish_reason: None,
            done: false,
            usage: None,
            model: None,
        }
    }

    fn fresh(&mut self, what: &str) -> String {
        self.next += 1;
        format!("{}-{what}{}", self.prefix, self.next)
    }

    /// The turn ended properly: `[DONE]`, or at least a `finish_reason` (some servers close
    /// the stream without `[DONE]`).
    pub fn is_complete(&self) -> bool {
        self.done || self.finish_reason.is_some()
    }

    /// The tool calls the model made, in order.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(|c| c.started)
    }

    /// Read one SSE `data` payload. `taken` holds tool call ids already used in the thread, so
    /// a server that repeats ids (or numbers them per turn) cannot merge two calls.
    pub fn data(
        &mut self,
        data: &str,
        taken: &mut HashSet<String>,
    ) -> Result<Vec<EventKind>, ChunkError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ChunkError::Malformed(format!("{e} in {}", brief(data))))?;
        self.chunk(&v, taken)
    }

    /// Read one chunk object (or a whole non-streamed completion, whose `message` is read as
    /// a `delta`).
    pub fn chunk(
        &mut self,
        v: &Value,
        taken: &mut HashSet<String>,
    ) -> Result<Vec<EventKind>, ChunkError> {
        if !v.is_object() {
            return Err(ChunkError::Malformed(format!(
                "expected a chunk object, got {}",
                brief(&v.to_string())
            )));
        }
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(ChunkError::Upstream(error_message(err)));
        }
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            if !m.is_empty() {
                self.model = Some(m.to_string());
            }
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage(u));
        }
        let mut out = Vec::new();
        // We never ask for n > 1, so the first choice is the answer.
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(out);
        };
        let delta = choice.get("delta").or_else(|| choice.get("message"));
        if let Some(d) = delta {
            let reasoning = [d.get("reasoning_content"), d.get("reasoning")]
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .find(|s| !s.is_empty());
            // Servers in transition send the same text under both names: read one.
            if let Some(r) = reasoning {
                self.reasoning(r, &mut out);
            }
            for key in ["content", "refusal"] {
                if let Some(t) = d.get(key).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    self.text(t, &mut out);
                }
            }
            if let Some(calls) = d.get("tool_calls").and_then(Value::as_array) {
                for (pos, c) in calls.iter().enumerate() {
                    self.tool_call(c, pos, taken, &mut out);
                }
            }
        }
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(f.to_string());
        }
        Ok(out)
    }

    /// Close everything still open (at the end of the stream, or before reporting it broke).
    pub fn close(&mut self) -> Vec<EventKind> {
        let mut out = Vec::new();
        self.close_reasoning(&mut out);
        self.close_text(&mut out);
        for c in self.calls.iter_mut().filter(|c| c.started && !c.ended) {
            c.ended = true;
            out.push(EventKind::ToolCallEnd {
                tool_call_id: c.id.clone(),
            });
        }
        out
    }
}

/// The message of an OpenAI-style error object (`{"message": …}`) or a bare string.
pub fn error_message(err: &Value) -> String {
    let msg = match err {
        Value::String(s) => s.clone(),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string()),
        other => other.to_string(),
    };
    brief(&msg)
}

/// Token counts from an OpenAI `usage` object.
fn usage(u: &Value) -> TokenUsage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    TokenUsage {
        input_tokens: n(u.get("prompt_tokens")),
        output_tokens: n(u.get("completion_tokens")),
        total_tokens: n(u.get("total_tokens")),
        reasoning_tokens: n(u.pointer("/completion_tokens_details/reasoning_tokens")),
        cached_input_tokens: n(u.pointer("/prompt_tokens_details/cached_tokens")),
        ..TokenUsage::default()
    }
}

/// Upstream text kept short enough for an error message or a log line.
pub fn brief(s: &str) -> String {
    super::shorten(s.trim(), 300)
}

#[cfg(test)]
mod tests;
