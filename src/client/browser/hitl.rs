//! Answering human-in-the-loop requests, each style the way it must be answered: a frontend tool
//! by a `tool` message in the next run, an in-stream approval by `POST tool-result`, interrupts by
//! `resume` in the next run once every one of them has an answer.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::client::answers::{frontend_tool_answer, resume_entries};
use crate::client::errors::RunErrorView;
use crate::client::session::{approvals_of, ApprovalKind, MessageEntry, RunView};
use crate::client::transport::{post_json, random_id};
use crate::protocol::interrupts::check_resume;
use crate::protocol::types::{Content, Message, ToolMessage};

use super::frames::schedule_frame;
use super::live::Shared;
use super::run::start_run;

/// Answer an approval the way its style requires.
pub(super) fn answer(
    l: &Shared,
    id: &str,
    approved: bool,
    edited: Option<Value>,
    messages: ReadSignal<Vec<MessageEntry>>,
    run: ReadSignal<RunView>,
) {
    let msgs: Vec<Message> =
        messages.with_untracked(|m| m.iter().map(|e| e.msg.get_untracked()).collect());
    let tools = l.borrow().options.tools.clone();
    let approvals = run.with_untracked(|r| approvals_of(&msgs, r, &tools));
    let Some(a) = approvals.into_iter().find(|a| a.id == id) else {
        return;
    };
    let thread = l.borrow().w.thread_id.get_untracked();
    match a.kind {
        ApprovalKind::FrontendTool => {
            let tool_call_id = a.tool_call_id.clone().unwrap_or_default();
            let content = frontend_tool_answer(approved, edited, &a.args);
            let msg = Message::Tool(ToolMessage {
                id: format!("tool-{}", random_id()),
                content: Content::Text(content),
                tool_call_id,
                error: (!approved).then(|| "rejected by the user".to_string()),
                encrypted_value: None,
                encrypted_value_type: None,
                metadata: None,
                subagent_run_id: None,
            });
            let mut b = l.borrow_mut();
            b.conversation.messages.push(msg);
            b.conversation.reindex();
            let still_pending = approvals_of(&b.conversation.messages, &b.run_view, &tools)
                .iter()
                .any(|p| p.kind == ApprovalKind::FrontendTool);
            if still_pending {
                b.pending.messages_reset = true;
                drop(b);
                schedule_frame(l);
            } else {
                let conv = std::mem::take(&mut b.conversation);
                drop(b);
                start_run(l, conv, thread, None, None);
            }
        }
        ApprovalKind::InStream => {
            let url = tool_result_url(&l.borrow().options.url.get_untracked());
            let headers = l.borrow().options.headers.get_untracked();
            let mut body = json!({ "toolCallId": a.id, "approved": approved });
            if let Some(e) = edited {
                body["editedArgs"] = e;
            }
            let w = l.borrow().w;
            leptos::task::spawn_local(async move {
                match post_json(&url, &body.to_string(), &headers).await {
                    Ok(s) if s < 300 => {}
                    Ok(s) => w.error.set(Some(RunErrorView {
                        message: format!("the server did not take the answer (HTTP {s})"),
                        code: None,
                    })),
                    Err(e) => w.error.set(Some(RunErrorView {
                        message: e.to_string(),
                        code: None,
                    })),
                }
            });
        }
        ApprovalKind::Interrupt => {
            let mut payload = json!({ "approved": approved });
            if let Some(e) = edited {
                payload["editedArgs"] = e;
            }
            l.borrow_mut()
                .interrupt_answers
                .insert(a.id.clone(), payload);
            maybe_resume(l, thread);
        }
    }
}

/// Resume once every pending interrupt has an answer.
pub(super) fn maybe_resume(l: &Shared, thread: String) {
    let (interrupts, answers) = {
        let b = l.borrow();
        if b.pipeline.is_some() {
            return;
        }
        (
            b.conversation.pending_interrupts.clone(),
            b.interrupt_answers.clone(),
        )
    };
    if interrupts.is_empty() || !interrupts.iter().all(|i| answers.contains_key(&i.id)) {
        return;
    }
    let resume = resume_entries(&interrupts, &answers);
    // AG-UI 1.1: an expired interrupt cannot be answered; say so instead of resuming.
    let now = crate::client::transport::now_ms() as i64;
    if let Err(e) = check_resume(&interrupts, &resume, now) {
        let w = l.borrow().w;
        l.borrow_mut().interrupt_answers.clear();
        w.error.set(Some(RunErrorView {
            message: e.to_string(),
            code: e.is_expiry().then(|| "INTERRUPT_EXPIRED".to_string()),
        }));
        return;
    }
    let conv = {
        let mut b = l.borrow_mut();
        b.interrupt_answers.clear();
        std::mem::take(&mut b.conversation)
    };
    start_run(l, conv, thread, None, Some(resume));
}

/// `POST /api/ag-ui/tool-result` on the agent's own server.
pub(super) fn tool_result_url(agent_url: &str) -> String {
    let origin = agent_url
        .split_once("://")
        .and_then(|(scheme, rest)| {
            rest.split('/')
                .next()
                .map(|host| format!("{scheme}://{host}"))
        })
        .unwrap_or_default();
    format!("{origin}/api/ag-ui/tool-result")
}
