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
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use serde_json::{json, Value};

use super::session::{
    Actions, Connection, MessageEntry, Pending, RunView, SendInput, UseAgentOptions, Writers,
};
use super::transport::{post_json, random_id};
use crate::client::event_log::RunMark;
use crate::protocol::reduce::Conversation;

mod edit;
pub(super) mod engine;
mod frames;
mod hitl;
mod live;
mod reconnect;
mod replay;
mod run;
pub use engine::{load as load_engine, load_with_engine};
use engine::{with_engine, with_engine_or};
use live::{Live, Shared};
use reconnect::cancel_url;

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
        key: 0,
        mark: RunMark::new("", 0.0),
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
        with_engine(&live, move |e, l| (e.follow_run)(l, run_id));
    }
    let url = live.borrow().options.url;
    let live = StoredValue::new_local(live);
    let thread = move || w.thread_id.get_untracked();
    // Another agent starts clean: the last one's failure is not its failure.
    Effect::new(move |prev: Option<String>| {
        let now = url.get();
        if prev.is_some_and(|p| p != now) && live.get_value().borrow().pipeline.is_none() {
            w.error.set(None);
            w.connection.set(Connection::Idle);
        }
        now
    });

    let send = Callback::new(move |input: SendInput| {
        let thread = thread();
        let text = (!input.text.is_empty()).then(|| input.text.clone());
        with_engine_or(
            &live.get_value(),
            move |e, l| (e.send)(l, input, thread),
            text,
        );
    });

    let stop = Callback::new(move |_| {
        let l = live.get_value();
        let (abort, cancel, headers) = {
            let mut b = l.borrow_mut();
            // A CopilotKit runtime's run goes on without its connection too: its stop route.
            let runtime_stop = || {
                let running = b.pipeline.is_some();
                let url = b.options.url.get_untracked();
                running
                    .then(|| super::copilotkit::stop_url(&url, &b.w.thread_id.get_untracked()))
                    .flatten()
            };
            let cancel = b
                .events_url
                .as_deref()
                .map(cancel_url)
                .or_else(runtime_stop);
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
        with_engine(&live.get_value(), move |e, l| {
            (e.answer)(l, &id, true, edited, messages, run)
        });
    });
    let reject = Callback::new(move |id: String| {
        with_engine(&live.get_value(), move |e, l| {
            (e.answer)(l, &id, false, None, messages, run)
        });
    });
    let answer_interrupt = Callback::new(move |(id, payload): (String, Value)| {
        let l = live.get_value();
        l.borrow_mut().interrupt_answers.insert(id, payload);
        let thread = thread();
        with_engine(&l, move |e, l| (e.maybe_resume)(l, thread));
    });

    let set_state = Callback::new(move |v: Value| {
        let l = live.get_value();
        let mut b = l.borrow_mut();
        b.current_mut().state = v.clone();
        b.w.state.set(v);
    });

    let retry = Callback::new(move |_| with_engine(&live.get_value(), |e, l| (e.retry)(l)));

    let edit = Callback::new(move |(id, text): (String, String)| {
        with_engine(&live.get_value(), move |e, l| (e.edit)(l, id, text));
    });

    let new_thread = Callback::new(move |_| reset(&live.get_value()));

    let open_recording = Callback::new(move |bytes: Vec<u8>| {
        let l = live.get_value();
        reset(&l);
        with_engine(&l, move |e, l| (e.open_recording)(l, bytes));
    });

    Actions {
        send,
        stop,
        approve,
        reject,
        answer_interrupt,
        set_state,
        retry,
        edit,
        new_thread,
        open_recording,
    }
}

/// Leave the thread on screen for a new, empty one (the current run's request aborted).
fn reset(l: &Shared) {
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
    b.pending.events.clear();
    b.pending.warnings.clear();
}
