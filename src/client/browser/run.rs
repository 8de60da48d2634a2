//! A run from start to end: the request (or, for a run already going when the page loaded, its
//! input and events read back), its bytes into the pipeline, and how it ended — the
//! conversation back in the session, the error for the banner.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::client::errors::{http_failure, network_failure, RunErrorView, Target};
use crate::client::session::{Connection, SendInput};
use crate::client::transport::{
    get_json, is_same_origin, now_ms, post_stream, random_id, TransportError,
};
use crate::protocol::compat::prepare_request;
use crate::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::protocol::types::{
    Content, ContentPart, Message, RunAgentInput, RunOutcome, TextPart, UserMessage,
};
use crate::wire::{RunDetail, DETACH_HEADER, RUN_EVENTS_HEADER};

use super::frames::{flush, on_bytes, on_open_body, record, schedule_frame};
use super::live::Shared;
use super::reconnect::resume_run;

pub(super) fn user_message(text: String, attachments: Vec<ContentPart>) -> Message {
    let content = if attachments.is_empty() {
        Content::Text(text)
    } else {
        let mut parts = Vec::with_capacity(attachments.len() + 1);
        if !text.is_empty() {
            parts.push(ContentPart::Text(TextPart {
                text,
                id: None,
                metadata: None,
            }));
        }
        parts.extend(attachments);
        Content::Parts(parts)
    };
    Message::User(UserMessage {
        id: format!("msg-{}", random_id()),
        content,
        name: None,
        encrypted_value: None,
        encrypted_value_type: None,
        metadata: None,
        subagent_run_id: None,
    })
}

pub(super) fn start_run(
    l: &Shared,
    conv: Conversation,
    thread_id: String,
    forwarded_props: Option<Value>,
    resume: Option<Vec<crate::protocol::types::ResumeEntry>>,
) {
    crate::client::session::note_run_begun();
    let (url, mut headers, tools, w) = {
        let b = l.borrow();
        let mut headers = b.options.headers.get_untracked();
        // First, so an `Accept` the user typed for the URL wins.
        headers.insert(0, b.options.format.get_untracked().accept_header());
        (
            b.options.url.get_untracked(),
            headers,
            b.options.tools.clone(),
            b.w,
        )
    };
    // Only this page's own server is asked to keep the run going without its connection (a
    // foreign agent would not know the header, or would need CORS for it).
    let detach = is_same_origin(&url);
    if detach {
        headers.push((DETACH_HEADER.to_string(), "true".to_string()));
    }
    let mut input = RunAgentInput::new(thread_id, format!("run-{}", random_id()));
    input.messages = conv
        .messages
        .iter()
        .filter(|m| !matches!(m, Message::Activity(_)))
        .cloned()
        .collect();
    input.tools = tools;
    input.state = conv.state.clone();
    input.forwarded_props = forwarded_props.unwrap_or_else(|| json!({}));
    input.resume = resume;
    let (body, _) = prepare_request(serde_json::to_value(&input).unwrap_or_default(), None);
    let mut pipeline = Pipeline::for_input(&input, PipelineOptions::default());
    pipeline.conversation = conv;
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    let generation = {
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.begin_run(input, pipeline, None);
        b.abort = controller;
        b.generation
    };
    w.error.set(None);
    w.connection.set(Connection::Connecting);
    schedule_frame(l);
    let Some(signal) = signal else {
        w.error.set(Some(RunErrorView {
            message: "cannot create an AbortController".into(),
            code: None,
        }));
        return;
    };
    let l = l.clone();
    let tried = Target {
        url: url.clone(),
        same_origin: detach,
    };
    leptos::task::spawn_local(async move {
        let body = body.to_string();
        let result = {
            let (l1, l2) = (l.clone(), l.clone());
            let on_open = move |resp: &web_sys::Response| {
                on_open_body(&l1, generation, resp);
                let events = resp.headers().get(RUN_EVENTS_HEADER).ok().flatten();
                if let Some(events) = events.filter(|e| detach && e.starts_with('/')) {
                    let mut b = l1.borrow_mut();
                    if b.generation == generation {
                        b.events_url = Some(events);
                    }
                }
            };
            post_stream(&url, &body, &headers, &signal, on_open, move |bytes| {
                on_bytes(&l2, generation, bytes)
            })
            .await
        };
        let result = resume_run(&l, generation, result, &signal).await;
        finish_run(&l, generation, result, &tried);
    });
}

