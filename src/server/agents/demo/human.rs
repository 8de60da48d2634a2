//! Human-in-the-loop scenarios: a frontend tool the app answers in the next run (`hitl`), an
//! interrupt answered by the next run's `resume` (`interrupt`, in [`interrupt`]), and an
//! in-stream approval that keeps the stream open until a human answers (`approval`).

use serde_json::{json, Value};

use crate::protocol::types::{Message, RunOutcome};
use futures::future::BoxFuture;

use crate::server::agents::{AgentError, Resume, RunContext, RunEnd};

use super::text::{last_user_text, stream_text};
use super::tools::{after_word, emit_tool_call, emit_tool_result};

mod interrupt;
pub use interrupt::interrupt;

/// Frontend tools this scenario prefers when the app offers them.
const HITL_TOOLS: [&str; 2] = ["generate_task_steps", "confirm_action"];

const HITL_STEPS: [&str; 6] = [
    "Check the launch window",
    "Pack the pressure suits",
    "Fuel the rocket",
    "Run the pre-flight checklist",
    "Say goodbye to Earth",
    "Launch",
];

/// The frontend tool to call: a preferred one, else the first offered, else the Dojo's name.
fn hitl_tool(ctx: &RunContext) -> String {
    let tools = &ctx.input.tools;
    HITL_TOOLS
        .iter()
        .find(|n| tools.iter().any(|t| t.name == **n))
        .map(|n| n.to_string())
        .or_else(|| tools.first().map(|t| t.name.clone()))
        .unwrap_or_else(|| HITL_TOOLS[0].to_string())
}

/// The last message, if it is the app's answer to one of this scenario's calls: (content,
/// error).
fn hitl_answer(ctx: &RunContext, tool: &str) -> Option<(String, Option<String>)> {
    let Some(Message::Tool(t)) = ctx.input.messages.last() else {
        return None;
    };
    let ours = ctx.input.messages.iter().any(|m| match m {
        Message::Assistant(a) => a.tool_calls.iter().flatten().any(|tc| {
            tc.id == t.tool_call_id
                && (tc.function.name == tool || HITL_TOOLS.contains(&tc.function.name.as_str()))
        }),
        _ => false,
    });
    ours.then(|| (t.content.text(), t.error.clone()))
}

pub async fn hitl(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let tool = hitl_tool(ctx);
    if let Some((content, error)) = hitl_answer(ctx, &tool) {
        let reply = match error {
            Some(e) => format!("Your app could not run `{tool}`: {e}. Nothing else to do."),
            None => describe_choice(&content),
        };
        stream_text(ctx, &reply).await?;
        return Ok(RunEnd::success());
    }
    let text = last_user_text(ctx).unwrap_or_default();
    let task = Some(after_word(&text, "hitl"))
        .filter(|t| !t.is_empty())
        .unwrap_or("a trip to Mars");
    let intro = format!("Here is a plan for “{task}”. Review the steps, switch off any you do not want, and confirm; I will continue with your choice.");
    let intro = stream_text(ctx, &intro).await?;
    let call = ctx.new_id("call");
    let steps: Vec<Value> = HITL_STEPS
        .iter()
        .map(|d| json!({"description": d, "status": "enabled"}))
        .collect();
    // Small pieces, like the Dojo's human_in_the_loop: the app renders the list as it grows.
    emit_tool_call(ctx, &call, &tool, Some(&intro), &json!({"steps": steps}), 6).await?;
    Ok(RunEnd {
        outcome: Some(RunOutcome::Success {
            pending_tool_call_ids: Some(vec![call]),
        }),
        ..RunEnd::default()
    })
}

/// Words for the app's answer to the frontend tool (a step list, a yes/no, or free text).
fn describe_choice(content: &str) -> String {
    let v: Value = serde_json::from_str(content).unwrap_or(Value::String(content.into()));
    // An app may answer with the (possibly edited) arguments at the top level or under
    // `arguments` next to its `approved` flag.
    let steps = v
        .get("steps")
        .or_else(|| v.pointer("/arguments/steps"))
        .and_then(Value::as_array);
    let rejected = v.get("approved").and_then(Value::as_bool) == Some(false);
    if let Some(steps) = steps.filter(|_| !rejected) {
        let chosen: Vec<&str> = steps
            .iter()
            .filter(|s| s.get("status").and_then(Value::as_str) != Some("disabled"))
            .filter_map(|s| s.get("description").and_then(Value::as_str))
            .collect();
        if chosen.is_empty() {
            return "You switched off every step, so I will not do anything.".into();
        }
        let list: String = chosen
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}\n", i + 1))
            .collect();
        return format!(
            "The steps you confirmed:\n\n{list}\nI will go ahead with these {} steps.",
            chosen.len()
        );
    }
    match v
        .get("confirmed")
        .or_else(|| v.get("approved"))
        .and_then(Value::as_bool)
    {
        Some(true) => "You chose: confirm. Going ahead.".into(),
        Some(false) => "You chose: cancel. Nothing was done.".into(),
        None => format!(
            "You chose: {}",
            v.as_str().map_or_else(|| v.to_string(), str::to_string)
        ),
    }
}

