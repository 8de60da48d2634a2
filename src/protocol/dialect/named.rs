//! The named-SSE-event dialect (seed 000): the SSE `event:` line carries a snake_case type and
//! the data has no `type`; text arrives as bare `message` events that are never opened or
//! closed, and runs are delimited (if at all) by `status` events.

use serde_json::Value;

use super::fields::{base_only, build, error_text, take, text_or_json, with_raw};
use super::translator::{NamedText, Obj, Translator};

/// SSE `event:` names of the named-event dialect, except `message`: that name is also the SSE
/// default, so it is recognised by its payload instead (see [`named_event`]).
const NAMED_EVENTS: &[&str] = &[
    "tool_call_start",
    "tool_call_args",
    "tool_call_end",
    "tool_result",
    "reasoning_start",
    "reasoning_message_start",
    "reasoning_message_content",
    "reasoning_message_end",
    "reasoning_end",
    "status",
    "error",
];

impl Translator {
    pub(super) fn named(&mut self, name: &'static str, obj: Obj) {
        let status = obj
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        // The dialect never closes its text; any other event ends the message, except a
        // `status running` heartbeat, which would otherwise split one reply in two.
        if name != "message" && !(name == "status" && status == "running") {
            self.close_named_text();
        }
        let raw = serde_json::json!({"event": name, "data": obj.clone()});
        let mut rest = obj;
        rest.shift_remove("type");
        let thread_hint = rest.shift_remove("thread_id").and_then(as_string);
        let agent = rest.shift_remove("agent").and_then(as_string);
        match name {
            "message" => self.named_message(rest, thread_hint, agent, raw),
            "status" => self.named_status(&status, rest, thread_hint, raw),
            "error" => {
                self.warn("translated named SSE event `error` into RUN_ERROR".into());
                let message = take(&mut rest, "message")
                    .map(error_text)
                    .unwrap_or_else(|| "error".into());
                let code = take(&mut rest, "code").map(text_or_json);
                let ev = build(
                    "RUN_ERROR",
                    [("message", Some(message.into())), ("code", code)],
                    base_only(&rest),
                );
                self.emit(with_raw(ev, raw));
            }
            _ => {
                self.ensure_named_run(thread_hint);
                let target = name.to_ascii_uppercase();
                let target = match target.as_str() {
                    "TOOL_RESULT" => "TOOL_CALL_RESULT".to_owned(),
                    _ => target,
                };
                self.warn(format!("translated named SSE event `{name}` into {target}"));
                let mut fields: Vec<(&str, Option<Value>)> = Vec::new();
                match name {
                    "tool_result" => {
                        let id = take(&mut rest, "messageId")
                            .unwrap_or_else(|| self.mint("tool-result").into());
                        rest.shift_remove("role");
                        fields.push(("messageId", Some(id)));
                        fields.push(("toolCallId", take(&mut rest, "toolCallId")));
                        let content = take(&mut rest, "content").map(|c| match c {
                            Value::String(_) | Value::Array(_) => c,
                            other => other.to_string().into(),
                        });
                        fields.push(("content", content));
                        fields.push(("role", Some("tool".into())));
                    }
                    "reasoning_message_start" => {
                        // The dialect labels reasoning "assistant"; 1.1 pins it to "reasoning".
                        rest.shift_remove("role");
                        fields.push(("messageId", take(&mut rest, "messageId")));
                        fields.push(("role", Some("reasoning".into())));
                    }
                    "reasoning_message_content" => {
                        let id = take(&mut rest, "messageId").or_else(|| {
                            self.open_reasoning_messages
                                .last()
                                .cloned()
                                .map(Value::from)
                        });
                        // The dialect's own concurrency example streams reasoning content with
                        // no reasoning_message_start; open the message so it is not lost.
                        if let Some(open) = id.as_ref().and_then(Value::as_str) {
                            if !self.open_reasoning_messages.iter().any(|m| m == open) {
                                self.warn(
                                    "synthesised REASONING_MESSAGE_START: named \
                                     reasoning_message_content arrived for a message that was \
                                     never started"
                                        .into(),
                                );
                                let start = build(
                                    "REASONING_MESSAGE_START",
                                    [
                                        ("messageId", Some(open.into())),
                                        ("role", Some("reasoning".into())),
                                    ],
                                    Obj::new(),
                                );
                                self.emit(Value::Object(start));
                            }
                        }
                        fields.push(("messageId", id));
                    }
                    _ => {}
                }
                let ev = build(&target, fields, rest);
                self.emit(with_raw(ev, raw));
            }
        }
    }

