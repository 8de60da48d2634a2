//! The deprecated 0.1.0 draft spec (seed 003: `toolName` + `args`, `result`/`isError`,
//! `status`/`usage` on `RUN_FINISHED`, `ERROR`, `UI_RENDER_HINT`) and `RUN_ERROR{error}`
//! (seed 001). Super-Goose's `TOOL_CALL_RESULT` without `messageId` shares the 0.1.0 repair,
//! so that one lives here too.

use serde_json::Value;

use super::fields::{
    add_metadata, base_only, build, error_text, has, take, text_or_json, with_raw, without_type,
    BASE_FIELDS,
};
use super::translator::{Obj, Translator, RENDER_HINT_CUSTOM_NAME};

impl Translator {
    /// 0.1.0 `RUN_STARTED{runId, agentId}`: 1.1 requires `threadId`; `agentId` has no 1.1 field
    /// and is kept as `metadata.agentId` so the UI can still name the agent.
    pub(super) fn run_started(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut changes = Vec::new();
        let thread = take(&mut rest, "threadId").unwrap_or_else(|| {
            changes.push("no threadId");
            self.thread_for_new_run(None).into()
        });
        let run = take(&mut rest, "runId").unwrap_or_else(|| {
            changes.push("no runId");
            self.fresh_run_id().into()
        });
        if let Some(agent) = take(&mut rest, "agentId") {
            changes.push("agentId");
            add_metadata(&mut rest, "agentId", agent);
        }
        self.warn_shape("RUN_STARTED", &changes.join(", "));
        let ev = build(
            "RUN_STARTED",
            [("threadId", Some(thread)), ("runId", Some(run))],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// 0.1.0 `RUN_FINISHED{runId, status, usage:{input_tokens…}}`: ids filled from the open run,
    /// usage becomes a 1.1 TokenUsage list, and `status` picks the terminal event and outcome.
    pub(super) fn run_finished(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut changes = Vec::new();
        let status = take(&mut rest, "status");
        let usage = take(&mut rest, "usage").map(|u| match u {
            Value::Object(u) => {
                changes.push("usage object");
                Value::Array(vec![Value::Object(camel_keys(u))])
            }
            other => other,
        });
        let status_text = status
            .as_ref()
            .map(|s| s.as_str().unwrap_or("").to_ascii_lowercase());
        let failed = matches!(status_text.as_deref(), Some("error" | "failed" | "failure"));
        if let Some(s) = &status_text {
            changes.push(match s.as_str() {
                "success" | "succeeded" | "completed" | "complete" | "ok" | "done" => {
                    "status success"
                }
                "cancelled" | "canceled" => "status cancelled",
                "error" | "failed" | "failure" => "status failed",
                _ => "unrecognised status (dropped)",
            });
        }
        if failed {
            self.warn_shape("RUN_FINISHED", &changes.join(", "));
            let message = take(&mut rest, "message")
                .or_else(|| take(&mut rest, "error"))
                .map(|m| Value::from(error_text(m)))
                .unwrap_or_else(|| "run failed".into());
            let code = take(&mut rest, "code");
            let ev = build(
                "RUN_ERROR",
                [("message", Some(message)), ("code", code), ("usage", usage)],
                base_only(&rest),
            );
            return self.emit(with_raw(ev, obj));
        }
        let thread = take(&mut rest, "threadId").unwrap_or_else(|| {
            changes.push("no threadId");
            self.current_thread().into()
        });
        let run = take(&mut rest, "runId").unwrap_or_else(|| {
            changes.push("no runId");
            self.current_run().into()
        });
        if matches!(status_text.as_deref(), Some("cancelled" | "canceled"))
            && !has(&rest, "outcome")
        {
            rest.insert("outcome".into(), serde_json::json!({"type": "cancelled"}));
        }
        self.warn_shape("RUN_FINISHED", &changes.join(", "));
        let ev = build(
            "RUN_FINISHED",
            [
                ("threadId", Some(thread)),
                ("runId", Some(run)),
                ("usage", usage),
            ],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// `RUN_ERROR{threadId, runId, error}` (implementation-guide dialect): 1.1 names the text
    /// `message` and has no ids on RUN_ERROR.
    pub(super) fn run_error(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut changes = Vec::new();
        let had_thread = rest.shift_remove("threadId").is_some();
        let had_run = rest.shift_remove("runId").is_some();
        if had_thread || had_run {
            changes.push("threadId/runId");
        }
        let message = take(&mut rest, "message").or_else(|| {
            let error = take(&mut rest, "error")?;
            changes.push("error instead of message");
            Some(error_text(error).into())
        });
        self.warn_shape("RUN_ERROR", &changes.join(", "));
        let ev = build("RUN_ERROR", [("message", message)], rest);
        self.emit(with_raw(ev, obj));
    }

    /// 0.1.0 `ERROR{code, message, details}` is a fatal run error; `details` lives on in
    /// `rawEvent` only, since RUN_ERROR has no place for it.
    pub(super) fn draft_error(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        rest.shift_remove("details");
        let message = take(&mut rest, "message")
            .map(error_text)
            .unwrap_or_else(|| "error".into());
        let code = take(&mut rest, "code").map(text_or_json);
        self.warn("translated 0.1.0 ERROR into RUN_ERROR".into());
        let ev = build(
            "RUN_ERROR",
            [("message", Some(message.into())), ("code", code)],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// 0.1.0 `UI_RENDER_HINT{component, props}` has no 1.1 event; CUSTOM is 1.1's extension
    /// point, and the UI's render-hint registry looks for [`RENDER_HINT_CUSTOM_NAME`]. `props`
    /// defaults to `{}` so the registry always gets an object to validate.
    pub(super) fn render_hint(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut value = Obj::new();
        if let Some(component) = take(&mut rest, "component") {
            value.insert("component".into(), component);
        }
        let props = take(&mut rest, "props").unwrap_or_else(|| Value::Object(Obj::new()));
        value.insert("props".into(), props);
        self.warn(format!(
            "translated 0.1.0 UI_RENDER_HINT into CUSTOM \"{RENDER_HINT_CUSTOM_NAME}\""
        ));
        let ev = build(
            "CUSTOM",
            [
                ("name", Some(RENDER_HINT_CUSTOM_NAME.into())),
                ("value", Some(Value::Object(value))),
            ],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// 0.1.0 `TOOL_CALL_START{toolCallId, toolName, args}` announces a complete call at once;
    /// 1.1 needs the START/ARGS/END triad for the call to be verifiable and its arguments shown.
    pub(super) fn tool_call_start(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut changes = Vec::new();
        let id = take(&mut rest, "toolCallId");
        let name = match (take(&mut rest, "toolCallName"), take(&mut rest, "toolName")) {
            (Some(name), _) => Some(name),
            (None, Some(name)) => {
                changes.push("toolName");
                Some(name)
            }
            (None, None) => None,
        };
        let args = take(&mut rest, "args");
        if args.is_some() {
            changes.push("args");
        }
        // Continuations must agree with their opener on attribution; the timestamp is the
        // moment of the whole call, so both go onto the synthesised ARGS and END as well.
        let mut follow = Obj::new();
        for key in ["timestamp", "subagentRunId"] {
            if let Some(v) = rest.get(key) {
                follow.insert(key.into(), v.clone());
            }
        }
        self.warn_shape("TOOL_CALL_START", &changes.join(", "));
        let start = build(
            "TOOL_CALL_START",
            [("toolCallId", id.clone()), ("toolCallName", name)],
            rest,
        );
        self.emit(with_raw(start, obj));
        if let (Some(args), Some(id)) = (args, id) {
            let delta = text_or_json(args);
            let ev = build(
                "TOOL_CALL_ARGS",
                [("toolCallId", Some(id.clone())), ("delta", Some(delta))],
                follow.clone(),
            );
            self.emit(Value::Object(ev));
            let ev = build("TOOL_CALL_END", [("toolCallId", Some(id))], follow);
            self.emit(Value::Object(ev));
        }
    }

    /// `TOOL_CALL_RESULT` without the tool message id it mints (Super-Goose, 0.1.0), with
    /// `result`/`isError` (0.1.0), or with neither `content` nor `result` (Super-Goose's HITL
    /// `{toolCallId, approved}`): the remaining fields are then the result.
    pub(super) fn tool_call_result(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let mut changes = Vec::new();
        let message_id = take(&mut rest, "messageId").unwrap_or_else(|| {
            changes.push("no messageId");
            self.mint("tool-result").into()
        });
        let tool_call_id = take(&mut rest, "toolCallId");
        let result = take(&mut rest, "result");
        let is_error = take(&mut rest, "isError");
        let role = take(&mut rest, "role").unwrap_or_else(|| "tool".into());
        let content = take(&mut rest, "content").or_else(|| {
            if let Some(result) = result {
                changes.push("result");
                return Some(text_or_json(result));
            }
            let fields: Vec<String> = rest
                .keys()
                .filter(|k| !BASE_FIELDS.contains(&k.as_str()) && *k != "rawEvent")
                .cloned()
                .collect();
            if fields.is_empty() {
                return None;
            }
            changes.push("result fields instead of content");
            let mut value = Obj::new();
            for key in fields {
                if let Some(v) = rest.shift_remove(&key) {
                    value.insert(key, v);
                }
            }
            Some(Value::Object(value).to_string().into())
        });
        if let Some(is_error) = is_error {
            changes.push("isError");
            if is_error == Value::Bool(true) {
                add_metadata(&mut rest, "isError", Value::Bool(true));
            }
        }
        self.warn_shape("TOOL_CALL_RESULT", &changes.join(", "));
        let ev = build(
            "TOOL_CALL_RESULT",
            [
                ("messageId", Some(message_id)),
                ("toolCallId", tool_call_id),
                ("content", content),
                ("role", Some(role)),
            ],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }
}

fn camel_keys(obj: Obj) -> Obj {
    obj.into_iter()
        .map(|(key, value)| {
            let mut camel = String::with_capacity(key.len());
            let mut upper = false;
            for c in key.chars() {
                match c {
                    '_' => upper = true,
                    c if upper => {
                        camel.push(c.to_ascii_uppercase());
                        upper = false;
                    }
                    c => camel.push(c),
                }
            }
            (camel, value)
        })
        .collect()
}
