//! The run's status under the transcript: the error banner with "Retry", what the run is doing
//! (state, current steps, subagents), token usage and the connection.

use leptos::prelude::*;

use crate::client::session::{Connection, UseAgentReturn};
use crate::protocol::reduce::{RunStatus as Status, SubagentStatus};
use crate::protocol::types::{RunOutcome, TokenUsage};

/// What the status line says about a run.
pub fn status_label(status: &Status) -> &'static str {
    match status {
        Status::Idle => "Ready",
        Status::Running { .. } => "Running",
        Status::Finished {
            outcome: Some(RunOutcome::Interrupt { .. }),
            ..
        } => "Paused for your input",
        Status::Finished {
            outcome:
                Some(RunOutcome::Success {
                    pending_tool_call_ids: Some(ids),
                }),
            ..
        } if !ids.is_empty() => "Waiting for your app",
        Status::Finished {
            outcome: Some(RunOutcome::Cancelled),
            ..
        } => "Stopped",
        Status::Finished { .. } => "Finished",
        Status::Error { .. } => "Failed",
    }
}

/// The `data-status` key of a run.
fn status_key(status: &Status) -> &'static str {
    match status {
        Status::Idle => "idle",
        Status::Running { .. } => "running",
        Status::Finished {
            outcome: Some(RunOutcome::Interrupt { .. }),
            ..
        } => "interrupted",
        Status::Finished {
            outcome: Some(RunOutcome::Cancelled),
            ..
        } => "cancelled",
        Status::Finished { .. } => "finished",
        Status::Error { .. } => "error",
    }
}

/// The connection's `data-state` key, and what the status line says of it: only what the
/// reader can act on or wait for (the run's own label says the rest).
fn connection_key(c: Connection) -> &'static str {
    match c {
        Connection::Idle => "idle",
        Connection::Connecting => "connecting",
        Connection::Streaming => "streaming",
        Connection::Reconnecting => "reconnecting",
        Connection::Closed => "closed",
        Connection::Failed => "failed",
    }
}

fn connection_note(c: Connection) -> Option<&'static str> {
    match c {
        Connection::Connecting => Some("Connecting…"),
        _ => None,
    }
}

/// Token usage summed over the reports: "1,234 in · 56 out · 1,290 total".
pub fn usage_text(usage: &[TokenUsage]) -> Option<String> {
    if usage.is_empty() {
        return None;
    }
    let sum = |f: fn(&TokenUsage) -> Option<u64>| -> Option<u64> {
        let vals: Vec<u64> = usage.iter().filter_map(f).collect();
        (!vals.is_empty()).then(|| vals.iter().sum())
    };
    let mut parts = Vec::new();
    if let Some(n) = sum(|u| u.input_tokens) {
        parts.push(format!("{} in", group(n)));
    }
    if let Some(n) = sum(|u| u.output_tokens) {
        parts.push(format!("{} out", group(n)));
    }
    if let Some(n) = sum(|u| u.reasoning_tokens) {
        parts.push(format!("{} reasoning", group(n)));
    }
    if let Some(n) = sum(|u| u.total_tokens) {
        parts.push(format!("{} total", group(n)));
    }
    (!parts.is_empty()).then(|| format!("Tokens: {}", parts.join(" · ")))
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn subagent_status_label(s: &SubagentStatus) -> String {
    match s {
        SubagentStatus::Running => "running".into(),
        SubagentStatus::Finished => "finished".into(),
        SubagentStatus::Suspended => "suspended".into(),
        SubagentStatus::Error(e) => format!("error: {e}"),
    }
}

/// The key of a subagent status for CSS (`running`, `finished`, `suspended`, `error`).
pub fn subagent_status_key(s: &SubagentStatus) -> &'static str {
    match s {
        SubagentStatus::Running => "running",
        SubagentStatus::Finished => "finished",
        SubagentStatus::Suspended => "suspended",
        SubagentStatus::Error(_) => "error",
    }
}

