//! `background_task`: activity types no client knows in advance — a `background-task` that
//! advances by JSON Patch (title, status, progress, a growing log) and a `memory` record, in the
//! spirit of Mastra's own activity types. A client must render them as generic cards, never drop
//! them.

use serde_json::json;

use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::super::text::stream_text;
use super::super::tools::pause;
use super::{delta, snapshot};

pub(super) const TASK_ACTIVITY: &str = "background-task";
pub(super) const MEMORY_ACTIVITY: &str = "memory";

/// (progress in %, what the task logs).
pub(super) const TASK_STEPS: [(u32, &str); 4] = [
    (20, "Fetched 3 invoices"),
    (55, "Matched payments"),
    (85, "Flagged 1 mismatch"),
    (100, "Report written"),
];

pub async fn background_task(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    stream_text(ctx, "I started a reconciliation in the background and noted what I learned; both arrive as activity types your app has never heard of.").await?;
    let task = ctx.new_id("task");
    let memory = ctx.new_id("memory");
    let content = json!({"title": "Reconcile November invoices", "status": "queued", "progress": 0, "log": []});
    ctx.emit(snapshot(&task, TASK_ACTIVITY, content, Some(true)))
        .await?;
    pause(ctx).await?;
    ctx.emit(delta(
        &task,
        TASK_ACTIVITY,
        json!({"op": "replace", "path": "/status", "value": "running"}),
    ))
    .await?;
    for (i, (progress, line)) in TASK_STEPS.into_iter().enumerate() {
        pause(ctx).await?;
        ctx.emit(delta(
            &task,
            TASK_ACTIVITY,
            json!([
                {"op": "replace", "path": "/progress", "value": progress},
                {"op": "add", "path": "/log/-", "value": line}
            ]),
        ))
        .await?;
        if i == 1 {
            let note = json!({"scope": "thread", "action": "remembered",
                "entries": [{"key": "billing_contact", "value": "accounts@example.com"}]});
            ctx.emit(snapshot(&memory, MEMORY_ACTIVITY, note, Some(true)))
                .await?;
        }
    }
    ctx.emit(delta(
        &task,
        TASK_ACTIVITY,
        json!([
            {"op": "replace", "path": "/status", "value": "done"},
            {"op": "add", "path": "/result", "value": {"matched": 2, "mismatched": 1}}
        ]),
    ))
    .await?;
    ctx.emit(delta(
        &memory,
        MEMORY_ACTIVITY,
        json!({"op": "add", "path": "/entries/-", "value": {"key": "mismatch", "value": "INV-1043 paid twice"}}),
    ))
    .await?;
    stream_text(
        ctx,
        "The task is done (2 matched, 1 mismatch) and both facts are in memory.",
    )
    .await?;
    Ok(RunEnd::success())
}
