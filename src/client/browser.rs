//! The browser half of `use_agent` (hydrate only): starting runs, feeding their bytes through the
//! pipeline, flushing changes to the signals once per animation frame, answering each human-
//! in-the-loop style the way it must be answered, and resuming a detached run whose stream
//! broke.
//!
//! Runs on this page's own server are detached (`X-AGUI-Detach: true`): the server keeps them
//! going when the connection drops, and names where their events can be re-read
//! (`X-AGUI-Run-Events`). When such a stream ends without its terminal event, the client GETs
//! that URL with `Last-Event-ID` (backoff 250 ms doubling to 4 s, giving up after 30 s without
//! progress) and feeds what follows into the same pipeline, so the transcript ends as if
//! nothing had happened. The SSE decoder therefore lives here, one per connection: a frame cut
//! by the break is dropped and read again.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use leptos::prelude::*;
use serde_json::{json, Value};

use super::session::{
    approvals_of, frontend_tool_answer, resume_entries, run_view, sync_messages, Actions,
    ApprovalKind, Connection, EventRecord, MessageEntry, Pending, RunErrorView, RunView, SendInput,
    UseAgentOptions, Writers,
};
use super::transport::{
    get_json, get_stream, is_same_origin, now_ms, post_json, post_stream, random_id, sleep_ms,
    TransportError,
};
use crate::protocol::compat::prepare_request;
use crate::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::protocol::types::{
    Content, ContentPart, Message, RunAgentInput, RunOutcome, TextPart, ToolMessage, UserMessage,
};

use super::session::EVENT_LOG_LIMIT;

mod frames;
mod hitl;
mod resume;
use crate::wire::{RunDetail, DETACH_HEADER, RUN_EVENTS_HEADER};
use frames::{on_bytes, record, schedule_frame};
use hitl::{answer, maybe_resume};
use resume::{cancel_url, follow_run, resume_run};

struct Live {
    options: UseAgentOptions,
    w: Writers,
    conversation: Conversation,
    pipeline: Option<Pipeline>,
    signals: HashMap<String, ArcRwSignal<Message>>,
    pending: Pending,
    frame_scheduled: bool,
    abort: Option<web_sys::AbortController>,
    seq: usize,
    warnings_seen: usize,
    run_view: RunView,
    /// The last run's input and the ids of the messages it started from (for Retry, which
    /// takes back what the run added, as the server does).
    last_run: Option<(RunAgentInput, HashSet<String>)>,
    interrupt_answers: HashMap<String, Value>,
    /// Where the current run's events can be re-read (a detached run on this server).
    events_url: Option<String>,
    /// Bytes received by the current run (to tell a resume that made progress).
    received: u64,
    /// Bumped by every run start and reset, so the tasks of an older run stop.
    generation: u64,
}

type Shared = Rc<RefCell<Live>>;

impl Live {
    /// Start reading a run: its pipeline (holding the session's one conversation while the run
    /// streams), the run's input kept for Retry, everything redrawn on the next frame.
    fn begin_run(&mut self, input: RunAgentInput, pipeline: Pipeline, events_url: Option<String>) {
        self.events_url = events_url;
        self.received = 0;
        let ids = pipeline
            .conversation
            .messages
            .iter()
            .map(|m| m.id().to_string())
            .collect();
        self.last_run = Some((input, ids));
        self.pipeline = Some(pipeline);
        self.warnings_seen = 0;
        self.run_view.started_at = Some(now_ms());
        self.run_view.ended_at = None;
        self.pending.messages_reset = true;
        self.pending.state = true;
        self.pending.run = true;
    }

    fn current(&self) -> &Conversation {
        self.pipeline
            .as_ref()
            .map(|p| &p.conversation)
            .unwrap_or(&self.conversation)
    }
    fn current_mut(&mut self) -> &mut Conversation {
        match self.pipeline.as_mut() {
            Some(p) => &mut p.conversation,
            None => &mut self.conversation,
        }
    }
}

