//! The browser half of the history loader: fetch the thread, then each run's events, and read
//! them in slices with a yield to the page between slices.

use std::collections::HashSet;

use leptos::prelude::*;

use super::plan::{runs_to_load, HistoryStatus};
use crate::client::event_log::{records, EventRecord, RunMark, HISTORY_LIMIT, MAX_RECORDING_BYTES};
use crate::client::transport::{get_json, get_stream, sleep_ms, TransportError};
use crate::protocol::pipeline::{Pipeline, PipelineOptions};
use crate::wire::ThreadRuns;

/// Bytes of a stored run read between two yields to the page.
const SLICE: usize = 32 * 1024;

pub(in crate::client) async fn load(
    thread: String,
    loaded_for: StoredValue<Option<String>>,
    live: ReadSignal<Vec<EventRecord>>,
    records_out: RwSignal<Vec<EventRecord>>,
    status: RwSignal<HistoryStatus>,
) {
    let url = crate::wire::thread_url(&thread);
    let current = move || loaded_for.with_value(|l| l.as_deref() == Some(thread.as_str()));
    // The runs alone: the conversation's parse is the thread chunk's (`ui::thread_parse`).
    let view = match get_json::<ThreadRuns>(&url, &[]).await {
        Ok(Some(view)) => view,
        Ok(None) => {
            if current() {
                status.set(HistoryStatus::NotStored);
            }
            return;
        }
        Err(e) => {
            if current() {
                status.set(HistoryStatus::Failed(e.to_string()));
            }
            return;
        }
    };
    let live_runs: HashSet<String> = live.with_untracked(|l| {
        let mut seen = HashSet::new();
        for r in l {
            if !seen.contains(&*r.run_id) {
                seen.insert(r.run_id.to_string());
            }
        }
        seen
    });
    let (runs, left_out) = runs_to_load(&view.runs, &|id| live_runs.contains(id), HISTORY_LIMIT);
    let mut key = 0usize;
    let mut events = 0usize;
    for (i, run) in runs.iter().enumerate() {
        if !current() {
            return;
        }
        status.set(HistoryStatus::Loading {
            runs_done: i,
            runs: runs.len(),
            events,
        });
        let Some(controller) = web_sys::AbortController::new().ok() else {
            return;
        };
        // A stored run's bytes are held while it is read: at most as much as a recording.
        let mut bytes = Vec::new();
        let signal = controller.signal();
        let got = get_stream(
            &run.events_url,
            &[],
            &signal,
            |_| {},
            |chunk| {
                if bytes.len() + chunk.len() > MAX_RECORDING_BYTES {
                    controller.abort();
                } else {
                    bytes.extend_from_slice(chunk);
                }
            },
        )
        .await;
        let got = match got {
            Err(TransportError::Aborted) => Err(TransportError::Network(format!(
                "run {} is over {} MB",
                run.run_id,
                MAX_RECORDING_BYTES >> 20
            ))),
            other => other,
        };
        if let Err(e) = got {
            if current() {
                status.set(HistoryStatus::Failed(e.to_string()));
            }
            return;
        }
        let mut pipeline = Pipeline::new(PipelineOptions::default());
        let mut mark = RunMark::new(&run.run_id, run.started_at as f64);
        let mut seen_warnings = 0;
        let mut slices = bytes.chunks(SLICE).peekable();
        while let Some(slice) = slices.next() {
            let mut delivered = pipeline.push_bytes(slice);
            if slices.peek().is_none() {
                delivered.extend(pipeline.finish());
            }
            let now = run.started_at as f64;
            let recs = records(
                delivered,
                &pipeline.warnings,
                &mut seen_warnings,
                &mut mark,
                &mut key,
                now,
            );
            events += recs.len();
            if !current() {
                return;
            }
            records_out.update(|r| r.extend(recs));
            sleep_ms(0).await;
        }
    }
    if current() {
        status.set(HistoryStatus::Loaded {
            runs: runs.len(),
            events,
            left_out,
        });
    }
}
