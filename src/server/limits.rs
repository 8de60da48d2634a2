//! What one request, run or user may claim, and the checks a run request passes before anything
//! is allocated for it: ids, message count and the size and depth of its state. Every bound is a
//! flag (`agui-studio --help`); each refusal is a 4xx JSON error naming the limit.

use crate::protocol::limits::{check_json, JsonLimits, LimitError};
use crate::protocol::types::{Message, RunAgentInput};

use super::config::ServeArgs;
use super::error::ApiError;

/// The configured bounds.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_id_bytes: usize,
    pub max_messages: usize,
    pub max_state_bytes: usize,
    pub max_json_depth: usize,
    pub max_run_events: u64,
    pub max_runs: usize,
    pub max_runs_per_user: usize,
    pub max_observers_per_user: usize,
    pub idle_threads_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_id_bytes: 256,
            max_messages: 10_000,
            max_state_bytes: 4 * 1024 * 1024,
            max_json_depth: 64,
            max_run_events: 1_000_000,
            max_runs: 256,
            max_runs_per_user: 32,
            max_observers_per_user: 64,
            idle_threads_bytes: 64 * 1024 * 1024,
        }
    }
}

impl Limits {
    pub fn from_args(args: &ServeArgs) -> Self {
        Limits {
            max_id_bytes: args.max_id_bytes.max(1),
            max_messages: args.max_messages.max(1),
            max_state_bytes: args.max_state_bytes.max(2),
            max_json_depth: args.max_json_depth.max(2),
            max_run_events: args.max_run_events.max(16),
            max_runs: args.max_runs.max(1),
            max_runs_per_user: args.max_runs_per_user.max(1),
            max_observers_per_user: args.max_observers_per_user.max(1),
            idle_threads_bytes: args.idle_threads_bytes,
        }
    }

    /// The bounds of a thread's shared state (in requests and after an agent's patches).
    pub fn state(&self) -> JsonLimits {
        JsonLimits {
            max_depth: self.max_json_depth,
            max_bytes: self.max_state_bytes,
        }
    }

    /// A thread or run id: it names rows, URLs (`/api/runs/{id}`) and is copied into events, so
    /// it is short and made of URL-safe characters.
    pub fn check_key(&self, what: &str, id: &str) -> Result<(), ApiError> {
        if id.is_empty() || id.len() > self.max_id_bytes {
            return Err(ApiError::InvalidId(format!(
                "{what} must be 1 to {} bytes long (it is {})",
                self.max_id_bytes,
                id.len()
            )));
        }
        if let Some(c) = id.chars().find(|c| !is_key_char(*c)) {
            return Err(ApiError::InvalidId(format!(
                "{what} contains {c:?}; ids are made of A-Z a-z 0-9 and - _ . : ~ @ + ="
            )));
        }
        Ok(())
    }

    /// A message or tool call id: any visible characters (ids from foreign frameworks vary),
    /// bounded in length.
    pub fn check_item_id(&self, what: &str, id: &str) -> Result<(), ApiError> {
        if id.len() > self.max_id_bytes {
            return Err(ApiError::InvalidId(format!(
                "{what} is {} bytes long; the limit is {}",
                id.len(),
                self.max_id_bytes
            )));
        }
        if id.chars().any(char::is_control) {
            return Err(ApiError::InvalidId(format!(
                "{what} contains control characters"
            )));
        }
        Ok(())
    }