    /// Bare `message{content}` events are the deltas of one assistant message that the dialect
    /// never opens or closes; a change of `agent` starts a new message, since `name` is a
    /// property of the message, not of the delta.
    fn named_message(
        &mut self,
        mut rest: Obj,
        thread: Option<String>,
        agent: Option<String>,
        raw: Value,
    ) {
        if self.named_text.as_ref().is_some_and(|t| t.agent != agent) {
            self.close_named_text();
        }
        self.ensure_named_run(thread);
        self.warn(
            "translated named SSE event `message` into TEXT_MESSAGE_START/CONTENT/END".into(),
        );
        let id = match &self.named_text {
            Some(open) => open.id.clone(),
            None => {
                let id = self.mint("msg");
                let start = build(
                    "TEXT_MESSAGE_START",
                    [
                        ("messageId", Some(id.clone().into())),
                        ("role", Some("assistant".into())),
                        ("name", agent.clone().map(Value::from)),
                    ],
                    Obj::new(),
                );
                self.emit(Value::Object(start));
                self.named_text = Some(NamedText {
                    id: id.clone(),
                    agent,
                });
                id
            }
        };
        let delta = take(&mut rest, "content");
        let ev = build(
            "TEXT_MESSAGE_CONTENT",
            [("messageId", Some(id.into())), ("delta", delta)],
            rest,
        );
        self.emit(with_raw(ev, raw));
    }

    fn named_status(&mut self, status: &str, mut rest: Obj, thread: Option<String>, raw: Value) {
        match status {
            "start" | "started" => {
                if self.run_open {
                    self.warn("ignored named `status` start: a run is already open".into());
                    return;
                }
                self.warn("translated named SSE event `status` start into RUN_STARTED".into());
                let thread = self.thread_for_new_run(thread);
                let run = self.fresh_run_id();
                let ev = build(
                    "RUN_STARTED",
                    [
                        ("threadId", Some(thread.into())),
                        ("runId", Some(run.into())),
                    ],
                    base_only(&rest),
                );
                self.emit(with_raw(ev, raw));
            }
            "running" => {
                self.ensure_named_run(thread);
                self.warn(
                    "dropped named SSE event `status` running: AG-UI 1.1 has no equivalent".into(),
                );
            }
            "complete" | "completed" | "done" => {
                self.ensure_named_run(thread);
                self.warn("translated named SSE event `status` complete into RUN_FINISHED".into());
                let ev = build(
                    "RUN_FINISHED",
                    [
                        ("threadId", Some(self.current_thread().into())),
                        ("runId", Some(self.current_run().into())),
                    ],
                    base_only(&rest),
                );
                self.emit(with_raw(ev, raw));
            }
            "error" | "failed" => {
                self.warn("translated named SSE event `status` error into RUN_ERROR".into());
                let message = take(&mut rest, "message")
                    .map(error_text)
                    .unwrap_or_else(|| "run failed".into());
                let code = take(&mut rest, "code").map(text_or_json);
                let ev = build(
                    "RUN_ERROR",
                    [("message", Some(message.into())), ("code", code)],
                    base_only(&rest),
                );
                self.emit(with_raw(ev, raw));
            }
            other => self.warn(format!(
                "dropped named SSE event `status` with unrecognised type {other:?}"
            )),
        }
    }

    /// Named-event producers may skip `status start` altogether, and after an `error` (which
    /// the dialect allows to be recoverable) they just carry on; 1.1 needs a run around every
    /// event, so one is opened here.
    fn ensure_named_run(&mut self, thread: Option<String>) {
        if self.run_open {
            return;
        }
        self.warn(
            "synthesised RUN_STARTED: the named-event stream sent events outside a run \
             (no `status` start)"
                .into(),
        );
        let thread = self.thread_for_new_run(thread);
        let run = self.fresh_run_id();
        let ev = build(
            "RUN_STARTED",
            [
                ("threadId", Some(thread.into())),
                ("runId", Some(run.into())),
            ],
            Obj::new(),
        );
        self.emit(Value::Object(ev));
    }

    pub(super) fn close_named_text(&mut self) {
        if let Some(text) = self.named_text.take() {
            let ev = build(
                "TEXT_MESSAGE_END",
                [("messageId", Some(text.id.into()))],
                Obj::new(),
            );
            self.emit(Value::Object(ev));
        }
    }
}

/// Which named-event-dialect event a frame is, if any.
pub(super) fn named_event(sse_event: Option<&str>, data: &Value) -> Option<&'static str> {
    let obj = data.as_object()?;
    match sse_event {
        None | Some("message") => (!obj.contains_key("type")
            && obj.get("content").is_some_and(Value::is_string))
        .then_some("message"),
        Some(name) => NAMED_EVENTS.iter().find(|n| **n == name).copied(),
    }
}

fn as_string(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}
