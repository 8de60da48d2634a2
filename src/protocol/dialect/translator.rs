//! The translator's state: what a stream's dialect leaves implicit (the open thinking span,
//! the named-event text message, the run a bare `RUN_FINISHED` belongs to). Each dialect's file
//! adds its methods; `mod.rs` dispatches frames to them.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// `CUSTOM.name` that carries a 0.1.0 `UI_RENDER_HINT`; its `value` is `{component, props}`.
pub const RENDER_HINT_CUSTOM_NAME: &str = "ui_render_hint";

pub(super) type Obj = Map<String, Value>;

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
    pub(super) thread_id: Option<String>,
    /// Run id from `with_ids`; the first run the stream leaves unnamed gets it.
    pub(super) given_run_id: Option<String>,
    pub(super) given_run_id_used: bool,
    /// Ids of the most recent `RUN_STARTED` on the output, open or not.
    pub(super) run_thread: Option<String>,
    pub(super) run_id: Option<String>,
    pub(super) run_open: bool,
    pub(super) counter: u64,
    /// Warnings already given; each distinct one is given once per stream.
    pub(super) warned: BTreeSet<String>,
    pub(super) thinking_span: Option<String>,
    pub(super) thinking_message: Option<String>,
    pub(super) open_spans: Vec<String>,
    pub(super) open_reasoning_messages: Vec<String>,
    pub(super) last_reasoning_message: Option<String>,
    pub(super) named_text: Option<NamedText>,
    pub(super) out: Translated,
}

/// The named-event dialect streams text as bare `message` events; this is the 1.1 message they
/// are being gathered into.
#[derive(Debug, Clone)]
pub(super) struct NamedText {
    pub(super) id: String,
    pub(super) agent: Option<String>,
}
