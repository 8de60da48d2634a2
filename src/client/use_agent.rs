//! `use_agent`: the one hook through which the UI talks to an AG-UI agent, in the style of
//! leptos-use — options in, a struct of signals and callbacks out.
//!
//! A run is a streamed `fetch` POST; its bytes go through the shared protocol pipeline (decoder,
//! dialects, enforcement, chunks, verifier, reducer) as they arrive, and the signals are brought
//! up to date once per animation frame with only what changed: a text delta touches only its
//! message's signal.
//!
//! Under SSR the hook returns inert signals holding the initial messages, and its callbacks do
//! nothing; the browser makes them live after hydration ([`crate::client::browser`]).

use leptos::prelude::*;
use serde_json::json;

#[cfg(not(feature = "hydrate"))]
use super::session::Actions;
use super::session::{
    approvals_in, Connection, MessageEntry, RunView, UseAgentOptions, UseAgentReturn, Writers,
};

/// Create the session's signals and actions. See the module docs for SSR behaviour.
pub fn use_agent(options: UseAgentOptions) -> UseAgentReturn {
    let initial_entries: Vec<MessageEntry> = options
        .initial_messages
        .iter()
        .map(|m| MessageEntry {
            id: m.id().to_string(),
            msg: ArcRwSignal::new(m.clone()),
        })
        .collect();
    let writers = Writers {
        messages: RwSignal::new(initial_entries),
        state: RwSignal::new(options.initial_state.clone().unwrap_or_else(|| json!({}))),
        run: RwSignal::new(RunView {
            render_hints: options.initial_render_hints.clone(),
            ..RunView::default()
        }),
        error: RwSignal::new(options.failed_run.as_ref().map(|(_, e)| e.clone())),
        // A run that was going when the page was rendered is followed at once after hydration:
        // the page shows it as running from the first paint, so Send cannot race it.
        connection: RwSignal::new(if options.follow_run.is_some() {
            Connection::Connecting
        } else {
            Connection::Idle
        }),
        events: RwSignal::new(Vec::new()),
        warnings: RwSignal::new(Vec::new()),
        thread_id: RwSignal::new(options.initial_thread_id.clone().unwrap_or_default()),
        unsent: RwSignal::new(None),
    };
    let messages = writers.messages.read_only();
    let state = writers.state.read_only();
    let run = writers.run.read_only();
    let error = writers.error.read_only();
    let connection = writers.connection.read_only();
    let events = writers.events.read_only();
    let warnings = writers.warnings.read_only();
    let thread_id = writers.thread_id.read_only();
    let unsent = writers.unsent.read_only();
    let stored_thread = StoredValue::new(
        options
            .initial_thread_id
            .clone()
            .filter(|_| options.stored_runs),
    );
    let tools = options.tools.clone();
    let approvals = Memo::new(move |_| {
        messages.with(|m| {
            let read: Vec<_> = m.iter().map(|e| e.msg.read()).collect();
            run.with(|r| approvals_in(read.iter().map(|g| &**g), r, &tools))
        })
    });
    let is_running = Signal::derive(move || {
        matches!(
            connection.get(),
            Connection::Connecting | Connection::Streaming | Connection::Reconnecting
        )
    });

    let (url, headers) = (options.url, options.headers);
    #[cfg(feature = "hydrate")]
    let actions = super::browser::actions(options, writers, messages, run);
    #[cfg(not(feature = "hydrate"))]
    let actions = {
        let _ = (options, writers);
        inert_actions()
    };

    UseAgentReturn {
        messages,
        state,
        run,
        approvals,
        error,
        connection,
        events,
        warnings,
        is_running,
        thread_id,
        unsent,
        stored_thread,
        url,
        headers,
        send: actions.send,
        stop: actions.stop,
        approve: actions.approve,
        reject: actions.reject,
        answer_interrupt: actions.answer_interrupt,
        set_state: actions.set_state,
        retry: actions.retry,
        edit: actions.edit,
        new_thread: actions.new_thread,
        open_recording: actions.open_recording,
    }
}

#[cfg(not(feature = "hydrate"))]
fn inert_actions() -> Actions {
    Actions {
        send: Callback::new(|_| {}),
        stop: Callback::new(|_| {}),
        approve: Callback::new(|_| {}),
        reject: Callback::new(|_| {}),
        answer_interrupt: Callback::new(|_| {}),
        set_state: Callback::new(|_| {}),
        retry: Callback::new(|_| {}),
        edit: Callback::new(|_| {}),
        new_thread: Callback::new(|_| {}),
        open_recording: Callback::new(|_| {}),
    }
}
