//! The stored history of a thread for the event inspector: every earlier run this server keeps
//! (`GET /api/threads/{id}`, then each run's events from `GET /api/runs/{id}/events`), read
//! through the same pipeline as a live run — so the verifier's warnings are there too — in
//! slices that leave the page responsive. Runs the session itself streamed (or is following)
//! are not loaded again. Loaded when the inspector is open, once per thread.

use leptos::prelude::*;

use crate::client::event_log::EventRecord;
use crate::wire::RunSummary;

/// Where the loading is.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum HistoryStatus {
    #[default]
    Idle,
    Loading {
        runs_done: usize,
        runs: usize,
        events: usize,
    },
    Loaded {
        runs: usize,
        events: usize,
        /// Older runs left out to stay within the inspector's limit.
        left_out: usize,
    },
    /// The thread is not stored on this server (a new thread, a foreign agent's, a recording).
    NotStored,
    Failed(String),
}

impl HistoryStatus {
    /// One line for the inspector, or nothing worth saying.
    pub fn describe(&self) -> Option<String> {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match self {
            HistoryStatus::Idle | HistoryStatus::NotStored => None,
            HistoryStatus::Loading {
                runs_done,
                runs,
                events,
            } => Some(format!(
                "Loading stored history… run {} of {runs}, {}",
                (runs_done + 1).min(*runs),
                plural(*events, "event")
            )),
            HistoryStatus::Loaded {
                runs: 0, left_out, ..
            } if *left_out == 0 => None,
            HistoryStatus::Loaded {
                runs,
                events,
                left_out,
            } => {
                let mut s = format!(
                    "Stored history: {} ({})",
                    plural(*runs, "earlier run"),
                    plural(*events, "event")
                );
                if *left_out > 0 {
                    s.push_str(&format!(
                        "; {} not loaded (over the limit)",
                        plural(*left_out, "older run")
                    ));
                }
                Some(s)
            }
            HistoryStatus::Failed(e) => Some(format!("Could not load the stored history: {e}")),
        }
    }
}

/// The runs to load: finished ones the session does not have, the newest that fit in `limit`
/// events (oldest first); and how many older ones were left out.
pub fn runs_to_load(
    runs: &[RunSummary],
    live_runs: &dyn Fn(&str) -> bool,
    limit: usize,
) -> (Vec<RunSummary>, usize) {
    let mut candidates: Vec<&RunSummary> = runs
        .iter()
        .filter(|r| r.status != crate::wire::RunState::Running && !live_runs(&r.run_id))
        .collect();
    candidates.sort_by_key(|r| r.started_at);
    let mut total = 0usize;
    let mut keep = 0;
    for r in candidates.iter().rev() {
        let n = usize::try_from(r.event_count).unwrap_or(usize::MAX);
        if total.saturating_add(n) > limit {
            break;
        }
        total += n;
        keep += 1;
    }
    let left_out = candidates.len() - keep;
    (
        candidates[left_out..].iter().map(|r| (*r).clone()).collect(),
        left_out,
    )
}

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
            leptos::task::spawn_local(load::load(thread, loaded_for, live, records, status));
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
mod load;

#[cfg(test)]
#[path = "history/tests.rs"]
mod tests;
