//! The reducer's model: the [`Conversation`] an event stream builds and what a step reports.
//! The parts of the reducer (`messages`, `runs`, `tool_calls`, `state`, `index`) add their
//! methods to it; `mod.rs` dispatches events to them.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::protocol::limits::JsonLimits;
use crate::protocol::types::{Interrupt, JsonObject, Message, RunOutcome, TokenUsage};

/// The `RUN_ERROR` code of a stream whose state (a snapshot, or the result of a delta) would be
/// past the conversation's [`JsonLimits`].
pub const STATE_LIMIT: &str = "STATE_LIMIT";

/// An event the reducer refused because applying it would pass a bound. The conversation is
/// as before the event; a consumer of a foreign stream treats this as fatal (see
/// [`Conversation::apply_checked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// A stable `RUN_ERROR` code ([`STATE_LIMIT`]).
    pub code: &'static str,
    /// Says which limit, e.g. "STATE_DELTA refused: the state would be too large (over N bytes)".
    pub message: String,
}

/// `custom_events` keeps only this many (the newest).
pub(super) const CUSTOM_LIMIT: usize = 256;
/// `render_hints` keeps only this many (the newest).
pub(super) const RENDER_HINT_LIMIT: usize = 1024;
/// A stream of broken events must not grow memory without bound.
pub(super) const WARNING_LIMIT: usize = 1024;

/// A render hint (`CUSTOM` named [`RENDER_HINT_CUSTOM_NAME`]) and where the transcript shows it:
/// after the first `position` messages, as the conversation stood when the hint arrived.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacedHint {
    /// The registered component's name; empty when the value had none (shown as JSON).
    pub component: String,
    pub props: Value,
    pub position: usize,
    /// The run that sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

impl PlacedHint {
    /// A hint from a `CUSTOM` value `{component, props}` (anything else: no component, the
    /// whole value as props).
    pub fn from_value(value: &Value, position: usize, run_id: Option<String>) -> Self {
        let (component, props) = match value.get("component").and_then(Value::as_str) {
            Some(c) => (
                c.to_string(),
                value
                    .get("props")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            ),
            None => (String::new(), value.clone()),
        };
        PlacedHint {
            component,
            props,
            position,
            run_id,
        }
    }
}

/// Where the current (or last) run stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RunStatus {
    #[default]
    Idle,
    Running {
        run_id: String,
    },
    Finished {
        run_id: String,
        outcome: Option<RunOutcome>,
    },
    Error {
        message: String,
        code: Option<String>,
    },
}

/// One subagent invocation seen in the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentRecord {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub status: SubagentStatus,
    pub parent_tool_call_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SubagentStatus {
    Running,
    Finished,
    Suspended,
    Error(String),
}

/// What one event changed, so a UI can update only that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    None,
    /// A message was inserted at `index` (later ones shifted).
    MessageAdded {
        index: usize,
    },
    /// The message at `index` changed (text, tool call, metadata, result…).
    MessageUpdated {
        index: usize,
    },
    /// Many messages changed (`MESSAGES_SNAPSHOT`; `RUN_STARTED` whose input added messages,
    /// in which case `run` changed too).
    MessagesReset,
    State,
    Run,
    Steps,
    Reasoning,
    Subagents,
    Custom,
    Raw,
}

