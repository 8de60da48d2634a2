//! The stored history of a thread for the event inspector: every earlier run this server keeps
//! (`GET /api/threads/{id}`, then each run's events from `GET /api/runs/{id}/events`), read
//! through the same pipeline as a live run — so the verifier's warnings are there too — in
//! slices that leave the page responsive. Runs the session itself streamed (or is following)
//! are not loaded again. Loaded when the inspector is open, once per thread.

use leptos::prelude::*;

use crate::client::event_log::EventRecord;

#[path = "history/plan.rs"]
pub(in crate::client) mod plan;
pub use plan::{runs_to_load, HistoryStatus};

/// The history of the session's thread and where its loading is.
#[derive(Clone, Copy)]
pub struct History {
    pub records: ReadSignal<Vec<EventRecord>>,
    pub status: ReadSignal<HistoryStatus>,
}

/// Load the stored history of `thread_id` while `active` (the inspector is open), when it is
/// `stored` (the thread the session was opened with, whose runs the server keeps; a new thread
/// has none yet); `live` is the session's own log, whose runs are not loaded again.
pub fn use_history(
    thread_id: ReadSignal<String>,
    stored: StoredValue<Option<String>>,
    live: ReadSignal<Vec<EventRecord>>,
    active: Signal<bool>,
) -> History {
    let records = RwSignal::new(Vec::new());
    let status = RwSignal::new(HistoryStatus::Idle);
    #[cfg(feature = "hydrate")]
    {
        let loaded_for = StoredValue::new(None::<String>);
        Effect::new(move |_| {
            let thread = thread_id.get();
            if loaded_for.with_value(|l| l.as_deref() != Some(thread.as_str())) {
                records.set(Vec::new());
                status.set(HistoryStatus::Idle);
                loaded_for.set_value(None);
            }
            if !active.get() || loaded_for.with_value(Option::is_some) {
                return;
            }
            if stored.with_value(|s| s.as_deref() != Some(thread.as_str())) {
                status.set(HistoryStatus::NotStored);
                return;
            }
            loaded_for.set_value(Some(thread.clone()));
            leptos::task::spawn_local(async move {
                // The loader is a run's code (the pipeline): in the engine's chunk.
                match crate::client::browser::engine::engine().await {
                    Ok(e) => (e.history)(thread, loaded_for, live, records, status).await,
                    Err(e) => status.set(HistoryStatus::Failed(e)),
                }
            });
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (thread_id, stored, live, active);
    History {
        records: records.read_only(),
        status: status.read_only(),
    }
}

#[cfg(feature = "hydrate")]
#[path = "history/load.rs"]
pub(in crate::client) mod load;