/// Send a user message (none for an action) and start a run; nothing while a run is going.
pub(super) fn send(l: &Shared, input: SendInput, thread_id: String) {
    if l.borrow().pipeline.is_some() {
        return;
    }
    let mut conv = std::mem::take(&mut l.borrow_mut().conversation);
    if !input.is_action() {
        conv.messages
            .push(user_message(input.text, input.attachments));
        conv.reindex();
    }
    start_run(l, conv, thread_id, input.forwarded_props, None);
}

/// Retry: the last run of this page again from where it started, or a failed (or, to
/// regenerate, the last) run of a thread loaded from the server, its input read from there.
pub(super) fn retry(l: &Shared) {
    if l.borrow().pipeline.is_some() {
        return;
    }
    let last = l.borrow_mut().last_run.take();
    if let Some((input, start_ids)) = last {
        // What the run added goes; the rest stays where it was (render hints included).
        let mut conv = std::mem::take(&mut l.borrow_mut().conversation);
        let produced = conv
            .messages
            .iter()
            .map(|m| m.id().to_string())
            .filter(|id| !start_ids.contains(id))
            .collect();
        conv.forget_run(&input.run_id, &produced);
        conv.state = input.state.clone();
        retry_input(l, input, conv);
        return;
    }
    let (failed, headers) = {
        let b = l.borrow();
        let failed = b.options.failed_run.as_ref().map(|(id, _)| id.clone());
        let failed = failed.or_else(|| b.options.last_run.clone());
        (failed, b.options.headers.get_untracked())
    };
    let Some(run_id) = failed else {
        return;
    };
    let l = l.clone();
    leptos::task::spawn_local(async move {
        let url = crate::wire::run_url(&run_id);
        match get_json::<RunDetail>(&url, &headers).await {
            Ok(Some(detail)) if l.borrow().pipeline.is_none() => {
                let input = detail.input;
                let mut conv = Pipeline::for_input(&input, PipelineOptions::default()).conversation;
                // The thread's hints stay; the failed run's go with it.
                conv.render_hints = l.borrow().conversation.render_hints.clone();
                conv.render_hints
                    .retain(|h| h.run_id.as_deref() != Some(run_id.as_str()));
                retry_input(&l, input, conv);
            }
            Ok(_) => {}
            Err(e) => {
                let w = l.borrow().w;
                w.error.set(Some(RunErrorView {
                    message: format!("The failed run could not be read again: {e}"),
                    code: None,
                }));
            }
        }
    });
}

/// Run `input` again from `conv`, the conversation it started from.
pub(super) fn retry_input(l: &Shared, input: RunAgentInput, conv: Conversation) {
    let forwarded = Some(input.forwarded_props.clone());
    let resume = input.resume.clone();
    start_run(l, conv, input.thread_id.clone(), forwarded, resume);
}

