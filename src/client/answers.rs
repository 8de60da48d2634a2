//! How the user's human-in-the-loop answers are written: a frontend tool's `tool` message
//! content, and the `resume` entries answering interrupts.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::protocol::types::{Interrupt, ResumeEntry, ResumeStatus};

/// The `tool` message content that answers a frontend tool: approved or not, the arguments it
/// ran with, and `"edited": true` when the user changed them (the transcript's badge says so).
pub fn frontend_tool_answer(approved: bool, edited: Option<Value>, args: &Value) -> String {
    let mut v = json!({ "approved": approved });
    if approved {
        let changed = edited.as_ref().is_some_and(|e| e != args);
        v["arguments"] = edited.unwrap_or_else(|| args.clone());
        if changed {
            v["edited"] = json!(true);
        }
    }
    v.to_string()
}

/// The `resume` entries answering interrupts: every pending interrupt must be covered, so the
/// ones the user did not answer are cancelled.
pub fn resume_entries(
    interrupts: &[Interrupt],
    answers: &HashMap<String, Value>,
) -> Vec<ResumeEntry> {
    interrupts
        .iter()
        .map(|i| match answers.get(&i.id) {
            Some(payload) => ResumeEntry {
                interrupt_id: i.id.clone(),
                status: ResumeStatus::Resolved,
                payload: Some(payload.clone()),
                metadata: None,
            },
            None => ResumeEntry {
                interrupt_id: i.id.clone(),
                status: ResumeStatus::Cancelled,
                payload: None,
                metadata: None,
            },
        })
        .collect()
}
