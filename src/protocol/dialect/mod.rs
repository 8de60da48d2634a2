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
//!
//! Layout: this file holds the [`Translator`] and its dispatch by event type; `bookkeeping`
//! its stream state (open run, open reasoning, minted ids, warnings); one file per dialect
//! family (`thinking`, `named`, `draft`, `super_goose`); `fields` the JSON helpers they share.

mod bookkeeping;
mod draft;
mod fields;
mod named;
mod super_goose;
mod thinking;
mod translator;

use serde_json::Value;

use fields::{has, text_or_json};
use named::named_event;

use translator::Obj;
pub use translator::{Translated, Translator, RENDER_HINT_CUSTOM_NAME};

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

    /// Whether an event with a SCREAMING_SNAKE_CASE `type` that no dialect rule rewrites (a
    /// plain 1.1 delta) would leave this translator as it is, unchanged: true unless a
    /// named-event text message is open (such an event closes it first).
    pub fn passes_typed_through(&self) -> bool {
        self.named_text.is_none()
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
}

/// Event types are SCREAMING_SNAKE_CASE in every AG-UI version; the named-event dialect's
/// payload `type` values (`start`, `error`…) are lowercase, which is what tells them apart.
fn is_screaming_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests;
