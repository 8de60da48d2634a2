//! Dialect translation: turns the off-spec AG-UI shapes found in the wild into AG-UI 1.1 events,
//! once, at the edge of the client pipeline (SSE decoder → **dialect** → enforcement → chunks →
//! verification → reducer).
//!
//! Four dialects are recognised (each is described, with before/after examples, in
//! `docs/dialects.md`):
//! - the retired 0.0.x `THINKING_*` events;
//! - the named-SSE-event dialect, where the SSE `event:` line carries a snake_case type and the
//!   data has no `type` (`event: tool_call_start`, `event: message`, `event: status`…);
//! - the deprecated 0.1.0 draft spec (`toolName` + `args`, `result`/`isError`, `status`/`usage`
//!   on `RUN_FINISHED`, `ERROR`, `UI_RENDER_HINT`) and `RUN_ERROR{error}`;
//! - Super-Goose's quirks (`content`/`args` instead of `delta`, reasoning events without ids,
//!   `ciphertext`, an `activities` array, `RAW{payload}`).
//!
//! The translator only reshapes: it neither validates field types nor checks ordering, because
//! the enforcement and verification stages after it do that for every event alike. Anything it
//! does not recognise passes through as the same `Value`, so a conformant 1.1 stream costs
//! nothing and produces no warnings.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// `CUSTOM.name` that carries a 0.1.0 `UI_RENDER_HINT`; its `value` is `{component, props}`.
pub const RENDER_HINT_CUSTOM_NAME: &str = "ui_render_hint";

type Obj = Map<String, Value>;

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

/// Envelope fields every 1.1 event may carry; they survive translations that rebuild an event
/// from scratch, so timestamps, metadata and subagent attribution are never lost.
const BASE_FIELDS: &[&str] = &["timestamp", "metadata", "subagentRunId"];

/// What one call produced: 1.1-shaped events (possibly none, possibly several) and warnings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Translated {
    pub events: Vec<Value>,
    pub warnings: Vec<String>,
}

/// Stateful translator; use one per stream, because dialects leave state implicit (the open
/// thinking span, the open named-event text message, the run a bare `RUN_FINISHED` belongs to).
#[derive(Debug, Clone, Default)]
pub struct Translator {
    /// Thread for runs this translator has to start itself; from `with_ids` or the last run seen.
    thread_id: Option<String>,
    /// Run id from `with_ids`; the first run the stream leaves unnamed gets it.
    given_run_id: Option<String>,
    given_run_id_used: bool,
    /// Ids of the most recent `RUN_STARTED` on the output, open or not.
    run_thread: Option<String>,
    run_id: Option<String>,
    run_open: bool,
    counter: u64,
    /// Warnings already given; each distinct one is given once per stream.
    warned: BTreeSet<String>,
    thinking_span: Option<String>,
    thinking_message: Option<String>,
    open_spans: Vec<String>,
    open_reasoning_messages: Vec<String>,
    last_reasoning_message: Option<String>,
    named_text: Option<NamedText>,
    out: Translated,
}

/// The named-event dialect streams text as bare `message` events; this is the 1.1 message they
/// are being gathered into.
#[derive(Debug, Clone)]
struct NamedText {
    id: String,
    agent: Option<String>,
}