/// The conversation an event stream builds.
///
/// Mutate `messages` only through [`Conversation::apply`]; after editing it directly, call
/// [`Conversation::reindex`] (stale lookups are detected and repaired, but not every edit is).
#[derive(Debug, Clone)]
pub struct Conversation {
    pub messages: Vec<Message>,
    pub state: Value,
    pub thread_id: Option<String>,
    pub run: RunStatus,
    /// From the last `RUN_FINISHED` with an interrupt outcome; kept across `RUN_STARTED` (the
    /// client needs them to build `resume`) unless that run's input carries `resume`.
    pub pending_interrupts: Vec<Interrupt>,
    /// From the last success outcome; answered ones are removed by `TOOL_CALL_RESULT`.
    pub pending_tool_call_ids: Vec<String>,
    /// The last successful run's result.
    pub result: Option<Value>,
    pub usage: Vec<TokenUsage>,
    /// `(subagentRunId, stepName)` currently running.
    pub active_steps: Vec<(Option<String>, String)>,
    /// Open `REASONING_START` span ids.
    pub reasoning_spans: Vec<String>,
    /// Tool calls started and not yet ended (`TOOL_CALL_END`): their arguments are still
    /// streaming. Every other call of the conversation has its arguments complete. Emptied when
    /// a run ends (nothing stays open after a run).
    pub open_tool_calls: std::collections::BTreeSet<String>,
    pub subagents: Vec<SubagentRecord>,
    /// `CUSTOM` name/value pairs in order, the newest 256.
    pub custom_events: Vec<(String, Value)>,
    /// Render hints of every run of the thread, in order (the newest 1,024); a run started
    /// again under the same id drops its earlier ones.
    pub render_hints: Vec<PlacedHint>,
    pub raw_events: usize,
    pub warnings: Vec<String>,
    /// Bounds on `state`: a `STATE_SNAPSHOT` or `STATE_DELTA` whose result would pass them is
    /// refused (also the bounds of activity content under patches).
    pub state_limits: JsonLimits,
    /// Set by the step that refused the event being applied.
    pub(super) refused: Option<Refused>,
    /// Message id → position; kept exact so deltas are O(1).
    pub(super) index: HashMap<String, usize>,
    /// Tool call id → id of the assistant message that owns it.
    pub(super) tool_owner: HashMap<String, String>,
}

impl Conversation {
    /// Give back the room the messages' vector, and the newest message's tool calls, grew
    /// beyond what they hold (a vector's first push makes room for four). For a conversation
    /// that stays in memory a long time unchanged: a server keeps the conversation of every
    /// run in progress, and a run waiting on a human keeps it for as long as the human takes
    /// (with 10,000 such runs, about 1 KB each). Costs one copy of each vector it shrinks.
    pub fn compact(&mut self) {
        self.messages.shrink_to_fit();
        if let Some(Message::Assistant(a)) = self.messages.last_mut() {
            if let Some(calls) = a.tool_calls.as_mut() {
                calls.shrink_to_fit();
            }
        }
    }
}

impl Default for Conversation {
    fn default() -> Self {
        Conversation {
            messages: Vec::new(),
            state: Value::Object(Map::new()),
            thread_id: None,
            run: RunStatus::Idle,
            pending_interrupts: Vec::new(),
            pending_tool_call_ids: Vec::new(),
            result: None,
            usage: Vec::new(),
            active_steps: Vec::new(),
            reasoning_spans: Vec::new(),
            open_tool_calls: Default::default(),
            subagents: Vec::new(),
            custom_events: Vec::new(),
            render_hints: Vec::new(),
            raw_events: 0,
            warnings: Vec::new(),
            state_limits: JsonLimits::default(),
            refused: None,
            index: HashMap::new(),
            tool_owner: HashMap::new(),
        }
    }
}

/// A reducer step: `Err` is a warning (nothing changed).
pub(super) type Step = Result<Change, String>;

impl Change {
    pub(super) fn or(self, other: Change) -> Change {
        if self == Change::None {
            other
        } else {
            self
        }
    }
}

pub(super) fn changed(did: bool, change: Change) -> Change {
    if did {
        change
    } else {
        Change::None
    }
}

/// Shallow merge: per key, last write wins; an empty object adds nothing.
pub(super) fn merge(target: &mut Option<JsonObject>, source: Option<&JsonObject>) {
    if let Some(source) = source.filter(|s| !s.is_empty()) {
        let target = target.get_or_insert_with(Map::new);
        for (k, v) in source {
            target.insert(k.clone(), v.clone());
        }
    }
}
