//! What the inspector says about each run: a summary (events, bytes, duration, time to the
//! first event, token usage, warnings, how it ended) and a timeline — messages, tool calls,
//! reasoning, steps, subagents and activities as bars on the run's time axis, each pointing at
//! the event that opened it. Pure, over the inspector's records.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::client::event_log::{EventRecord, Key};

/// Bars drawn at most per run (the earliest).
pub const MAX_BARS: usize = 1000;

/// One run's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStats {
    pub run_id: Arc<str>,
    pub events: usize,
    pub bytes: usize,
    /// From the first event to the last, in milliseconds.
    pub duration_ms: f64,
    /// From the request (live) or the server's start (stored) to the first event.
    pub first_event_ms: Option<f64>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub warnings: usize,
    /// `RUN_FINISHED` (with its outcome), `RUN_ERROR` (with its message), or still open.
    pub ended: String,
}

/// The runs of the records, in the order they first appear.
pub fn run_stats<'a>(records: impl Iterator<Item = &'a EventRecord>) -> Vec<RunStats> {
    let mut order: Vec<RunStats> = Vec::new();
    // Per run: its index in `order`, the earliest and the latest event time (an agent's own
    // timestamps need not increase).
    let mut at: HashMap<Arc<str>, (usize, f64, f64)> = HashMap::new();
    for r in records {
        let (i, lo, hi) = *at.entry(r.run_id.clone()).or_insert_with(|| {
            order.push(RunStats {
                run_id: r.run_id.clone(),
                events: 0,
                bytes: 0,
                duration_ms: 0.0,
                first_event_ms: (r.run_started_ms > 0.0)
                    .then(|| (r.at_ms - r.run_started_ms).max(0.0)),
                input_tokens: None,
                output_tokens: None,
                warnings: 0,
                ended: "open".into(),
            });
            (order.len() - 1, r.at_ms, r.at_ms)
        });
        let (lo, hi) = (lo.min(r.at_ms), hi.max(r.at_ms));
        at.insert(r.run_id.clone(), (i, lo, hi));
        let s = &mut order[i];
        s.events += 1;
        s.bytes += r.text.len();
        s.warnings += r.warnings.len();
        s.duration_ms = hi - lo;
        match r.type_name {
            "RUN_FINISHED" => {
                let v = r.json();
                s.ended = match v.get("outcome").and_then(outcome_name) {
                    Some(o) => format!("finished ({o})"),
                    None => "finished".into(),
                };
                add_usage(s, &v);
            }
            "RUN_ERROR" => {
                let v = r.json();
                let message = v.get("message").and_then(Value::as_str).unwrap_or("");
                s.ended = format!("error: {}", message.chars().take(80).collect::<String>());
                add_usage(s, &v);
            }
            _ => {}
        }
    }
    order
}

fn outcome_name(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("type").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

fn add_usage(s: &mut RunStats, event: &Value) {
    let Some(list) = event.get("usage").and_then(Value::as_array) else {
        return;
    };
    for u in list {
        for (field, total) in [
            ("inputTokens", &mut s.input_tokens),
            ("outputTokens", &mut s.output_tokens),
        ] {
            if let Some(n) = u.get(field).and_then(Value::as_u64) {
                *total = Some(total.unwrap_or(0).saturating_add(n));
            }
        }
    }
}

/// What a bar stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarKind {
    Message,
    ToolCall,
    Reasoning,
    Step,
    Subagent,
    Activity,
}

impl BarKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BarKind::Message => "message",
            BarKind::ToolCall => "tool call",
            BarKind::Reasoning => "reasoning",
            BarKind::Step => "step",
            BarKind::Subagent => "subagent",
            BarKind::Activity => "activity",
        }
    }
}

/// One bar: from the event that opened it to the one that closed it (or the run's last event).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub kind: BarKind,
    pub label: String,
    /// Milliseconds from the run's first event.
    pub start_ms: f64,
    pub end_ms: f64,
    /// The event that opened it.
    pub key: Key,
    /// Never closed.
    pub open: bool,
}

/// A run's timeline: its length in milliseconds and its bars, in the order they opened.
pub fn timeline<'a>(records: impl Iterator<Item = (Key, &'a EventRecord)>) -> (f64, Vec<Bar>) {
    let records: Vec<(Key, &EventRecord)> = records.collect();
    // The axis starts at the run's earliest event (an agent's own timestamps need not increase).
    let origin = records
        .iter()
        .map(|(_, r)| r.at_ms)
        .fold(f64::INFINITY, f64::min);
    let mut bars: Vec<Bar> = Vec::new();
    let mut open: HashMap<(BarKind, String), usize> = HashMap::new();
    let mut last = 0.0_f64;
    for (key, r) in records {
        let t = r.at_ms - origin;
        last = last.max(t);
        let Some((kind, opens)) = bar_event(r.type_name) else {
            continue;
        };
        let v = r.json();
        let id = |field: &str| {
            v.get(field)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (id, label) = match kind {
            BarKind::Message => (id("messageId"), format!("{} message", id("role"))),
            BarKind::ToolCall => (id("toolCallId"), id("toolCallName")),
            BarKind::Reasoning => (id("messageId"), "reasoning".into()),
            BarKind::Step => (id("stepName"), id("stepName")),
            BarKind::Subagent => (id("subagentRunId"), id("name")),
            BarKind::Activity => (id("messageId"), id("activityType")),
        };
        let slot = (kind, id);
        match (opens, open.get(&slot)) {
            // An activity's deltas extend its bar.
            (_, Some(&i)) if kind == BarKind::Activity => bars[i].end_ms = t,
            (true, _) if bars.len() < MAX_BARS => {
                open.insert(slot, bars.len());
                bars.push(Bar {
                    kind,
                    label: label.trim().to_string(),
                    start_ms: t,
                    end_ms: t,
                    key,
                    open: true,
                });
            }
            (false, Some(&i)) => {
                bars[i].end_ms = t;
                bars[i].open = false;
                open.remove(&slot);
            }
            _ => {}
        }
    }
    // What never closed lasts until the run's last event; an activity simply ends with its
    // last update.
    for ((kind, _), i) in open {
        if kind == BarKind::Activity {
            bars[i].open = false;
        } else {
            bars[i].end_ms = last;
        }
    }
    (last, bars)
}

/// The bar an event opens (`true`) or closes (`false`).
fn bar_event(type_name: &str) -> Option<(BarKind, bool)> {
    Some(match type_name {
        "TEXT_MESSAGE_START" => (BarKind::Message, true),
        "TEXT_MESSAGE_END" => (BarKind::Message, false),
        // A call lasts until its result (a frontend tool's comes in a later run).
        "TOOL_CALL_START" => (BarKind::ToolCall, true),
        "TOOL_CALL_RESULT" => (BarKind::ToolCall, false),
        "REASONING_START" => (BarKind::Reasoning, true),
        "REASONING_END" => (BarKind::Reasoning, false),
        "STEP_STARTED" => (BarKind::Step, true),
        "STEP_FINISHED" => (BarKind::Step, false),
        "SUBAGENT_STARTED" => (BarKind::Subagent, true),
        "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => (BarKind::Subagent, false),
        "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" => (BarKind::Activity, true),
        _ => return None,
    })
}

#[cfg(test)]
#[path = "run_report/tests.rs"]
mod tests;
