//! Reading a run again: following a run that was already going when the page loaded, and
//! resuming a detached run whose stream broke, from its last event id, with backoff.

use super::*;

/// Backoff of resuming: the first wait, the longest wait, and how long to keep trying
/// without receiving anything.
const RESUME_FIRST_MS: u32 = 250;
const RESUME_MAX_MS: u32 = 4000;
const RESUME_GIVE_UP_MS: f64 = 30_000.0;

/// Follow a run of this server that was already going when the page loaded: fetch the input it
/// started from, then read its events from the first (stored, then live) through the same
/// resuming path as a broken connection, so the transcript ends as if this page had started it.
pub(super) fn follow_run(l: &Shared, run_id: String) {
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
        let url = crate::wire::run_url(&run_id);
        let Ok(Some(detail)) = get_json::<RunDetail>(&url, &headers).await else {
            return;
        };
        {
            let mut b = l.borrow_mut();
            if b.generation != generation || b.pipeline.is_some() {
                return;
            }
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
        finish_run(&l, generation, result);
    });
}

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
