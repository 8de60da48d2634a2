//! The `interrupt` scenario: the run ends with an interrupt outcome — a tool-bound approval of
//! `delete_files` (approve-with-edits welcome), or with "date" an input request answered by a
//! form; "twice" asks both at once, so one `resume` must answer the two; "expires N" makes the
//! interrupts expire N seconds later (the server refuses an expired answer). The next run's
//! `resume` answers them.

use serde_json::{json, Value};

use super::super::text::{last_user_text, stream_text};
use super::super::tools::{emit_tool_call, emit_tool_result};
use super::is_approved;
use crate::protocol::interrupts::format_rfc3339_ms;
use crate::protocol::types::{Interrupt, Message, ResumeStatus, RunOutcome};
use crate::server::agents::{AgentError, RunContext, RunEnd};
use crate::server::clock::now_ms;

const DELETE_PATHS: [&str; 2] = ["/tmp/demo/a.log", "/tmp/demo/b.log"];

/// Interrupt ids: `int-<toolCallId>` for the tool-bound one, `int-date-<runId>` for the input
/// request; the resumed run finds what to answer from the id alone.
const DATE_PREFIX: &str = "int-date-";

pub async fn interrupt(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let ours: Vec<_> = ctx
        .input
        .resume
        .iter()
        .flatten()
        .filter(|e| e.interrupt_id.starts_with("int-"))
        .cloned()
        .collect();
    if !ours.is_empty() {
        for entry in ours {
            let payload = entry.payload.clone().unwrap_or(Value::Null);
            let cancelled = entry.status == ResumeStatus::Cancelled;
            match entry.interrupt_id.strip_prefix(DATE_PREFIX) {
                Some(_) => resume_date(ctx, cancelled, &payload).await?,
                None => {
                    let call = entry.interrupt_id["int-".len()..].to_string();
                    resume_delete(ctx, &call, cancelled, &payload).await?
                }
            }
        }
        return Ok(RunEnd::success());
    }
    let text = last_user_text(ctx).unwrap_or_default().to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let expires_at = expiry(&words);
    let twice = words.contains(&"twice");
    let mut open = Vec::new();
    if twice || words.contains(&"date") {
        stream_text(ctx, "I can schedule the report, but I need a date first.").await?;
        let schema = json!({"type": "object", "properties": {"date": {"type": "string", "format": "date", "title": "Report date"}}, "required": ["date"]});
        open.push(Interrupt {
            id: format!("{DATE_PREFIX}{}", ctx.run_id()),
            reason: "input_required".into(),
            message: Some("Which date should the report cover?".into()),
            tool_call_id: None,
            response_schema: schema.as_object().cloned(),
            expires_at: expires_at.clone(),
            metadata: None,
            subagent_run_id: None,
        });
        if !twice {
            return Ok(interrupted(open));
        }
    }
    let intro = stream_text(ctx, "Cleaning up: I want to delete two log files. This cannot be undone, so I need your approval.").await?;
    let call = ctx.new_id("call");
    emit_tool_call(
        ctx,
        &call,
        "delete_files",
        Some(&intro),
        &json!({"paths": DELETE_PATHS}),
        10,
    )
    .await?;
    let schema = json!({"type": "object", "properties": {"approved": {"type": "boolean", "title": "Approve"}, "editedArgs": {"type": "object"}}, "required": ["approved"]});
    open.push(Interrupt {
        id: format!("int-{call}"),
        reason: "tool_call".into(),
        message: Some("Delete 2 files?".into()),
        tool_call_id: Some(call),
        response_schema: schema.as_object().cloned(),
        expires_at,
        metadata: json!({"risk": "high"}).as_object().cloned(),
        subagent_run_id: None,
    });
    Ok(interrupted(open))
}

/// `expires N` in the message: the interrupts expire N seconds from now (0: at once), at most
/// a day; none without it.
fn expiry(words: &[&str]) -> Option<String> {
    let at = words.iter().position(|w| *w == "expires")?;
    let secs: i64 = words.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(60);
    Some(format_rfc3339_ms(now_ms() + secs.clamp(0, 86_400) * 1000))
}

fn interrupted(interrupts: Vec<Interrupt>) -> RunEnd {
    RunEnd {
        outcome: Some(RunOutcome::Interrupt { interrupts }),
        ..RunEnd::default()
    }
}

/// Answer the suspended `delete_files` call. Every outcome gets a TOOL_CALL_RESULT, so the
/// thread never keeps an unanswered call (a model would refuse such a history).
async fn resume_delete(
    ctx: &mut RunContext,
    call: &str,
    cancelled: bool,
    payload: &Value,
) -> Result<(), AgentError> {
    if cancelled {
        emit_tool_result(ctx, call, &json!({"status": "cancelled"})).await?;
        stream_text(ctx, "Cancelled; nothing was done.").await?;
        return Ok(());
    }
    if !payload.get("approved").is_some_and(is_approved) {
        emit_tool_result(ctx, call, &json!({"status": "rejected"})).await?;
        stream_text(ctx, "Rejected; nothing was done.").await?;
        return Ok(());
    }
    // Approve-with-edits replaces the arguments wholesale (PROTOCOL §9).
    let edited = payload.get("editedArgs").filter(|v| v.is_object());
    let args = edited.cloned().unwrap_or_else(|| original_args(ctx, call));
    let paths: Vec<String> = args
        .get("paths")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    emit_tool_result(ctx, call, &json!({"deleted": paths, "simulated": true})).await?;
    let how = if edited.is_some() {
        " with your edited arguments"
    } else {
        ""
    };
    let text = match paths.len() {
        0 => format!("Done{how}: there was nothing to delete."),
        n => format!(
            "Done{how}: deleted {n} file{} ({}). The demo only pretends; no file was touched.",
            if n == 1 { "" } else { "s" },
            paths.join(", ")
        ),
    };
    stream_text(ctx, &text).await?;
    Ok(())
}

/// The arguments the suspended call was made with, from the history the client sent back.
fn original_args(ctx: &RunContext, call: &str) -> Value {
    ctx.input
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.iter().flatten().find(|tc| tc.id == call),
            _ => None,
        })
        .and_then(|tc| serde_json::from_str(&tc.function.arguments).ok())
        .unwrap_or_else(|| json!({"paths": DELETE_PATHS}))
}

async fn resume_date(
    ctx: &mut RunContext,
    cancelled: bool,
    payload: &Value,
) -> Result<(), AgentError> {
    let text = match payload.get("date").and_then(Value::as_str) {
        _ if cancelled => "Cancelled; nothing was done.".to_string(),
        Some(d) if !d.trim().is_empty() => {
            format!("Done: the report is scheduled for {}.", d.trim())
        }
        _ => "No date was given, so nothing was scheduled.".to_string(),
    };
    stream_text(ctx, &text).await.map(|_| ())
}
