//! "Open recording": a recorded stream (JSON Lines, a JSON array, a conformance fixture or raw
//! SSE, in any dialect the pipeline reads) replayed into a new thread of the session — the
//! transcript draws it and the inspector lists its events, as `agui-studio inspect` reports it
//! (both start from [`crate::protocol::inspect`]). Read in slices with a yield to the page
//! between them; nothing is sent to any agent.

use leptos::prelude::*;

use crate::client::errors::{RunErrorView, Target};
use crate::client::event_log::MAX_RECORDING_BYTES;
use crate::client::session::Connection;
use crate::client::transport::{sleep_ms, TransportError};
use crate::protocol::inspect::{parse_recording, reader, Reader, Recording};
use crate::protocol::types::RunAgentInput;

use super::frames::{record, schedule_frame};
use super::live::Shared;
use super::run::finish_run;

/// Bytes of raw SSE, or events of a list, read between two yields.
const SSE_SLICE: usize = 32 * 1024;
const EVENT_SLICE: usize = 250;

pub(super) fn open_recording(l: &Shared, bytes: Vec<u8>) {
    let w = l.borrow().w;
    let refuse = |message: String| {
        w.error.set(Some(RunErrorView {
            message,
            code: Some("RECORDING".into()),
        }));
        w.connection.set(Connection::Failed);
    };
    if bytes.len() > MAX_RECORDING_BYTES {
        return refuse(format!(
            "The recording is {} MB; at most {} MB can be opened.",
            bytes.len() / (1024 * 1024),
            MAX_RECORDING_BYTES / (1024 * 1024)
        ));
    }
    let inspection = match parse_recording(bytes) {
        Ok(i) => i,
        Err(e) => {
            return refuse(format!(
                "This file is not a recording of an AG-UI stream: {e}"
            ))
        }
    };
    let Reader {
        pipeline, input, ..
    } = match reader(inspection.input, inspection.max_protocol_version) {
        Ok(r) => r,
        Err((e, _)) => return refuse(format!("The recording's request is not valid: {e}")),
    };
    let thread = w.thread_id.get_untracked();
    let input = input.unwrap_or_else(|| RunAgentInput::new(thread, "recording"));
    let generation = {
        let mut b = l.borrow_mut();
        b.generation += 1;
        b.begin_run(input, pipeline, None);
        b.generation
    };
    w.error.set(None);
    w.connection.set(Connection::Streaming);
    schedule_frame(l);
    let l = l.clone();
    let recording = inspection.recording;
    leptos::task::spawn_local(async move {
        let current = |l: &Shared| l.borrow().generation == generation;
        match recording {
            Recording::Sse(bytes) => {
                for slice in bytes.chunks(SSE_SLICE) {
                    if !current(&l) {
                        return;
                    }
                    feed(&l, |p| p.push_bytes(slice));
                    sleep_ms(0).await;
                }
            }
            Recording::Events(events) => {
                let mut events = events.into_iter().peekable();
                while events.peek().is_some() {
                    if !current(&l) {
                        return;
                    }
                    let batch: Vec<_> = events.by_ref().take(EVENT_SLICE).collect();
                    feed(&l, |p| {
                        batch
                            .into_iter()
                            .flat_map(|e| p.push_value(None, e))
                            .collect()
                    });
                    sleep_ms(0).await;
                }
            }
        }
        let tried = Target {
            url: "the recording".into(),
            same_origin: true,
        };
        finish_run(&l, generation, Ok::<(), TransportError>(()), &tried);
    });
}

fn feed(
    l: &Shared,
    push: impl FnOnce(
        &mut crate::protocol::pipeline::Pipeline,
    ) -> Vec<crate::protocol::pipeline::Delivered>,
) {
    let mut b = l.borrow_mut();
    let Some(p) = b.pipeline.as_mut() else {
        return;
    };
    let delivered = push(p);
    record(&mut b, delivered);
    drop(b);
    schedule_frame(l);
}
