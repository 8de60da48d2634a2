//! From bytes to signals: a run's bytes into its pipeline (which decodes, translates, checks and
//! reduces them), the events recorded for the inspector, and the changes flushed to the signals
//! once per animation frame.

use crate::protocol::pipeline::binary::BodyKind;
use leptos::prelude::*;

use crate::client::event_log::{records, EVENT_LOG_LIMIT};
use crate::client::session::{run_view, sync_messages, Connection};

use super::live::{Live, Shared};

/// A response body opened: the pipeline reads it as its `Content-Type` says (SSE, or the
/// protobuf binding when the run asked for it and the server speaks it).
pub(super) fn on_open_body(l: &Shared, generation: u64, resp: &web_sys::Response) {
    let kind = resp
        .headers()
        .get("Content-Type")
        .ok()
        .flatten()
        .and_then(|ct| BodyKind::of(&ct));
    let mut b = l.borrow_mut();
    if b.generation != generation {
        return;
    }
    if let (Some(kind), Some(p)) = (kind, b.pipeline.as_mut()) {
        p.expect_body(kind);
    }
}

pub(super) fn on_bytes(l: &Shared, generation: u64, bytes: &[u8]) {
    let mut b = l.borrow_mut();
    if b.generation != generation {
        return;
    }
    // A stream the pipeline refused is abandoned (its error ends the run).
    let Some(p) = b.pipeline.as_mut().filter(|p| p.error().is_none()) else {
        return;
    };
    let delivered = p.push_bytes(bytes);
    if b.w.connection.get_untracked() != Connection::Streaming {
        b.w.connection.set(Connection::Streaming);
    }
    b.received += bytes.len() as u64;
    record(&mut b, delivered);
    drop(b);
    schedule_frame(l);
}

pub(super) fn record(b: &mut Live, delivered: Vec<crate::protocol::pipeline::Delivered>) {
    for d in &delivered {
        b.pending.note(&d.change);
    }
    let Live {
        pipeline,
        warnings_seen,
        mark,
        key,
        pending,
        ..
    } = b;
    let Some(p) = pipeline.as_ref() else {
        return;
    };
    let first_new = (*warnings_seen).min(p.warnings.len());
    let recs = records(
        delivered,
        &p.warnings,
        warnings_seen,
        mark,
        key,
        js_sys::Date::now(),
    );
    pending
        .warnings
        .extend(p.warnings[first_new..*warnings_seen].iter().cloned());
    pending.events.extend(recs);
}

pub(super) fn schedule_frame(l: &Shared) {
    if std::mem::replace(&mut l.borrow_mut().frame_scheduled, true) {
        return;
    }
    let l = l.clone();
    request_animation_frame(move || flush(&l));
}

/// Bring the signals up to date with everything that changed since the last frame.
pub(super) fn flush(l: &Shared) {
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
            ev.extend(pending.events);
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
