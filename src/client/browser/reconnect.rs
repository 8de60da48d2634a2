//! Reading a run again after its stream broke: a detached run of this server is re-read from
//! its last event id, with backoff, through the same pipeline (which drops the frame the break
//! cut and skips what it already applied).

use leptos::prelude::*;

use crate::client::session::Connection;
use crate::client::transport::{get_stream, now_ms, sleep_ms, TransportError};
use crate::protocol::pipeline::{Pipeline, StreamOutcome};

use super::frames::{on_bytes, on_open_body};
use super::live::Shared;

/// Backoff of resuming: the first wait, the longest wait, and how long to keep trying
/// without receiving anything.
const RESUME_FIRST_MS: u32 = 250;
const RESUME_MAX_MS: u32 = 4000;
const RESUME_GIVE_UP_MS: f64 = 30_000.0;

/// `POST /api/runs/{id}/cancel` for a run whose events are at `/api/runs/{id}/events`.
pub(super) fn cancel_url(events_url: &str) -> String {
    let base = events_url.strip_suffix("/events").unwrap_or(events_url);
    format!("{base}/cancel")
}

/// While the current run's stream broke before its terminal event and the run can be re-read,
/// resume it after the last event seen. Returns the result to finish the run with.
pub(super) async fn resume_run(
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
            // Still open (a refused stream is Failed and ends here).
            let open = outcome == Some(StreamOutcome::Truncated);
            match (&b.events_url, open, &result) {
                // Refused (a resume GET answered 404: the run is unknown) or stopped.
                (_, _, Err(TransportError::Http { .. } | TransportError::Aborted)) => {
                    return result
                }
                (Some(url), true, _) => (
                    url.clone(),
                    b.pipeline
                        .as_ref()
                        .and_then(|p| p.last_event_id().map(str::to_string)),
                    b.received,
                    b.w,
                ),
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
            // A frame the break cut in two is dropped and arrives again whole; the events
            // before `last_id` that the server sends again are skipped.
            if let Some(p) = b.pipeline.as_mut() {
                p.reconnect();
            }
            let mut headers = b.options.headers.get_untracked();
            headers.insert(0, b.options.format.get_untracked().accept_header());
            headers
        };
        if let Some(id) = &last_id {
            headers.push(("Last-Event-ID".to_string(), id.clone()));
        }
        let (l1, l2) = (l.clone(), l.clone());
        result = get_stream(
            &events_url,
            &headers,
            signal,
            move |resp| on_open_body(&l1, generation, resp),
            move |bytes| on_bytes(&l2, generation, bytes),
        )
        .await;
        if l.borrow().received > received {
            delay = RESUME_FIRST_MS;
            deadline = now_ms() + RESUME_GIVE_UP_MS;
        }
    }
}
