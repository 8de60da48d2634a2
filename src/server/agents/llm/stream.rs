//! From streamed Chat Completions chunks to AG-UI events, for one model turn: `content` becomes
//! a text message, `reasoning_content`/`reasoning` a reasoning message inside a reasoning span,
//! `tool_calls` fragments tool calls (several in parallel, by `index`), and `usage` the turn's
//! token counts. Pure: it returns the events, the caller emits them.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::protocol::event::EventKind;
use crate::protocol::types::{ReasoningRole, TokenUsage};

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

    fn reasoning(&mut self, delta: &str, out: &mut Vec<EventKind>) {
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

    fn close_reasoning(&mut self, out: &mut Vec<EventKind>) {
        if let Some((span, m)) = self.reasoning_open.take() {
            out.push(EventKind::ReasoningMessageEnd { message_id: m });
            out.push(EventKind::ReasoningEnd { message_id: span });
        }
    }

    fn text(&mut self, delta: &str, out: &mut Vec<EventKind>) {
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

    fn close_text(&mut self, out: &mut Vec<EventKind>) {
        if let Some(m) = self.text_open.take() {
            out.push(EventKind::TextMessageEnd { message_id: m });
        }
    }

    fn tool_call(
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
mod tests {
    use serde_json::json;

    use super::*;

    fn types(events: &[EventKind]) -> Vec<&'static str> {
        events.iter().map(EventKind::type_name).collect()
    }

    fn feed(turn: &mut Turn, chunks: &[Value]) -> Vec<EventKind> {
        let mut taken = HashSet::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(turn.data(&c.to_string(), &mut taken).unwrap());
        }
        out.extend(turn.data("[DONE]", &mut taken).unwrap());
        out.extend(turn.close());
        out
    }

    fn delta(d: Value) -> Value {
        json!({"id": "c", "object": "chat.completion.chunk", "model": "m1",
               "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    }

    fn finish(reason: &str) -> Value {
        json!({"id": "c", "object": "chat.completion.chunk", "model": "m1",
               "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    }

    #[test]
    fn reasoning_then_text_then_usage() {
        let mut t = Turn::new("m".into(), "p".into());
        let events = feed(
            &mut t,
            &[
                delta(json!({"role": "assistant", "content": "", "reasoning_content": "Hmm"})),
                delta(json!({"content": "", "reasoning": "…", "reasoning_content": "…"})),
                delta(json!({"content": "Hi"})),
                delta(json!({"content": "!"})),
                finish("stop"),
                json!({"id": "c", "object": "chat.completion.chunk", "model": "m1", "choices": [],
                       "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12,
                                 "completion_tokens_details": {"reasoning_tokens": 3}}}),
            ],
        );
        assert_eq!(
            types(&events),
            [
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_END",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END"
            ]
        );
        assert_eq!(t.content, "Hi!");
        assert!(t.is_complete() && t.done);
        assert_eq!(t.finish_reason.as_deref(), Some("stop"));
        assert_eq!(t.model.as_deref(), Some("m1"));
        let u = t.usage.clone().unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.total_tokens,
                u.reasoning_tokens
            ),
            (Some(5), Some(7), Some(12), Some(3))
        );
        assert!(
            matches!(&events[6], EventKind::TextMessageStart { message_id, .. } if message_id == "m")
        );
    }

    #[test]
    fn parallel_tool_calls_by_index() {
        let mut t = Turn::new("m".into(), "p".into());
        let call = |i: u64, id: Option<&str>, name: Option<&str>, args: &str| {
            let mut c = json!({"index": i, "function": {"arguments": args}});
            if let Some(id) = id {
                c["id"] = json!(id);
                c["type"] = json!("function");
            }
            if let Some(n) = name {
                c["function"]["name"] = json!(n);
            }
            delta(json!({"tool_calls": [c]}))
        };
        let events = feed(
            &mut t,
            &[
                delta(json!({"content": "Checking."})),
                call(0, Some("call_a"), Some("f"), ""),
                call(0, None, None, "{\"x\":"),
                call(1, Some("call_b"), Some("g"), ""),
                call(1, None, None, "{}"),
                call(0, None, None, "1}"),
                finish("tool_calls"),
            ],
        );
        assert_eq!(
            types(&events),
            [
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_END"
            ]
        );
        let calls: Vec<_> = t
            .calls()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, [("call_a", "f", "{\"x\":1}"), ("call_b", "g", "{}")]);
        assert!(
            matches!(&events[3], EventKind::ToolCallStart { parent_message_id: Some(p), .. } if p == "m")
        );
        // Closing twice ends nothing twice.
        assert!(t.close().is_empty());
    }

    #[test]
    fn ollama_whole_calls_reusing_index_and_taken_ids() {
        let mut t = Turn::new("m".into(), "p".into());
        let mut taken = HashSet::from(["call_1".to_string()]);
        let whole = |id: &str, name: &str| json!({"id": id, "index": 0, "type": "function", "function": {"name": name, "arguments": "{\"a\":1}"}});
        let chunk = delta(json!({"role": "assistant", "content": "",
            "tool_calls": [whole("call_1", "f"), whole("call_2", "g")]}));
        let mut events = t.data(&chunk.to_string(), &mut taken).unwrap();
        // Same ids again in a later chunk continue those calls.
        let again = delta(
            json!({"tool_calls": [{"id": "call_2", "index": 0, "function": {"arguments": ""}}]}),
        );
        events.extend(t.data(&again.to_string(), &mut taken).unwrap());
        events.extend(t.close());
        assert_eq!(
            types(&events),
            [
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_END"
            ]
        );
        let ids: Vec<_> = t.calls().map(|c| c.id.clone()).collect();
        // call_1 was already in the thread: it gets an id of ours.
        assert_eq!(ids, ["p-call1", "call_2"]);
        assert!(taken.contains("p-call1") && taken.contains("call_2"));
        assert!(!t.is_complete());
    }

    #[test]
    fn arguments_before_the_name_wait_for_it() {
        let mut t = Turn::new("m".into(), "p".into());
        let events = feed(
            &mut t,
            &[
                delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\""}}]})),
                delta(
                    json!({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": ":2}"}}]}),
                ),
                finish("tool_calls"),
            ],
        );
        assert_eq!(
            types(&events),
            [
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END"
            ]
        );
        let c = t.calls().next().unwrap();
        assert_eq!(
            (c.id.as_str(), c.arguments.as_str()),
            ("p-call1", "{\"a\":2}")
        );
    }

    #[test]
    fn text_after_tool_calls_is_a_new_message() {
        let mut t = Turn::new("m".into(), "p".into());
        let events = feed(
            &mut t,
            &[
                delta(
                    json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}]}),
                ),
                delta(json!({"content": "done"})),
                finish("stop"),
            ],
        );
        assert!(
            matches!(&events[2], EventKind::TextMessageStart { message_id, .. } if message_id == "p-msg1")
        );
    }

    #[test]
    fn errors_and_malformed_chunks() {
        let mut t = Turn::new("m".into(), "p".into());
        let mut taken = HashSet::new();
        assert_eq!(
            t.data(
                r#"{"error": {"message": "overloaded", "type": "server_error"}}"#,
                &mut taken
            ),
            Err(ChunkError::Upstream("overloaded".into()))
        );
        assert!(matches!(
            t.data("{not json", &mut taken),
            Err(ChunkError::Malformed(_))
        ));
        assert!(matches!(
            t.data("[1]", &mut taken),
            Err(ChunkError::Malformed(_))
        ));
        // A whole completion reads like one chunk.
        let whole = json!({"object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]});
        let events = t.chunk(&whole, &mut taken).unwrap();
        assert_eq!(
            types(&events),
            ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
        );
        assert!(t.is_complete());
    }
}