    /// Everything a run request is checked for before a run starts.
    pub fn check_run_input(&self, input: &RunAgentInput) -> Result<(), ApiError> {
        self.check_key("threadId", &input.thread_id)?;
        self.check_key("runId", &input.run_id)?;
        if let Some(p) = &input.parent_run_id {
            self.check_key("parentRunId", p)?;
        }
        let refuse = |what: &str, e: LimitError| match e {
            LimitError::TooDeep { .. } => ApiError::TooDeep(format!("{what} is {e}")),
            LimitError::TooLarge { .. } => ApiError::TooLarge(format!("{what} is {e}")),
        };
        check_json(&input.state, &self.state()).map_err(|e| refuse("state", e))?;
        // Forwarded props go to agents as they are: as deep as state may be, and no larger
        // than the body limit already made them.
        let props = JsonLimits {
            max_bytes: usize::MAX,
            ..self.state()
        };
        check_json(&input.forwarded_props, &props).map_err(|e| refuse("forwardedProps", e))?;
        if input.messages.len() > self.max_messages {
            return Err(ApiError::TooLarge(format!(
                "{} messages; the limit is {} per request",
                input.messages.len(),
                self.max_messages
            )));
        }
        for (i, m) in input.messages.iter().enumerate() {
            self.check_item_id(&format!("messages[{i}].id"), m.id())?;
            match m {
                Message::Assistant(a) => {
                    for (j, c) in a.tool_calls.iter().flatten().enumerate() {
                        self.check_item_id(&format!("messages[{i}].toolCalls[{j}].id"), &c.id)?;
                    }
                }
                Message::Tool(t) => {
                    self.check_item_id(&format!("messages[{i}].toolCallId"), &t.tool_call_id)?
                }
                _ => {}
            }
        }
        Ok(())
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '~' | '@' | '+' | '=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_state_past_the_limits_is_refused() {
        let l = Limits {
            max_state_bytes: 100,
            max_json_depth: 8,
            ..Limits::default()
        };
        let mut input: RunAgentInput = serde_json::from_value(serde_json::json!({
            "threadId": "t", "runId": "r", "messages": [], "state": {"a": "x"}
        }))
        .unwrap();
        assert!(l.check_run_input(&input).is_ok());
        input.state = serde_json::json!({ "a": "x".repeat(200) });
        assert!(matches!(
            l.check_run_input(&input),
            Err(ApiError::TooLarge(_))
        ));
        input.state = serde_json::json!([[[[[[[[[[1]]]]]]]]]]);
        assert!(matches!(
            l.check_run_input(&input),
            Err(ApiError::TooDeep(_))
        ));
        input.state = serde_json::json!({});
        input.forwarded_props = serde_json::json!([[[[[[[[[[1]]]]]]]]]]);
        assert!(matches!(
            l.check_run_input(&input),
            Err(ApiError::TooDeep(_))
        ));
    }

    #[test]
    fn keys_are_short_and_url_safe() {
        let l = Limits::default();
        assert!(l.check_key("threadId", "thread-1_a.b:c~d@e+f=").is_ok());
        assert!(l.check_key("threadId", &"a".repeat(256)).is_ok());
        assert!(l.check_key("threadId", &"a".repeat(257)).is_err());
        assert!(l.check_key("threadId", "").is_err());
        for bad in ["a/b", "a b", "a\nb", "é", "a?b", "a#b", "%2e"] {
            assert!(l.check_key("runId", bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_request_with_too_many_messages_or_a_huge_message_id_is_refused() {
        let l = Limits {
            max_messages: 2,
            ..Limits::default()
        };
        let mut input: RunAgentInput = serde_json::from_value(serde_json::json!({
            "threadId": "t", "runId": "r",
            "messages": [{"id": "m1", "role": "user", "content": "a"}]
        }))
        .unwrap();
        assert!(l.check_run_input(&input).is_ok());
        input.messages.extend(input.messages.clone());
        input.messages.extend(input.messages.clone());
        let e = l.check_run_input(&input).unwrap_err();
        assert!(matches!(e, ApiError::TooLarge(_)), "{e:?}");
        let mut input: RunAgentInput = serde_json::from_value(serde_json::json!({
            "threadId": "t", "runId": "r",
            "messages": [{"id": "x".repeat(1000), "role": "user", "content": "a"}]
        }))
        .unwrap();
        assert!(matches!(
            l.check_run_input(&input),
            Err(ApiError::InvalidId(_))
        ));
        input.messages.clear();
        input.thread_id = "t".repeat(1 << 20);
        assert!(matches!(
            l.check_run_input(&input),
            Err(ApiError::InvalidId(_))
        ));
    }
}
