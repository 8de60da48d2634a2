//! The live half of `use_agent` (browser only): starting runs, feeding their bytes through the
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
use std::collections::HashMap;
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
use crate::protocol::dialect::RENDER_HINT_CUSTOM_NAME;
use crate::protocol::event::EventKind;
use crate::protocol::pipeline::{Delivered, Pipeline, PipelineOptions, StreamOutcome};
use crate::protocol::reduce::{Change, Conversation, PlacedHint, RunStatus};
use crate::protocol::sse::{Decoder, SseFrame};
use crate::protocol::types::{
    Content, ContentPart, Message, RunAgentInput, RunOutcome, TextPart, ToolMessage, UserMessage,
};

use super::session::EVENT_LOG_LIMIT;
use crate::wire::{encode_segment, RunDetail, DETACH_HEADER, RUN_EVENTS_HEADER};

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
    last_run: Option<(RunAgentInput, Conversation)>,
    interrupt_answers: HashMap<String, Value>,
    /// The current connection's SSE decoder.
    decoder: Decoder,
    /// The SSE id of the current run's last complete event.
    last_event_id: Option<String>,
    /// While resuming: events up to this id were applied already and are skipped.
    resume_after: Option<u64>,
    /// Where the current run's events can be re-read (a detached run on this server).
    events_url: Option<String>,
    /// Why the current stream could not be decoded (it is then abandoned).
    decode_error: Option<String>,
    /// Bytes received by the current run (to tell a resume that made progress).
    received: u64,
    /// Bumped by every run start and reset, so the tasks of an older run stop.
    generation: u64,
}

/// Backoff of resuming: the first wait, the longest wait, and how long to keep trying
/// without receiving anything.
const RESUME_FIRST_MS: u32 = 250;
const RESUME_MAX_MS: u32 = 4000;
const RESUME_GIVE_UP_MS: f64 = 30_000.0;

type Shared = Rc<RefCell<Live>>;