pub(crate) fn actions(
    options: UseAgentOptions,
    w: Writers,
    messages: ReadSignal<Vec<MessageEntry>>,
    run: ReadSignal<RunView>,
) -> Actions {
    let mut conversation = Conversation::new();
    conversation.messages = options.initial_messages.clone();
    conversation.reindex();
    conversation.thread_id = options.initial_thread_id.clone();
    if let Some(state) = &options.initial_state {
        conversation.state = state.clone();
    }
    conversation.render_hints = options.initial_render_hints.clone();
    let signals = messages
        .get_untracked()
        .into_iter()
        .map(|e| (e.id, e.msg))
        .collect();
    if options.initial_thread_id.is_none() {
        w.thread_id.set(format!("thread-{}", random_id()));
    }
    let run_view = RunView {
        render_hints: options.initial_render_hints.clone(),
        ..RunView::default()
    };
    let live: Shared = Rc::new(RefCell::new(Live {
        options,
        w,
        conversation,
        pipeline: None,
        signals,
        pending: Pending::default(),
        frame_scheduled: false,
        abort: None,
        seq: 0,
        warnings_seen: 0,
        run_view,
        last_run: None,
        interrupt_answers: HashMap::new(),
        events_url: None,
        received: 0,
        generation: 0,
    }));
    let follow = live.borrow().options.follow_run.clone();
    if let Some(run_id) = follow {
        follow_run(&live, run_id);
    }
    let live = StoredValue::new_local(live);
    let thread = move || w.thread_id.get_untracked();

    let send = Callback::new(move |input: SendInput| {
        let l = live.get_value();
        if l.borrow().pipeline.is_some() {
            return;
        }
        let user = user_message(input.text, input.attachments);
        let mut conv = std::mem::take(&mut l.borrow_mut().conversation);
        conv.messages.push(user);
        conv.reindex();
        start_run(&l, conv, thread(), input.forwarded_props, None);
    });

    let stop = Callback::new(move |_| {
        let l = live.get_value();
        let (abort, cancel, headers) = {
            let mut b = l.borrow_mut();
            let cancel = b.events_url.as_deref().map(cancel_url);
            (b.abort.take(), cancel, b.options.headers.get_untracked())
        };
        if let Some(a) = abort {
            a.abort();
        }
        // A detached run does not end with its connection: cancel it explicitly.
        if let Some(url) = cancel {
            leptos::task::spawn_local(async move {
                let _ = post_json(&url, "{}", &headers).await;
            });
        }
    });

    let approve = Callback::new(move |(id, edited): (String, Option<Value>)| {
        answer(&live.get_value(), &id, true, edited, messages, run);
    });
    let reject = Callback::new(move |id: String| {
        answer(&live.get_value(), &id, false, None, messages, run);
    });
    let answer_interrupt = Callback::new(move |(id, payload): (String, Value)| {
        let l = live.get_value();
        l.borrow_mut().interrupt_answers.insert(id, payload);
        maybe_resume(&l, thread());
    });

    let set_state = Callback::new(move |v: Value| {
        let l = live.get_value();
        let mut b = l.borrow_mut();
        b.current_mut().state = v.clone();
        b.w.state.set(v);
    });

    let retry = Callback::new(move |_| {
        let l = live.get_value();
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
            retry_input(&l, input, conv);
            return;
        }
        // A failed run of a thread loaded from the server: its input comes from there.
        let (failed, headers) = {
            let b = l.borrow();
            let failed = b.options.failed_run.as_ref().map(|(id, _)| id.clone());
            (failed, b.options.headers.get_untracked())
        };
        if let Some(run_id) = failed {
            leptos::task::spawn_local(async move {
                let url = crate::wire::run_url(&run_id);
                match get_json::<RunDetail>(&url, &headers).await {
                    Ok(Some(detail)) if l.borrow().pipeline.is_none() => {
                        let input = detail.input;
                        let mut conv =
                            Pipeline::for_input(&input, PipelineOptions::default()).conversation;
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
    });

    let new_thread = Callback::new(move |_| {
        let l = live.get_value();
        if let Some(a) = l.borrow_mut().abort.take() {
            a.abort();
        }
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.events_url = None;
        b.pipeline = None;
        b.conversation = Conversation::new();
        b.signals.clear();
        b.run_view = RunView::default();
        b.last_run = None;
        b.interrupt_answers.clear();
        b.w.messages.set(Vec::new());
        b.w.state.set(json!({}));
        b.w.run.set(RunView::default());
        b.w.error.set(None);
        b.w.events.set(Vec::new());
        b.w.warnings.set(Vec::new());
        b.w.connection.set(Connection::Idle);
        b.w.thread_id.set(format!("thread-{}", random_id()));
    });

    Actions {
        send,
        stop,
        approve,
        reject,
        answer_interrupt,
        set_state,
        retry,
        new_thread,
    }
}

fn user_message(text: String, attachments: Vec<ContentPart>) -> Message {
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

fn start_run(
    l: &Shared,
    conv: Conversation,
    thread_id: String,
    forwarded_props: Option<Value>,
    resume: Option<Vec<crate::protocol::types::ResumeEntry>>,
) {
    let (url, mut headers, tools, w) = {
        let b = l.borrow();
        (
            b.options.url.get_untracked(),
            b.options.headers.get_untracked(),
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
    leptos::task::spawn_local(async move {
        let body = body.to_string();
        let result = {
            let (l1, l2) = (l.clone(), l.clone());
            let on_open = move |resp: &web_sys::Response| {
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
        finish_run(&l, generation, result);
    });
}

/// Run `input` again from `conv`, the conversation it started from.
fn retry_input(l: &Shared, input: RunAgentInput, conv: Conversation) {
    let forwarded = Some(input.forwarded_props.clone());
    let resume = input.resume.clone();
    start_run(l, conv, input.thread_id.clone(), forwarded, resume);
}

fn finish_run(l: &Shared, generation: u64, result: Result<(), TransportError>) {
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
        (Err(TransportError::Http { status, body }), _) => Some(RunErrorView {
            message: http_error_message(*status, body),
            code: Some(format!("HTTP_{status}")),
        }),
        (Err(e), _) => Some(RunErrorView {
            message: e.to_string(),
            code: Some("NETWORK".into()),
        }),
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
    w.connection.set(if error.is_some() {
        Connection::Failed
    } else {
        Connection::Closed
    });
    if error.is_some() {
        w.error.set(error);
    }
    schedule_frame(l);
}

fn http_error_message(status: u16, body: &str) -> String {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("detail"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.chars().take(300).collect());
    format!("HTTP {status}: {detail}")
}