/// Read a human's answer leniently: a boolean, `{"approved": …}`, `{"content"|"result": …}`,
/// JSON inside a string, or words ("yes", "approved" — but not "not approved").
pub(super) fn is_approved(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner) if !inner.is_string() => is_approved(&inner),
            _ => {
                let lower = s.to_lowercase();
                let words: Vec<&str> = lower
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .collect();
                let negative = |w: &&str| {
                    matches!(*w, "no" | "not" | "false" | "deny" | "denied" | "n")
                        || ["reject", "disapprov", "unapprov", "declin"]
                            .iter()
                            .any(|p| w.starts_with(p))
                };
                let positive =
                    |w: &&str| matches!(*w, "approved" | "approve" | "true" | "yes" | "y" | "ok");
                !words.iter().any(negative) && words.iter().any(positive)
            }
        },
        Value::Object(o) => [
            "approved", "approve", "content", "result", "answer", "value",
        ]
        .iter()
        .find_map(|k| o.get(*k))
        .is_some_and(is_approved),
        _ => false,
    }
}

pub async fn approval(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let call = request_approval(ctx).await?;
    // The stream stays open until POST /api/ag-ui/tool-result answers, the run is aborted, or
    // the timeout turns into RUN_ERROR APPROVAL_TIMEOUT. The run parks meanwhile: this step
    // ends, and a run waiting on a human (possibly ten thousand of them) holds only the call's
    // id and the wait.
    ctx.park(&call.clone(), Box::new(AfterApproval { call }))
}

/// What the approval scenario goes on with once the human answered: the call's id.
struct AfterApproval {
    call: String,
}

impl Resume for AfterApproval {
    fn resume<'a>(
        self: Box<Self>,
        ctx: &'a mut RunContext,
        answer: Value,
    ) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        Box::pin(async move { after_approval(ctx, &self.call, answer).await })
    }
}

/// The approval scenario up to its wait: the intro, then the `request_approval` call (its id).
async fn request_approval(ctx: &mut RunContext) -> Result<String, AgentError> {
    let intro = stream_text(
        ctx,
        "Build 1.4.2 passed every check. Deploying it to production needs your approval.",
    )
    .await?;
    let call = ctx.new_id("call");
    let args = json!({
        "action": "Deploy build 1.4.2 to production",
        "risk_level": "high",
        "details": "Rolls out to all regions; about 2 minutes of elevated latency while caches warm."
    });
    // Accept an answer from the moment the call exists, even before its end reaches the client.
    ctx.expect_tool_result(&call);
    emit_tool_call(ctx, &call, "request_approval", Some(&intro), &args, 12).await?;
    Ok(call)
}

/// The approval scenario once the human answered.
async fn after_approval(
    ctx: &mut RunContext,
    call: &str,
    answer: Value,
) -> Result<RunEnd, AgentError> {
    let approved = is_approved(&answer);
    // Approve-with-edits: the app may send replacement arguments along with its yes.
    let edited = answer
        .get("editedArgs")
        .filter(|e| approved && e.is_object())
        .cloned();
    let mut result = json!({"approved": approved});
    if let Some(e) = &edited {
        result["editedArgs"] = e.clone();
    }
    emit_tool_result(ctx, call, &result).await?;
    let progress = "\n\n- artifacts uploaded ✓\n- database migrated ✓\n- traffic switched to 1.4.2 ✓\n\nBuild 1.4.2 is live.";
    let text = match (&edited, approved) {
        (Some(e), _) => {
            let action = e
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("Deploy build 1.4.2");
            format!("Approved with your edits — {action}…{progress}")
        }
        (None, true) => format!("Approved — deploying build 1.4.2…{progress}"),
        (None, false) => "Rejected — nothing was deployed.".to_string(),
    };
    stream_text(ctx, &text).await?;
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests;
