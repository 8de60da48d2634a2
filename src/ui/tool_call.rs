//! A tool-call card: the tool's name and status, its arguments as they stream (raw text, then
//! pretty JSON once they parse) and its result. A tool whose name is in the render-hint
//! registry, or registered in `tool_renderers`, is also drawn as a component from its parsed
//! arguments (generative UI); its JSON stays one click away.

use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::reduce::RunStatus;
use crate::protocol::types::{Message as Msg, ToolCall};
use crate::ui::render_hints::json::{json_text, nesting_within};
use crate::ui::render_hints::RenderHint;
use crate::ui::tool_renderers::tool_view;
use crate::ui::transcript::TranscriptCtx;
use crate::ui::util::truncate;

/// Arguments are parsed and shown as pretty JSON when they nest at most this deep (deeper ones
/// as text) and up to [`ARGS_BYTES`]: no recursion proportional to agent data.
const ARGS_DEPTH: usize = 32;
const ARGS_BYTES: usize = 1024 * 1024;

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    /// Its arguments are still streaming.
    StreamingArgs,
    /// Its arguments are complete; the run is executing it.
    Running,
    /// A human must approve it (or the app must run it).
    AwaitingApproval,
    /// It has a result.
    Done,
    /// Its result is an error.
    Error,
    /// The run ended without a result for it.
    NoResult,
    /// A human decided: its result says approved, approved with edits, rejected, cancelled
    /// or expired (a rejected call is never "done").
    Decided(Decision),
}

/// What a human decided about a call, as its result says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Edited,
    Rejected,
    Cancelled,
    Expired,
}

/// The decision a tool result records, if it records one: `{"approved": bool, "editedArgs"?}`
/// (this studio's answers, the official clients'), `{"status": "rejected" | "cancelled" |
/// "expired"}` (in-stream approvals), or the error of a rejected frontend tool.
pub fn decision_of(content: &str, error: Option<&str>) -> Option<Decision> {
    if error.is_some_and(|e| e.contains("rejected")) {
        return Some(Decision::Rejected);
    }
    let v: Value = serde_json::from_str(content.trim()).ok()?;
    let o = v.as_object()?;
    if let Some(approved) = o.get("approved").and_then(Value::as_bool) {
        let edited = ["editedArgs", "edited_args"]
            .iter()
            .any(|k| o.get(*k).is_some_and(|e| !e.is_null()))
            || o.get("edited") == Some(&Value::Bool(true));
        return Some(match (approved, edited) {
            (false, _) => Decision::Rejected,
            (true, true) => Decision::Edited,
            (true, false) => Decision::Approved,
        });
    }
    match o.get("status").and_then(Value::as_str)? {
        "rejected" | "denied" => Some(Decision::Rejected),
        "cancelled" | "canceled" => Some(Decision::Cancelled),
        "expired" | "timeout" | "timed_out" => Some(Decision::Expired),
        _ => None,
    }
}

impl ToolStatus {
    /// The `data-status` value and CSS modifier.
    pub fn key(self) -> &'static str {
        match self {
            ToolStatus::StreamingArgs => "streaming",
            ToolStatus::Running => "running",
            ToolStatus::AwaitingApproval => "awaiting",
            ToolStatus::Done => "done",
            ToolStatus::Error => "error",
            ToolStatus::NoResult => "no-result",
            ToolStatus::Decided(Decision::Approved) => "approved",
            ToolStatus::Decided(Decision::Edited) => "edited",
            ToolStatus::Decided(Decision::Rejected) => "rejected",
            ToolStatus::Decided(Decision::Cancelled) => "cancelled",
            ToolStatus::Decided(Decision::Expired) => "expired",
        }
    }

    /// What the badge says.
    pub fn label(self) -> &'static str {
        match self {
            ToolStatus::StreamingArgs => "streaming arguments",
            ToolStatus::Running => "running",
            ToolStatus::AwaitingApproval => "awaiting approval",
            ToolStatus::Done => "done",
            ToolStatus::Error => "error",
            ToolStatus::NoResult => "no result",
            ToolStatus::Decided(Decision::Approved) => "approved",
            ToolStatus::Decided(Decision::Edited) => "approved with edits",
            ToolStatus::Decided(Decision::Rejected) => "rejected",
            ToolStatus::Decided(Decision::Cancelled) => "cancelled",
            ToolStatus::Decided(Decision::Expired) => "expired",
        }
    }
}