impl Translator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Thread and run ids to use when a dialect event lacks them (from the RunAgentInput that
    /// started the run).
    pub fn with_ids(thread_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        Self {
            thread_id: Some(thread_id.into()),
            given_run_id: Some(run_id.into()),
            ..Self::default()
        }
    }

    /// One decoded SSE frame: its `event:` name (None if absent or "message") and its parsed
    /// JSON data.
    ///
    /// A data object whose `type` is SCREAMING_SNAKE_CASE is translated by that type and the SSE
    /// name is ignored (1.1 says consumers must ignore it). Otherwise a named-event-dialect name
    /// decides; `message` is the SSE default name, so a named `message` is recognised by its
    /// payload (no `type`, a string `content`) whether the name arrives as `None` or
    /// `Some("message")`. Anything else passes through for the enforcement stage to judge.
    pub fn translate(&mut self, sse_event: Option<&str>, data: Value) -> Translated {
        let typed = data
            .get("type")
            .and_then(Value::as_str)
            .filter(|t| is_screaming_snake(t))
            .map(str::to_owned);
        match (typed, data) {
            (Some(ty), Value::Object(obj)) => {
                self.close_named_text();
                self.typed(&ty, obj);
            }
            (_, data) => match named_event(sse_event, &data) {
                Some(name) => {
                    if let Value::Object(obj) = data {
                        self.named(name, obj);
                    }
                }
                None => {
                    self.close_named_text();
                    self.emit(data);
                }
            },
        }
        std::mem::take(&mut self.out)
    }

    /// End of stream: closes the named-event text message, which that dialect never closes
    /// itself. No terminal event is invented: a truncated stream must stay truncated.
    pub fn finish(&mut self) -> Translated {
        self.close_named_text();
        std::mem::take(&mut self.out)
    }

    // ---- type-addressed dialects: THINKING_*, 0.1.0 draft, RUN_ERROR{error}, Super-Goose ----

    fn typed(&mut self, ty: &str, obj: Obj) {
        match ty {
            "THINKING_START"
            | "THINKING_END"
            | "THINKING_TEXT_MESSAGE_START"
            | "THINKING_TEXT_MESSAGE_CONTENT"
            | "THINKING_TEXT_MESSAGE_END" => self.thinking(ty, obj),
            "RUN_STARTED"
                if !has(&obj, "threadId") || !has(&obj, "runId") || has(&obj, "agentId") =>
            {
                self.run_started(obj)
            }
            "RUN_FINISHED"
                if !has(&obj, "threadId")
                    || !has(&obj, "runId")
                    || has(&obj, "status")
                    || obj.get("usage").is_some_and(Value::is_object) =>
            {
                self.run_finished(obj)
            }
            "RUN_ERROR"
                if (!has(&obj, "message") && has(&obj, "error"))
                    || has(&obj, "threadId")
                    || has(&obj, "runId") =>
            {
                self.run_error(obj)
            }
            "ERROR" => self.draft_error(obj),
            "UI_RENDER_HINT" => self.render_hint(obj),
            "TOOL_CALL_START"
                if has(&obj, "args") || (has(&obj, "toolName") && !has(&obj, "toolCallName")) =>
            {
                self.tool_call_start(obj)
            }
            "TOOL_CALL_ARGS" if has(&obj, "args") && !has(&obj, "delta") => {
                self.rename(obj, "args", "delta", "args instead of delta", text_or_json)
            }
            "TEXT_MESSAGE_CONTENT" if has(&obj, "content") && !has(&obj, "delta") => {
                self.rename(obj, "content", "delta", "content instead of delta", |v| v)
            }
            "RAW" if has(&obj, "payload") && !has(&obj, "event") => {
                self.rename(obj, "payload", "event", "payload instead of event", |v| v)
            }
            "TOOL_CALL_RESULT"
                if !has(&obj, "messageId")
                    || (has(&obj, "result") && !has(&obj, "content"))
                    || has(&obj, "isError") =>
            {
                self.tool_call_result(obj)
            }
            "REASONING_START"
            | "REASONING_END"
            | "REASONING_MESSAGE_START"
            | "REASONING_MESSAGE_CONTENT"
            | "REASONING_MESSAGE_END" => self.reasoning_ids(ty, obj),
            "REASONING_ENCRYPTED_VALUE"
                if has(&obj, "ciphertext") && !has(&obj, "encryptedValue") =>
            {
                self.encrypted_value(obj)
            }
            "ACTIVITY_SNAPSHOT"
                if obj.get("activities").is_some_and(Value::is_array)
                    && !has(&obj, "messageId") =>
            {
                self.activities(obj)
            }
            _ => self.emit(Value::Object(obj)),
        }
    }

    /// Retired THINKING_* map 1:1 onto REASONING_*; only the ids are new. No `rawEvent`: the
    /// original adds nothing but its type name, which the warning already reports, and would
    /// double every reasoning delta in the inspector. `title` has no 1.1 field and is kept as
    /// `metadata.title`.
    fn thinking(&mut self, ty: &str, mut rest: Obj) {
        rest.shift_remove("type");
        rest.shift_remove("messageId");
        let (target, id, role) = match ty {
            "THINKING_START" => {
                if let Some(title) = take(&mut rest, "title") {
                    add_metadata(&mut rest, "title", title);
                }
                let id = self.mint("reasoning");
                self.thinking_span = Some(id.clone());
                ("REASONING_START", id, None)
            }
            "THINKING_END" => {
                let id = self
                    .thinking_span
                    .take()
                    .unwrap_or_else(|| self.mint("reasoning"));
                ("REASONING_END", id, None)
            }
            "THINKING_TEXT_MESSAGE_START" => {
                rest.shift_remove("role");
                let id = self.mint("reasoning-msg");
                self.thinking_message = Some(id.clone());
                (
                    "REASONING_MESSAGE_START",
                    id,
                    Some(Value::from("reasoning")),
                )
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                let id = match &self.thinking_message {
                    Some(id) => id.clone(),
                    None => self.mint("reasoning-msg"),
                };
                ("REASONING_MESSAGE_CONTENT", id, None)
            }
            _ => {
                let id = self
                    .thinking_message
                    .take()
                    .unwrap_or_else(|| self.mint("reasoning-msg"));
                ("REASONING_MESSAGE_END", id, None)
            }
        };
        self.warn(format!("translated retired {ty} into {target}"));
        let ev = build(
            target,
            [("messageId", Some(id.into())), ("role", role)],
            rest,
        );
        self.emit(Value::Object(ev));
    }

    /// 0.1.0 `RUN_STARTED{runId, agentId}`: 1.1 requires `threadId`; `agentId` has no 1.1 field
    /// and is kept as `metadata.agentId` so the UI can still name the agent.
    fn run_started(&mut self, obj: Obj) {
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
    fn run_finished(&mut self, obj: Obj) {
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
    fn run_error(&mut self, obj: Obj) {
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
    fn draft_error(&mut self, obj: Obj) {
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
    fn render_hint(&mut self, obj: Obj) {
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
    fn tool_call_start(&mut self, obj: Obj) {
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
    fn tool_call_result(&mut self, obj: Obj) {
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

    /// Super-Goose sends reasoning events without ids (and REASONING_MESSAGE_START without
    /// role). Openers get a fresh id; continuations get the innermost open one. A continuation
    /// with nothing open is left alone: inventing an id would hide the producer's error.
    fn reasoning_ids(&mut self, ty: &str, obj: Obj) {
        let missing_id = !has(&obj, "messageId");
        let missing_role = ty == "REASONING_MESSAGE_START" && !has(&obj, "role");
        let id = if !missing_id {
            None
        } else {
            match ty {
                "REASONING_START" => Some(self.mint("reasoning")),
                "REASONING_MESSAGE_START" => Some(self.mint("reasoning-msg")),
                "REASONING_END" => self.open_spans.last().cloned(),
                _ => self.open_reasoning_messages.last().cloned(),
            }
        };
        if id.is_none() && !missing_role {
            return self.emit(Value::Object(obj));
        }
        let mut changes = Vec::new();
        if id.is_some() {
            changes.push("no messageId");
        }
        if missing_role {
            changes.push("no role");
        }
        self.warn_shape(ty, &changes.join(", "));
        let mut rest = without_type(&obj);
        let id = id.map(Value::from).or_else(|| take(&mut rest, "messageId"));
        let role = missing_role.then(|| Value::from("reasoning"));
        let ev = build(ty, [("messageId", id), ("role", role)], rest);
        self.emit(with_raw(ev, obj));
    }

    /// Super-Goose `REASONING_ENCRYPTED_VALUE{ciphertext}` names neither what it encrypts nor
    /// which entity: reasoning is what the event family is about, so it is taken to belong to
    /// the most recent reasoning message (if none is known, `entityId` stays absent).
    fn encrypted_value(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let value = take(&mut rest, "ciphertext");
        let subtype = take(&mut rest, "subtype").unwrap_or_else(|| "message".into());
        let entity = take(&mut rest, "entityId")
            .or_else(|| self.last_reasoning_message.clone().map(Value::from));
        self.warn_shape(
            "REASONING_ENCRYPTED_VALUE",
            "ciphertext instead of encryptedValue",
        );
        let ev = build(
            "REASONING_ENCRYPTED_VALUE",
            [
                ("subtype", Some(subtype)),
                ("entityId", entity),
                ("encryptedValue", value),
            ],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// Super-Goose `ACTIVITY_SNAPSHOT{activities:[…]}` snapshots every activity at once; 1.1
    /// snapshots one activity message per event, so it becomes one event per element. The
    /// element's shape is not documented: `id`/`messageId`, `activityType`/`type`/`kind` and an
    /// object `content` are used when present, otherwise the element's other fields are the
    /// content.
    fn activities(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let list = match rest.shift_remove("activities") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        self.warn_shape("ACTIVITY_SNAPSHOT", "an activities array");
        let mut raw = Some(obj);
        for activity in list {
            let Value::Object(mut activity) = activity else {
                self.warn("dropped an ACTIVITY_SNAPSHOT activity that is not an object".into());
                continue;
            };
            let id = take(&mut activity, "messageId")
                .or_else(|| take(&mut activity, "id"))
                .unwrap_or_else(|| self.mint("activity").into());
            let kind = take(&mut activity, "activityType")
                .or_else(|| take(&mut activity, "type"))
                .or_else(|| take(&mut activity, "kind"))
                .unwrap_or_else(|| "activity".into());
            let replace = take(&mut activity, "replace");
            let content = match activity.shift_remove("content") {
                Some(Value::Object(content)) => content,
                Some(other) => {
                    activity.insert("content".into(), other);
                    activity
                }
                None => activity,
            };
            let ev = build(
                "ACTIVITY_SNAPSHOT",
                [
                    ("messageId", Some(id)),
                    ("activityType", Some(kind)),
                    ("content", Some(Value::Object(content))),
                    ("replace", replace),
                ],
                rest.clone(),
            );
            // The original rides on the first event only; copying it onto each would multiply
            // the whole snapshot by the number of activities.
            match raw.take() {
                Some(raw) => self.emit(with_raw(ev, raw)),
                None => self.emit(Value::Object(ev)),
            }
        }
    }

    /// Field renames that change nothing else (Super-Goose `content`/`args`, `RAW{payload}`).
    fn rename(&mut self, obj: Obj, from: &str, to: &str, what: &str, convert: fn(Value) -> Value) {
        let ty = obj
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        self.warn_shape(&ty, what);
        let mut ev = Obj::new();
        for (key, value) in &obj {
            if key == from {
                ev.insert(to.into(), convert(value.clone()));
            } else {
                ev.insert(key.clone(), value.clone());
            }
        }
        self.emit(with_raw(ev, obj));
    }

    // ---- named-SSE-event dialect ----

    fn named(&mut self, name: &'static str, obj: Obj) {
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

    fn close_named_text(&mut self) {
        if let Some(text) = self.named_text.take() {
            let ev = build(
                "TEXT_MESSAGE_END",
                [("messageId", Some(text.id.into()))],
                Obj::new(),
            );
            self.emit(Value::Object(ev));
        }
    }

    // ---- bookkeeping ----

    /// Every event leaves through here, translated or not, so the state that later
    /// translations rely on (open run, open reasoning) reflects 1.1 events too.
    fn emit(&mut self, ev: Value) {
        if let Some(obj) = ev.as_object() {
            let id = obj
                .get("messageId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            match obj.get("type").and_then(Value::as_str).unwrap_or("") {
                "RUN_STARTED" => {
                    self.run_open = true;
                    self.run_thread = obj
                        .get("threadId")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.run_id = obj.get("runId").and_then(Value::as_str).map(str::to_owned);
                    if self.run_thread.is_some() {
                        self.thread_id = self.run_thread.clone();
                    }
                    if self.run_id.is_some() && self.run_id == self.given_run_id {
                        self.given_run_id_used = true;
                    }
                }
                "RUN_FINISHED" | "RUN_ERROR" => {
                    self.run_open = false;
                    self.open_spans.clear();
                    self.open_reasoning_messages.clear();
                    self.thinking_span = None;
                    self.thinking_message = None;
                }
                "REASONING_START" => self.open_spans.extend(id),
                "REASONING_END" => self.open_spans.retain(|s| Some(s) != id.as_ref()),
                "REASONING_MESSAGE_START" => {
                    self.open_reasoning_messages.extend(id.clone());
                    self.last_reasoning_message = id.or(self.last_reasoning_message.take());
                }
                "REASONING_MESSAGE_CHUNK" if id.is_some() => self.last_reasoning_message = id,
                "REASONING_MESSAGE_END" => self
                    .open_reasoning_messages
                    .retain(|m| Some(m) != id.as_ref()),
                _ => {}
            }
        }
        self.out.events.push(ev);
    }

    fn warn(&mut self, warning: String) {
        if self.warned.insert(warning.clone()) {
            self.out.warnings.push(warning);
        }
    }

    fn warn_shape(&mut self, ty: &str, what: &str) {
        self.warn(format!(
            "translated off-spec {ty} ({what}) into its AG-UI 1.1 shape"
        ));
    }

    /// Ids are `{run}-{prefix}-{n}`: deterministic, unique within the stream by the counter, and
    /// unique within the thread by the run id (1.1 message ids must be unique across a thread's
    /// runs, and every stream would otherwise mint the same `msg-1`).
    fn mint(&mut self, prefix: &str) -> String {
        self.counter += 1;
        let scope = if self.run_open {
            self.run_id.as_ref()
        } else {
            self.given_run_id.as_ref()
        };
        match scope {
            Some(run) => format!("{run}-{prefix}-{}", self.counter),
            None => format!("{prefix}-{}", self.counter),
        }
    }

    fn thread_for_new_run(&mut self, hint: Option<String>) -> String {
        if let Some(thread) = hint.or_else(|| self.thread_id.clone()) {
            return thread;
        }
        self.counter += 1;
        let thread = format!("thread-{}", self.counter);
        self.thread_id = Some(thread.clone());
        thread
    }

    fn fresh_run_id(&mut self) -> String {
        match &self.given_run_id {
            Some(run) if !self.given_run_id_used => {
                self.given_run_id_used = true;
                run.clone()
            }
            _ => {
                self.counter += 1;
                format!("run-{}", self.counter)
            }
        }
    }

    fn current_thread(&mut self) -> String {
        match self.run_thread.clone() {
            Some(thread) => thread,
            None => self.thread_for_new_run(None),
        }
    }

    fn current_run(&mut self) -> String {
        match self.run_id.clone() {
            Some(run) => run,
            None => self.fresh_run_id(),
        }
    }
}

/// Which named-event-dialect event a frame is, if any.
fn named_event(sse_event: Option<&str>, data: &Value) -> Option<&'static str> {
    let obj = data.as_object()?;
    match sse_event {
        None | Some("message") => (!obj.contains_key("type")
            && obj.get("content").is_some_and(Value::is_string))
        .then_some("message"),
        Some(name) => NAMED_EVENTS.iter().find(|n| **n == name).copied(),
    }
}

/// Event types are SCREAMING_SNAKE_CASE in every AG-UI version; the named-event dialect's
/// payload `type` values (`start`, `error`…) are lowercase, which is what tells them apart.
fn is_screaming_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Present and not `null`: pre-1.0 producers send `null` for absent fields.
fn has(obj: &Obj, key: &str) -> bool {
    obj.get(key).is_some_and(|v| !v.is_null())
}

fn take(obj: &mut Obj, key: &str) -> Option<Value> {
    obj.shift_remove(key).filter(|v| !v.is_null())
}

fn as_string(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

fn without_type(obj: &Obj) -> Obj {
    let mut rest = obj.clone();
    rest.shift_remove("type");
    rest
}

fn base_only(obj: &Obj) -> Obj {
    BASE_FIELDS
        .iter()
        .filter_map(|k| obj.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect()
}

/// `type` first, then the event's own fields, then whatever the source carried besides (base
/// fields, and unknown fields for the enforcement stage to strip with its usual warning).
fn build<'a>(
    ty: &str,
    fields: impl IntoIterator<Item = (&'a str, Option<Value>)>,
    rest: Obj,
) -> Obj {
    let mut ev = Obj::new();
    ev.insert("type".into(), ty.into());
    for (key, value) in fields {
        if let Some(value) = value {
            ev.insert(key.into(), value);
        }
    }
    for (key, value) in rest {
        if key != "type" {
            ev.entry(key).or_insert(value);
        }
    }
    ev
}

fn with_raw(mut ev: Obj, raw: impl Into<Value>) -> Value {
    ev.insert("rawEvent".into(), raw.into());
    Value::Object(ev)
}

/// Adds `key` to the event's metadata without overriding what the producer put there; a
/// malformed (non-object) metadata is left for the enforcement stage to reject.
fn add_metadata(obj: &mut Obj, key: &str, value: Value) {
    if let Value::Object(meta) = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Obj::new()))
    {
        meta.entry(key).or_insert(value);
    }
}

fn text_or_json(v: Value) -> Value {
    match v {
        Value::String(_) => v,
        other => other.to_string().into(),
    }
}

fn error_text(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Object(ref o) if o.get("message").is_some_and(Value::is_string) => {
            o["message"].as_str().unwrap_or_default().to_owned()
        }
        other => other.to_string(),
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

#[cfg(test)]
mod tests;
