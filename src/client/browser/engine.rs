//! A run's code, loaded the first time it is needed: starting and following runs, the
//! pipeline (decoders, verifier, reducer), answering approvals, Retry, edits and recordings
//! are reached from the page through one table of functions returned by a split function (a
//! chunk of its own in a `cargo leptos build --split`), so the page hydrates without them. The
//! page loads the chunk while it is idle after hydration (the rehearsal of `crate::ui::warm`
//! starts with [`load`]); an action taken before that waits for it, and if the chunk cannot be
//! fetched the action says so in the error banner and can be tried again.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;
use serde_json::Value;

use crate::client::chunk::{split_fn, unfetched, TRY_AGAIN};
use crate::client::errors::RunErrorView;
use crate::client::event_log::EventRecord;
use crate::client::history::plan::HistoryStatus;
use crate::client::session::{Connection, MessageEntry, RunView, SendInput};

use super::live::Shared;

/// What the page calls of a run's code.
pub(in crate::client) struct Engine {
    pub(super) send: fn(&Shared, SendInput, String),
    pub(super) follow_run: fn(&Shared, String),
    pub(super) answer:
        fn(&Shared, &str, bool, Option<Value>, ReadSignal<Vec<MessageEntry>>, ReadSignal<RunView>),
    pub(super) maybe_resume: fn(&Shared, String),
    pub(super) retry: fn(&Shared),
    pub(super) edit: fn(&Shared, String, String),
    pub(super) open_recording: fn(&Shared, Vec<u8>),
    /// The event inspector's loader of a stored thread's runs (`crate::client::history`).
    pub(in crate::client) history: fn(
        String,
        StoredValue<Option<String>>,
        ReadSignal<Vec<EventRecord>>,
        RwSignal<Vec<EventRecord>>,
        RwSignal<HistoryStatus>,
    ) -> Pin<Box<dyn Future<Output = ()>>>,
    /// `replay_body`, the page pipeline's benchmark entry (`crate::client::replay`).
    pub(in crate::client) replay: fn(&str, &str, &[u8], bool, usize) -> String,
}

static ENGINE: Engine = Engine {
    send: super::run::send,
    follow_run: super::run::follow_run,
    answer: super::hitl::answer,
    maybe_resume: super::hitl::maybe_resume,
    retry: super::run::retry,
    edit: super::edit::edit_and_resend,
    open_recording: super::replay::open_recording,
    history: |thread, loaded_for, live, records, status| {
        Box::pin(crate::client::history::load::load(
            thread, loaded_for, live, records, status,
        ))
    },
    replay: crate::client::replay::replay,
};

split_fn!(
    run_engine,
    __preload_run_engine,
    /// The table, from the chunk (the only reference to [`ENGINE`], so what it reaches is the
    /// chunk's).
    fn engine_table() -> &'static Engine {
        &ENGINE
    }
);

/// A chunk of the page's own that a run needs as well (the messages' views), fetched beside
/// the engine's.
pub type AlsoLoad = fn() -> Pin<Box<dyn Future<Output = ()>>>;

thread_local! {
    static LOADED: Cell<Option<&'static Engine>> = const { Cell::new(None) };
    static ALSO: Cell<Option<AlsoLoad>> = const { Cell::new(None) };
}

/// Names a chunk that is fetched with the engine's, so that what a run draws is there when it
/// runs (set by the page before it hydrates).
pub fn load_with_engine(also: AlsoLoad) {
    ALSO.with(|a| a.set(Some(also)));
}

/// The engine, its chunk fetched first if it has not been (`Err` when it could not be).
pub(in crate::client) async fn engine() -> Result<&'static Engine, String> {
    if let Some(e) = LOADED.with(Cell::get) {
        return Ok(e);
    }
    let also = async {
        if let Some(also) = ALSO.with(Cell::get) {
            also().await;
        }
    };
    let (e, ()) = futures::join!(engine_table(), also);
    let e = e.map_err(|e| e.to_string())?;
    LOADED.with(|l| l.set(Some(e)));
    Ok(e)
}

/// Fetches the engine's chunk (the page's idle time after hydration); whether it is there.
pub async fn load() -> bool {
    engine().await.is_ok()
}

/// Runs `f` with the engine: at once when its chunk is there, else once it has come, the page
/// showing a run connecting meanwhile (what pressing Send shows at once; put back as it was if
/// `f` started nothing). A chunk that cannot be fetched is said in the error banner (nothing of
/// the action was done).
pub(super) fn with_engine(l: &Shared, f: impl FnOnce(&'static Engine, &Shared) + 'static) {
    with_engine_or(l, f, None);
}

/// [`with_engine`], and when the chunk cannot be fetched, `unsent` (a message's text) goes
/// back to the composer.
pub(super) fn with_engine_or(
    l: &Shared,
    f: impl FnOnce(&'static Engine, &Shared) + 'static,
    unsent: Option<String>,
) {
    if let Some(e) = LOADED.with(Cell::get) {
        return f(e, l);
    }
    let (w, generation) = {
        let b = l.borrow();
        (b.w, b.generation)
    };
    let before = w.connection.get_untracked();
    w.connection.set(Connection::Connecting);
    let l = l.clone();
    leptos::task::spawn_local(async move {
        match engine().await {
            Ok(e) => {
                f(e, &l);
                let started = l.borrow().generation != generation;
                if !started && w.connection.get_untracked() == Connection::Connecting {
                    w.connection.set(before);
                }
            }
            Err(_) => {
                w.error.set(Some(RunErrorView {
                    message: unfetched("The run could not start", TRY_AGAIN),
                    code: Some("CHUNK".into()),
                }));
                w.connection.set(Connection::Failed);
                if unsent.is_some() {
                    w.unsent.set(unsent);
                }
            }
        }
    });
}

/// `replay_body` of the page's module: a recorded body through the pipeline alone
/// (`crate::client::replay`), for `end2end/bench/pipeline.mjs`; a promise, as the pipeline is
/// in the engine's chunk.
#[wasm_bindgen::prelude::wasm_bindgen]
pub async fn replay_body(
    thread_id: String,
    run_id: String,
    body: Vec<u8>,
    protobuf: bool,
    piece: usize,
) -> Result<String, String> {
    let engine = engine().await?;
    Ok((engine.replay)(&thread_id, &run_id, &body, protobuf, piece))
}