/// The status of a call from what is known about it: `result` is `Some(is_error)` when a tool
/// message answers it; `args_ended` when its `TOOL_CALL_END` was seen (or, without an event
/// log, its arguments parse).
pub fn tool_status(
    run_running: bool,
    args_ended: bool,
    result: Option<bool>,
    awaiting: bool,
) -> ToolStatus {
    match result {
        Some(true) => ToolStatus::Error,
        Some(false) => ToolStatus::Done,
        None if awaiting => ToolStatus::AwaitingApproval,
        None if run_running && !args_ended => ToolStatus::StreamingArgs,
        None if run_running => ToolStatus::Running,
        None => ToolStatus::NoResult,
    }
}

/// A tool call (`role="group"`, accessible name "Tool call: <name>", `data-status` one of
/// [`ToolStatus::key`]).
#[component]
pub fn ToolCallCard(
    /// The call as it streams.
    #[prop(into)]
    call: Signal<ToolCall>,
) -> impl IntoView {
    let ctx = use_context::<TranscriptCtx>();
    let id = Memo::new(move |_| call.with(|c| c.id.clone()));
    let name = Memo::new(move |_| call.with(|c| c.function.name.clone()));
    let args_text = Memo::new(move |_| call.with(|c| c.function.arguments.clone()));
    let args: Memo<Option<Value>> = Memo::new(move |_| args_text.with(|t| parse_args(t)));

    // The tool message answering this call: found without tracking every message, then read
    // tracked, so only its own changes re-render the card.
    let result = Memo::new(move |_| {
        let ctx = ctx?;
        let id = id.get();
        let sig = ctx.agent.messages.with(|list| {
            list.iter()
                .rev()
                .find(|e| {
                    e.msg
                        .with_untracked(|m| matches!(m, Msg::Tool(t) if t.tool_call_id == id))
                })
                .map(|e| e.msg.clone())
        })?;
        sig.with(|m| match m {
            Msg::Tool(t) => Some((t.content.text(), t.error.clone())),
            _ => None,
        })
    });
    let status = Memo::new(move |_| {
        let id = id.get();
        let (running, ended, awaiting) = match ctx {
            Some(ctx) => (
                ctx.agent
                    .run
                    .with(|r| matches!(r.status, RunStatus::Running { .. })),
                ctx.agent.run.with(|r| !r.open_tool_calls.contains(&id))
                    || !ctx.agent.is_running.get(),
                ctx.agent.approvals.with(|a| {
                    a.iter()
                        .any(|x| x.id == id || x.tool_call_id.as_deref() == Some(&id))
                }) || ctx
                    .agent
                    .run
                    .with(|r| r.pending_tool_call_ids.contains(&id)),
            ),
            None => (false, args.with(Option::is_some), false),
        };
        let decided = result.with(|r| {
            r.as_ref()
                .and_then(|(content, error)| decision_of(content, error.as_deref()))
        });
        match decided {
            Some(d) => ToolStatus::Decided(d),
            None => tool_status(
                running,
                ended,
                result.with(|r| r.as_ref().map(|(_, e)| e.is_some())),
                awaiting,
            ),
        }
    });

    let args_view = move || {
        args.with(|a| {
            a.as_ref()
                .map(|v| json_text(v, true, ARGS_DEPTH, ARGS_BYTES))
        })
        .unwrap_or_else(|| args_text.get())
    };
    let result_view = move || {
        result.get().map(|(content, error)| {
            let body = parse_args(&content)
                .map(|v| json_text(&v, true, ARGS_DEPTH, ARGS_BYTES))
                .unwrap_or(content);
            view! {
                <div class="tool-section">
                    <div class="tool-section-title">"Result"</div>
                    {error.map(|e| view! { <p class="tool-error">{e}</p> })}
                    {(!body.is_empty()).then(|| view! { <pre class="code tool-result">{body}</pre> })}
                </div>
            }
        })
    };
    // Generative UI: the tool's registered renderer, else the component named like it, built
    // from its arguments (see `tool_renderers`).
    let hint = move || {
        let (component, props) = args.with(|a| tool_view(&name.get(), a.as_ref()?))?;
        Some(view! { <RenderHint component props=Signal::stored(props)/> })
    };
    // One line for the folded card: the arguments, and the result when there is one.
    let summary = move || {
        let args = args.with(|a| match a {
            Some(v @ Value::Object(o)) if !o.is_empty() => {
                truncate(&json_text(v, false, ARGS_DEPTH, 1024), 80)
            }
            _ => String::new(),
        });
        match result.with(|r| r.as_ref().map(|(c, _)| compact(c))) {
            Some(r) if !r.is_empty() => format!("{args} → {}", truncate(&r, 60)),
            _ => args,
        }
    };

    // Open while it matters; folded once done, unless the user opened or closed it.
    let open = RwSignal::new(true);
    let auto = RwSignal::new(true);
    Effect::new(move |_| {
        let done = matches!(status.get(), ToolStatus::Done | ToolStatus::Decided(_));
        if auto.get_untracked() {
            open.set(!done);
        }
    });
    let on_toggle = crate::ui::util::on_user_toggle(open, auto);

    view! {
        <div
            class="tool-card"
            data-status=move || status.get().key()
            role="group"
            aria-label=move || format!("Tool call: {}", name.get())
        >
            <details class="tool-details" open=move || open.get() on:toggle=on_toggle>
                <summary class="tool-head">
                    <span class="tool-icon" aria-hidden="true">"⚙"</span>
                    <code class="tool-name">{move || name.get()}</code>
                    <span class=move || format!("badge status-{}", status.get().key())>
                        {move || status.get().label()}
                    </span>
                    <span class="tool-summary">{summary}</span>
                </summary>
                <div class="tool-body">
                    <div class="tool-section">
                        <div class="tool-section-title">"Arguments"</div>
                        <pre class="code tool-args" aria-busy=move || {
                            (status.get() == ToolStatus::StreamingArgs).to_string()
                        }>{args_view}</pre>
                    </div>
                    {result_view}
                </div>
            </details>
            {hint}
        </div>
    }
    .into_any()
}