/// The error banner (`role="alert"`, with a "Retry" button) and the status line (`role="status"`
/// with the run state and steps, a progress indicator while running, subagents, usage and the
/// connection).
#[component]
pub fn RunStatus(
    /// The session.
    agent: UseAgentReturn,
) -> impl IntoView {
    let status = Memo::new(move |_| agent.run.with(|r| r.status.clone()));
    let steps = Memo::new(move |_| agent.run.with(|r| r.steps.clone()));
    let subagents = Memo::new(move |_| agent.run.with(|r| r.subagents.clone()));
    let usage = Memo::new(move |_| agent.run.with(|r| usage_text(&r.usage)));
    let took = Memo::new(move |_| {
        agent.run.with(|r| match (r.started_at, r.ended_at) {
            (Some(a), Some(b)) if b >= a => Some(format!(
                "{} s",
                crate::ui::util::tenths((b - a).round() as u128, 1000)
            )),
            _ => None,
        })
    });
    let running = agent.is_running;
    let error = agent.error;

    view! {
        <div class="run-status-wrap">
            <Show when=move || error.with(Option::is_some)>
                <div class="error-banner" role="alert">
                    <span class="error-icon" aria-hidden="true">"⚠"</span>
                    <div class="error-text">
                        <strong>"The run failed"</strong>
                        {move || {
                            error
                                .get()
                                .and_then(|e| e.code)
                                .map(|c| view! { <code class="error-code">{c}</code> })
                        }}
                        <p class="error-message">
                            {move || error.get().map(|e| e.message).unwrap_or_default()}
                        </p>
                    </div>
                    <button
                        type="button"
                        class="btn"
                        disabled=move || running.get()
                        on:click=move |_| agent.retry.run(())
                    >
                        "Retry"
                    </button>
                </div>
            </Show>
            <div
                class="run-status"
                data-status=move || status.with(status_key)
                class:reconnecting=move || agent.connection.get() == Connection::Reconnecting
            >
                <span class="run-state" role="status">
                    <Show when=move || running.get()>
                        <span class="spinner" aria-hidden="true"></span>
                    </Show>
                    <span class="run-label">
                        {move || {
                            if agent.connection.get() == Connection::Reconnecting {
                                "Reconnecting…"
                            } else if !running.get() && error.with(Option::is_some) {
                                // One status at a time: the banner above says why.
                                "Failed"
                            } else {
                                status.with(status_label)
                            }
                        }}
                    </span>
                    {move || {
                        let s = steps.get();
                        (!s.is_empty()).then(|| format!(" — {}", s.join(", ")))
                    }}
                </span>
                <Show when=move || !subagents.with(Vec::is_empty)>
                    <ul class="subagent-chips" aria-label="Subagents">
                        {move || {
                            subagents
                                .get()
                                .into_iter()
                                .map(|s| {
                                    let key = subagent_status_key(&s.status);
                                    view! {
                                        <li class="subagent-chip" data-status=key>
                                            <span class="dot" aria-hidden="true"></span>
                                            {s.name.clone()}
                                            ": "
                                            {subagent_status_label(&s.status)}
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </Show>
                <span class="run-meta">
                    {move || usage.get().map(|u| view! { <span class="usage">{u}</span> })}
                    {move || {
                        (!running.get())
                            .then(|| took.get())
                            .flatten()
                            .map(|t| view! { <span class="took">{t}</span> })
                    }}
                    {move || {
                        let c = agent.connection.get();
                        connection_note(c)
                            .map(|note| {
                                view! {
                                    <span class="conn" data-state=connection_key(c)>
                                        <span class="dot" aria-hidden="true"></span>
                                        {note}
                                    </span>
                                }
                            })
                    }}
                </span>
            </div>
            <Show when=move || running.get()>
                <div class="run-progress" aria-hidden="true">
                    <span></span>
                </div>
            </Show>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_is_summed_and_grouped() {
        let u = vec![
            TokenUsage {
                input_tokens: Some(1200),
                output_tokens: Some(30),
                ..Default::default()
            },
            TokenUsage {
                input_tokens: Some(34),
                ..Default::default()
            },
        ];
        assert_eq!(usage_text(&u).as_deref(), Some("Tokens: 1,234 in · 30 out"));
        assert_eq!(usage_text(&[]), None);
    }

    #[test]
    fn labels() {
        assert_eq!(
            status_label(&Status::Running { run_id: "r".into() }),
            "Running"
        );
        assert_eq!(
            status_label(&Status::Finished {
                run_id: "r".into(),
                outcome: Some(RunOutcome::Cancelled)
            }),
            "Stopped"
        );
    }
}