/// The run's connection ended: the conversation takes what the pipeline made of it, and the
/// banner says why it failed, if it did (`tried`: where it was sent).
pub(super) fn finish_run(
    l: &Shared,
    generation: u64,
    result: Result<(), TransportError>,
    tried: &Target,
) {
    let mut b = l.borrow_mut();
    if b.generation != generation {
        return;
    }
    b.abort = None;
    b.events_url = None;
    if b.pipeline.is_none() {
        return;
    }
    let Some(mut p) = b.pipeline.take() else {
        return;
    };
    // A last event without its closing blank line still counts (a common producer bug), but
    // not a frame a broken connection cut short.
    if result.is_err() {
        p.reconnect();
    }
    let delivered = p.finish();
    b.pipeline = Some(p);
    record(&mut b, delivered);
    let p = b.pipeline.take().expect("pipeline present");
    let error = match (&result, p.outcome()) {
        (Err(TransportError::Aborted), _) => None,
        (Err(TransportError::Http { status, body }), _) => Some(http_failure(tried, *status, body)),
        (Err(TransportError::Network(detail)), _) => Some(network_failure(tried, detail)),
        (Ok(()), StreamOutcome::Failed) => Some(RunErrorView {
            message: format!(
                "the agent's stream broke the AG-UI protocol: {}",
                p.error().unwrap_or("")
            ),
            code: Some("PROTOCOL".into()),
        }),
        (Ok(()), StreamOutcome::Truncated) => Some(RunErrorView {
            message: "the connection closed before the run finished".into(),
            code: Some("TRUNCATED".into()),
        }),
        (Ok(()), StreamOutcome::Completed) => match &p.conversation.run {
            RunStatus::Error { message, code } => Some(RunErrorView {
                message: message.clone(),
                code: code.clone(),
            }),
            _ => None,
        },
    };
    let mut conv = p.conversation;
    if matches!(conv.run, RunStatus::Running { .. }) {
        // Stopped or cut: the server will end its run as cancelled; say so locally too.
        let run_id = match &conv.run {
            RunStatus::Running { run_id } => run_id.clone(),
            _ => String::new(),
        };
        conv.run = RunStatus::Finished {
            run_id,
            outcome: Some(RunOutcome::Cancelled),
        };
    }
    b.conversation = conv;
    b.run_view.ended_at = Some(now_ms());
    b.pending.run = true;
    b.pending.messages_reset = true;
    let w = b.w;
    drop(b);
    // The transcript's last changes now, before the composer shows the run's end: on the next
    // frame, a card would still say "running" for a frame after Send came back.
    flush(l);
    w.connection.set(if error.is_some() {
        Connection::Failed
    } else {
        Connection::Closed
    });
    if error.is_some() {
        w.error.set(error);
    }
}

/// Follow a run of this server that was already going when the page loaded: fetch the input it
/// started from, then read its events from the first (stored, then live) through the same
/// resuming path as a broken connection, so the transcript ends as if this page had started it.
pub(super) fn follow_run(l: &Shared, run_id: String) {
    crate::client::session::note_run_begun();
    let (headers, w) = {
        let b = l.borrow();
        (b.options.headers.get_untracked(), b.w)
    };
    let Some(controller) = web_sys::AbortController::new().ok() else {
        return;
    };
    let signal = controller.signal();
    let url = crate::wire::run_url(&run_id);
    let generation = {
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.abort = Some(controller);
        // Stop before the run's input has come still cancels the run on the server.
        b.events_url = Some(format!("{url}/events"));
        b.generation
    };
    // The page was rendered as running (see `use_agent`); it stays so until the run is read.
    w.connection.set(Connection::Connecting);
    let l = l.clone();
    leptos::task::spawn_local(async move {
        let detail = get_json::<RunDetail>(&url, &headers).await;
        {
            let mut b = l.borrow_mut();
            if b.generation != generation || b.pipeline.is_some() {
                return;
            }
            // Stopped meanwhile, or the run is gone: the stored thread is what there is.
            let detail = match detail {
                Ok(Some(detail)) if !signal.aborted() => detail,
                _ => {
                    b.events_url = None;
                    b.abort = None;
                    drop(b);
                    w.connection.set(Connection::Idle);
                    return;
                }
            };
            let input = detail.input;
            let mut pipeline = Pipeline::for_input(&input, PipelineOptions::default());
            // The thread's render hints stay (the run's own are replaced as it replays).
            pipeline.conversation.render_hints = std::mem::take(&mut b.conversation.render_hints);
            b.begin_run(input, pipeline, Some(detail.run.events_url));
        }
        w.error.set(None);
        w.connection.set(Connection::Connecting);
        schedule_frame(&l);
        let pending = Err(TransportError::Network(
            "following the run in progress".into(),
        ));
        let result = resume_run(&l, generation, pending, &signal).await;
        let tried = Target {
            url,
            same_origin: true,
        };
        finish_run(&l, generation, result, &tried);
    });
}