impl Live {
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
        decoder: Decoder::new(),
        last_event_id: None,
        resume_after: None,
        events_url: None,
        decode_error: None,
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
        let mut conv = l.borrow().conversation.clone();
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
        let last = l.borrow().last_run.clone();
        if let Some((input, conv)) = last {
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
                let url = format!("/api/runs/{}", encode_segment(&run_id));
                match get_json::<RunDetail>(&url, &headers).await {
                    Ok(Some(detail)) if l.borrow().pipeline.is_none() => {
                        let input = detail.input;
                        let conv =
                            Pipeline::for_input(&input, PipelineOptions::default()).conversation;
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

/// Answer an approval the way its style requires.
fn answer(
    l: &Shared,
    id: &str,
    approved: bool,
    edited: Option<Value>,
    messages: ReadSignal<Vec<MessageEntry>>,
    run: ReadSignal<RunView>,
) {
    let msgs: Vec<Message> =
        messages.with_untracked(|m| m.iter().map(|e| e.msg.get_untracked()).collect());
    let approvals = run.with_untracked(|r| approvals_of(&msgs, r));
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
            let mut conv = l.borrow().conversation.clone();
            conv.messages.push(msg);
            conv.reindex();
            let still_pending = approvals_of(&conv.messages, &l.borrow().run_view)
                .iter()
                .any(|p| p.kind == ApprovalKind::FrontendTool);
            if still_pending {
                let mut b = l.borrow_mut();
                b.conversation = conv;
                b.pending.messages_reset = true;
                drop(b);
                schedule_frame(l);
            } else {
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
fn maybe_resume(l: &Shared, thread: String) {
    let (interrupts, answers, conv) = {
        let b = l.borrow();
        if b.pipeline.is_some() {
            return;
        }
        (
            b.conversation.pending_interrupts.clone(),
            b.interrupt_answers.clone(),
            b.conversation.clone(),
        )
    };
    if interrupts.is_empty() || !interrupts.iter().all(|i| answers.contains_key(&i.id)) {
        return;
    }
    let resume = resume_entries(&interrupts, &answers);
    l.borrow_mut().interrupt_answers.clear();
    start_run(l, conv, thread, None, Some(resume));
}

/// `POST /api/ag-ui/tool-result` on the agent's own server.
fn tool_result_url(agent_url: &str) -> String {
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
    pipeline.conversation = conv.clone();
    let controller = web_sys::AbortController::new().ok();
    let signal = controller.as_ref().map(|c| c.signal());
    let generation = {
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.decoder = Decoder::new();
        b.last_event_id = None;
        b.resume_after = None;
        b.events_url = None;
        b.decode_error = None;
        b.received = 0;
        b.last_run = Some((input.clone(), conv));
        b.pipeline = Some(pipeline);
        b.abort = controller;
        b.warnings_seen = 0;
        b.run_view.started_at = Some(now_ms());
        b.run_view.ended_at = None;
        b.pending.messages_reset = true;
        b.pending.state = true;
        b.pending.run = true;
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

/// Follow a run of this server that was already going when the page loaded: fetch the input it
/// started from, then read its events from the first (stored, then live) through the same
/// resuming path as a broken connection, so the transcript ends as if this page had started it.
/// Run `input` again from `conv`, the conversation it started from.
fn retry_input(l: &Shared, input: RunAgentInput, conv: Conversation) {
    let forwarded = Some(input.forwarded_props.clone());
    let resume = input.resume.clone();
    start_run(l, conv, input.thread_id.clone(), forwarded, resume);
}

fn follow_run(l: &Shared, run_id: String) {
    let (headers, w) = {
        let b = l.borrow();
        (b.options.headers.get_untracked(), b.w)
    };
    let Some(controller) = web_sys::AbortController::new().ok() else {
        return;
    };
    let signal = controller.signal();
    let generation = {
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.abort = Some(controller);
        b.generation
    };
    let l = l.clone();
    leptos::task::spawn_local(async move {
        let url = format!("/api/runs/{}", encode_segment(&run_id));
        let Ok(Some(detail)) = get_json::<RunDetail>(&url, &headers).await else {
            return;
        };
        {
            let mut b = l.borrow_mut();
            if b.generation != generation || b.pipeline.is_some() {
                return;
            }
            let input = detail.input;
            let pipeline = Pipeline::for_input(&input, PipelineOptions::default());
            b.decoder = Decoder::new();
            b.last_event_id = None;
            b.resume_after = None;
            b.events_url = Some(detail.run.events_url);
            b.decode_error = None;
            b.received = 0;
            b.last_run = Some((input, pipeline.conversation.clone()));
            b.pipeline = Some(pipeline);
            b.warnings_seen = 0;
            b.run_view.started_at = Some(now_ms());
            b.run_view.ended_at = None;
            b.pending.messages_reset = true;
            b.pending.state = true;
            b.pending.run = true;
        }
        w.error.set(None);
        w.connection.set(Connection::Connecting);
        schedule_frame(&l);
        let pending = Err(TransportError::Network(
            "following the run in progress".into(),
        ));
        let result = resume_run(&l, generation, pending, &signal).await;
        finish_run(&l, generation, result);
    });
}

/// `POST /api/runs/{id}/cancel` for a run whose events are at `/api/runs/{id}/events`.
fn cancel_url(events_url: &str) -> String {
    let base = events_url.strip_suffix("/events").unwrap_or(events_url);
    format!("{base}/cancel")
}

fn numeric(id: Option<&str>) -> Option<u64> {
    id.and_then(|i| i.trim().parse().ok())
}

/// While the current run's stream broke before its terminal event and the run can be re-read,
/// resume it after the last event seen. Returns the result to finish the run with.
async fn resume_run(
    l: &Shared,
    generation: u64,
    mut result: Result<(), TransportError>,
    signal: &web_sys::AbortSignal,
) -> Result<(), TransportError> {
    let mut delay = RESUME_FIRST_MS;
    let mut deadline = now_ms() + RESUME_GIVE_UP_MS;
    loop {
        let (events_url, last_id, received, w) = {
            let b = l.borrow();
            if b.generation != generation || signal.aborted() {
                return result;
            }
            let outcome = b.pipeline.as_ref().map(Pipeline::outcome);
            // The terminal event arrived: a connection error after it changes nothing.
            if outcome == Some(StreamOutcome::Completed)
                && matches!(result, Err(TransportError::Network(_)))
            {
                return Ok(());
            }
            let open = b.decode_error.is_none() && outcome == Some(StreamOutcome::Truncated);
            match (&b.events_url, open, &result) {
                // Refused (a resume GET answered 404: the run is unknown) or stopped.
                (_, _, Err(TransportError::Http { .. } | TransportError::Aborted)) => {
                    return result
                }
                (Some(url), true, _) => (url.clone(), b.last_event_id.clone(), b.received, b.w),
                _ => return result,
            }
        };
        if now_ms() > deadline {
            return Err(TransportError::Network(format!(
                "the connection to the run was lost and could not be re-established in {} s",
                RESUME_GIVE_UP_MS / 1000.0
            )));
        }
        w.connection.set(Connection::Reconnecting);
        sleep_ms(delay).await;
        delay = (delay * 2).min(RESUME_MAX_MS);
        let mut headers = {
            let mut b = l.borrow_mut();
            if b.generation != generation || signal.aborted() {
                return Err(TransportError::Aborted);
            }
            // A frame the break cut in two is dropped here and arrives again whole.
            b.decoder = Decoder::new();
            b.resume_after = numeric(last_id.as_deref());
            b.options.headers.get_untracked()
        };
        if let Some(id) = &last_id {
            headers.push(("Last-Event-ID".to_string(), id.clone()));
        }
        let l2 = l.clone();
        result = get_stream(&events_url, &headers, signal, move |bytes| {
            on_bytes(&l2, generation, bytes)
        })
        .await;
        if l.borrow().received > received {
            delay = RESUME_FIRST_MS;
            deadline = now_ms() + RESUME_GIVE_UP_MS;
        }
    }
}

fn on_bytes(l: &Shared, generation: u64, bytes: &[u8]) {
    let mut b = l.borrow_mut();
    if b.generation != generation || b.pipeline.is_none() || b.decode_error.is_some() {
        return;
    }
    if b.w.connection.get_untracked() != Connection::Streaming {
        b.w.connection.set(Connection::Streaming);
    }
    b.received += bytes.len() as u64;
    let frames = match b.decoder.push(bytes) {
        Ok(frames) => frames,
        Err(e) => {
            b.decode_error = Some(format!("SSE decoding failed: {e}"));
            return;
        }
    };
    let delivered = feed(&mut b, frames);
    record(&mut b, delivered);
    drop(b);
    schedule_frame(l);
}

/// Decoded frames into the pipeline. After a resume, events the run already delivered are
/// skipped by their id, so none is applied twice.
fn feed(b: &mut Live, frames: Vec<SseFrame>) -> Vec<Delivered> {
    let mut out = Vec::new();
    for f in frames {
        if let Some(after) = b.resume_after {
            match numeric(f.id.as_deref()) {
                Some(id) if id <= after => continue,
                _ => b.resume_after = None,
            }
        }
        if f.id.is_some() {
            b.last_event_id = f.id.clone();
        }
        let Some(p) = b.pipeline.as_mut() else { break };
        match serde_json::from_str::<Value>(&f.data) {
            Ok(v) => out.extend(p.push_value(f.event.as_deref(), v)),
            Err(e) => {
                let data: String = f.data.chars().take(200).collect();
                b.decode_error = Some(format!("invalid JSON in SSE data ({e}): {data}"));
                break;
            }
        }
    }
    out
}

fn record(b: &mut Live, delivered: Vec<crate::protocol::pipeline::Delivered>) {
    let now = now_ms();
    let warnings: Vec<String> = match b.pipeline.as_ref() {
        Some(p) => p.warnings[b.warnings_seen.min(p.warnings.len())..].to_vec(),
        None => Vec::new(),
    };
    b.warnings_seen += warnings.len();
    let n = delivered.len();
    // How many messages the conversation had after each event: the count now, less the messages
    // later events of this batch added (a snapshot in between makes this approximate).
    let mut count = b.current().messages.len();
    let mut counts = vec![0; n];
    for (i, d) in delivered.iter().enumerate().rev() {
        counts[i] = count;
        if matches!(d.change, Change::MessageAdded { .. }) {
            count = count.saturating_sub(1);
        }
    }
    for (i, d) in delivered.into_iter().enumerate() {
        if let EventKind::Custom { name, value } = &d.event.kind {
            if name == RENDER_HINT_CUSTOM_NAME {
                let run_id = match &b.current().run {
                    RunStatus::Running { run_id } => Some(run_id.clone()),
                    _ => None,
                };
                let hint = PlacedHint::from_value(value, counts[i], run_id);
                b.run_view.render_hints.push(hint);
            }
        }
        b.pending.note(&d.change);
        b.seq += 1;
        let seq = b.seq;
        b.pending.events.push(EventRecord {
            seq,
            at_ms: now,
            type_name: d.event.type_name(),
            json: d.event.to_value(),
            warnings: if i + 1 == n {
                warnings.clone()
            } else {
                Vec::new()
            },
        });
    }
    b.pending.warnings.extend(warnings);
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
    // A last event without its closing blank line still counts (a common producer bug).
    if b.decode_error.is_none() && result.is_ok() {
        match b.decoder.finish() {
            Ok(frames) => {
                let delivered = feed(&mut b, frames);
                record(&mut b, delivered);
            }
            Err(e) => b.decode_error = Some(format!("SSE decoding failed: {e}")),
        }
    }
    let Some(mut p) = b.pipeline.take() else {
        return;
    };
    let delivered = p.finish();
    b.pipeline = Some(p);
    record(&mut b, delivered);
    let p = b.pipeline.take().expect("pipeline present");
    let decode_error = b.decode_error.take();
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
        (Ok(()), _) if decode_error.is_some() => Some(RunErrorView {
            message: format!(
                "the agent's stream broke the AG-UI protocol: {}",
                decode_error.as_deref().unwrap_or("")
            ),
            code: Some("PROTOCOL".into()),
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

fn schedule_frame(l: &Shared) {
    if std::mem::replace(&mut l.borrow_mut().frame_scheduled, true) {
        return;
    }
    let l = l.clone();
    request_animation_frame(move || flush(&l));
}

/// Bring the signals up to date with everything that changed since the last frame.
fn flush(l: &Shared) {
    let mut b = l.borrow_mut();
    b.frame_scheduled = false;
    let pending = std::mem::take(&mut b.pending);
    let w = b.w;
    {
        let Live {
            pipeline,
            conversation,
            signals,
            ..
        } = &mut *b;
        let conv = pipeline
            .as_ref()
            .map(|p| &p.conversation)
            .unwrap_or(conversation);
        sync_messages(conv, &pending, signals, &w);
    }
    if pending.state {
        let s = b.current().state.clone();
        w.state.set(s);
    }
    if pending.run {
        let view = run_view(b.current(), &b.run_view);
        b.run_view = view.clone();
        w.run.set(view);
    }
    if !pending.events.is_empty() {
        w.events.update(|ev| {
            ev.extend(pending.events.iter().cloned());
            if ev.len() > EVENT_LOG_LIMIT {
                let cut = ev.len() - EVENT_LOG_LIMIT;
                ev.drain(..cut);
            }
        });
    }
    if !pending.warnings.is_empty() {
        w.warnings.update(|ws| ws.extend(pending.warnings));
    }
}