/// The arguments as JSON, when they parse and nest at most [`ARGS_DEPTH`] deep (deeper ones
/// are shown as text: parsing them would recurse once per level).
fn parse_args(text: &str) -> Option<Value> {
    let text = text.trim();
    nesting_within(text, ARGS_DEPTH)
        .then(|| serde_json::from_str(text).ok())
        .flatten()
}

/// JSON text on one line (other text as it is).
fn compact(text: &str) -> String {
    match parse_args(text) {
        Some(v) => json_text(&v, false, ARGS_DEPTH, 1024),
        None => text.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_follows_the_call_through_its_life() {
        assert_eq!(
            tool_status(true, false, None, false),
            ToolStatus::StreamingArgs
        );
        assert_eq!(tool_status(true, true, None, false), ToolStatus::Running);
        assert_eq!(
            tool_status(false, true, None, true),
            ToolStatus::AwaitingApproval
        );
        assert_eq!(
            tool_status(true, true, Some(false), false),
            ToolStatus::Done
        );
        assert_eq!(
            tool_status(false, true, Some(true), false),
            ToolStatus::Error
        );
        assert_eq!(tool_status(false, true, None, false), ToolStatus::NoResult);
    }

    #[test]
    fn decisions_are_read_from_results_and_a_rejection_is_never_done() {
        assert_eq!(
            decision_of(r#"{"approved": false}"#, None),
            Some(Decision::Rejected)
        );
        assert_eq!(
            decision_of(r#"{"approved": true, "editedArgs": {"a": 1}}"#, None),
            Some(Decision::Edited)
        );
        assert_eq!(
            decision_of(r#"{"approved": true}"#, None),
            Some(Decision::Approved)
        );
        // A frontend tool's answer, as the studio writes it.
        let args = serde_json::json!({"steps": [1, 2]});
        let same = crate::client::answers::frontend_tool_answer(true, Some(args.clone()), &args);
        assert_eq!(decision_of(&same, None), Some(Decision::Approved));
        let edited = serde_json::json!({"steps": [1]});
        let changed = crate::client::answers::frontend_tool_answer(true, Some(edited), &args);
        assert_eq!(decision_of(&changed, None), Some(Decision::Edited));
        assert_eq!(
            decision_of(r#"{"status": "rejected"}"#, None),
            Some(Decision::Rejected)
        );
        assert_eq!(
            decision_of(r#"{"status": "cancelled"}"#, None),
            Some(Decision::Cancelled)
        );
        assert_eq!(
            decision_of("anything", Some("rejected by the user")),
            Some(Decision::Rejected)
        );
        // Ordinary results are not decisions.
        assert_eq!(decision_of(r#"{"result": 84}"#, None), None);
        assert_eq!(decision_of("plain text", None), None);
        assert_ne!(ToolStatus::Decided(Decision::Rejected).key(), "done");
    }
}
