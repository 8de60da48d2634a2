//! A rehearsal of a run's code paths while the page is idle after hydration.
//!
//! The browser compiles WebAssembly lazily: a function is compiled the first time it is called,
//! on the main thread, in the middle of whatever called it. Without a rehearsal that is the
//! first run of a page: the response's first bytes pay for compiling the decoder, the
//! translator, the verifier, the reducer and the markdown parser, and the run's first frames
//! become tasks over 50 ms. The rehearsal feeds a small recorded stream (every common event
//! type) through a throwaway [`Pipeline`], indexes it as the event inspector does (records, a
//! filter, run summaries, the timeline) and parses a markdown sample, one step per idle moment,
//! so those functions are compiled before the user presses Enter. It touches no signal, no
//! storage and no network.
//!
//! Compiled once is not the end of it: a function that runs often is compiled again, optimised,
//! on a background thread, and on a 2-core machine that compilation takes the core the page
//! needs in the run's first frames (traced: 17–27 ms of top-tier compilation beside each task
//! over 50 ms, in the first 0.3 s of a run). So the rehearsal then streams a protobuf body of a
//! few hundred deltas — the binding the studio asks for by default — through the pipeline and
//! the inspector's indexing, a round per idle moment, until the hot functions are optimised
//! before the user presses Enter. The protobuf bytes are fixed files (`src/ui/warm/*.pb`) so the
//! page carries no encoder; a test checks they are the encoding of [`events`].
//!
//! The rehearsal stands down once the page begins a real run
//! ([`crate::client::session::run_begun`]): measured, a run started within a second or so of
//! hydration met the rehearsal's optimising compilation on the worker threads, and a task over
//! 50 ms at its start in 2 of 3 runs; started after the rehearsal, none in 6 of 6.
//!
//! Views are code too: the first message and the first inspector rows of a page called some
//! 1,800 functions for the first time (traced: 7–14 ms of compilation in each of the run's
//! first tasks). Last, the rehearsal draws its conversation's messages and event rows into an
//! element that is never attached to the document, streams text into the answer for a few
//! frames, and removes them.

use serde_json::{json, Value};

use crate::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use crate::protocol::types::{Message, RunAgentInput, UserMessage};

const THREAD: &str = "warm-thread";
const RUN: &str = "warm-run";

/// The rehearsal's input: what `start_run` would send for a first message.
pub fn input() -> RunAgentInput {
    let mut input = RunAgentInput::new(THREAD, RUN);
    input.messages.push(Message::User(UserMessage {
        id: "warm-user".into(),
        content: crate::protocol::types::Content::Text("hello".into()),
        name: None,
        encrypted_value: None,
        encrypted_value_type: None,
        metadata: None,
        subagent_run_id: None,
    }));
    input
}

/// The rehearsal's events: one of each kind a run commonly carries, in a valid order.
fn events() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": THREAD, "runId": RUN}),
        json!({"type": "STEP_STARTED", "stepName": "plan"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"steps": [{"title": "a", "status": "pending"}]}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/steps/0/status", "value": "done"}]}),
        json!({"type": "STEP_FINISHED", "stepName": "plan"}),
        json!({"type": "REASONING_START", "messageId": "warm-r"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "warm-r", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "warm-r", "delta": "thinking"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "warm-r"}),
        json!({"type": "REASONING_END", "messageId": "warm-r"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "warm-a", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "warm-a", "delta": "# Hello\n\nSome "}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "warm-a", "delta": "*text* and `code`."}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "warm-a"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "warm-t", "toolCallName": "lookup", "parentMessageId": "warm-a"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "warm-t", "delta": "{\"q\":"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "warm-t", "delta": "\"x\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "warm-t"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "warm-tr", "toolCallId": "warm-t", "content": "{\"ok\":true}", "role": "tool"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "warm-act", "activityType": "progress", "content": {"done": 1, "total": 2}}),
        json!({"type": "CUSTOM", "name": "warm", "value": {}}),
        json!({"type": "RUN_FINISHED", "threadId": THREAD, "runId": RUN}),
    ]
}

/// The rehearsal's stream as the server sends it (SSE, with ids).
pub fn stream() -> String {
    let mut out = String::new();
    for (i, e) in events().iter().enumerate() {
        out.push_str(&format!("id: {}\ndata: {e}\n\n", i + 1));
    }
    out
}

/// The protobuf rehearsal: the frames of [`events`] before the first text delta, one delta
/// frame (repeated [`DELTAS`] times), and the frames after the last delta.
const PB_HEAD: &[u8] = include_bytes!("warm/head.pb");
const PB_DELTA: &[u8] = include_bytes!("warm/delta.pb");
const PB_TAIL: &[u8] = include_bytes!("warm/tail.pb");
/// Text deltas of one protobuf round.
const DELTAS: usize = 250;
/// Protobuf rounds (one per idle moment): 2,500 deltas in all, about what the first second of
/// a fast run carries.
const PB_ROUNDS: usize = 10;

/// The protobuf rehearsal's body.
pub fn proto_stream() -> Vec<u8> {
    let mut out = Vec::with_capacity(PB_HEAD.len() + PB_DELTA.len() * DELTAS + PB_TAIL.len());
    out.extend_from_slice(PB_HEAD);
    for _ in 0..DELTAS {
        out.extend_from_slice(PB_DELTA);
    }
    out.extend_from_slice(PB_TAIL);
    out
}

/// `body` through a throwaway pipeline of the rehearsal's input, in pieces of `piece` bytes as
/// network reads would split it (protobuf when `proto`), and what it delivered.
fn through_pipeline(
    body: &[u8],
    proto: bool,
    piece: usize,
) -> (Pipeline, Vec<crate::protocol::pipeline::Delivered>) {
    let mut p = Pipeline::for_input(&input(), PipelineOptions::default());
    if proto {
        p.expect_body(crate::protocol::pipeline::binary::BodyKind::Protobuf);
    }
    let mut delivered = Vec::new();
    for piece in body.chunks(piece) {
        delivered.extend(p.push_bytes(piece));
    }
    delivered.extend(p.finish());
    debug_assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
    (p, delivered)
}

/// `body` through a pipeline, and the inspector's records of what it delivered.
fn rehearsed(
    body: &[u8],
    proto: bool,
    piece: usize,
) -> (Pipeline, Vec<crate::client::event_log::EventRecord>) {
    use crate::client::event_log::{records, RunMark};
    let (p, delivered) = through_pipeline(body, proto, piece);
    let (mut seen, mut key) = (0, 0);
    let mut run = RunMark::new(RUN, 0.0);
    let rows = records(delivered, &p.warnings, &mut seen, &mut run, &mut key, 0.0);
    (p, rows)
}

/// One protobuf round: the body through a pipeline and the inspector's indexing of what it
/// delivered.
fn proto_round() {
    use crate::client::event_log::{Filter, FilteredIndex};
    let (_, live) = rehearsed(&proto_stream(), true, 1400);
    let mut index = FilteredIndex::default();
    index.update(&Filter::default(), &[], &live);
}

/// Markdown with the blocks the parser handles (heading, list, code, table, link, quote).
pub const MARKDOWN: &str = "# Title\n\nSome **bold**, *em*, `code` and a [link](https://example.com).\n\n\
- one\n- two\n  1. nested\n\n> quote\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n";

/// Step `n` of the rehearsal (each small enough for one idle moment); `false` when there is
/// no such step.
pub fn step(n: usize) -> bool {
    match n {
        0 => {
            let input = input();
            let _ = crate::protocol::compat::prepare_request(
                serde_json::to_value(&input).unwrap_or_default(),
                None,
            );
        }
        // Split as a network read would, so the decoder's buffering runs too.
        1 => drop(through_pipeline(stream().as_bytes(), false, 97)),
        2 => {
            let _ = crate::ui::markdown::parse::parse(MARKDOWN);
        }
        3 => inspect(),
        n if n < 4 + PB_ROUNDS => proto_round(),
        _ => return false,
    }
    true
}

/// What the event inspector does with a run's events: records, a filtered index, the per-run
/// summary and the timeline.
fn inspect() {
    use crate::client::event_log::{all, Filter, FilteredIndex};
    use crate::client::run_report::{run_stats, timeline};
    let (_, live) = rehearsed(stream().as_bytes(), false, usize::MAX);
    let mut index = FilteredIndex::default();
    let filter = Filter {
        text: "text message".into(),
        run: None,
        warnings_only: false,
    };
    index.update(&filter, &[], &live);
    let _ = run_stats(live.iter());
    let _ = timeline(all(&[], &live));
}

/// The rehearsal's code, a chunk of its own (as a run's is: see `crate::client::load_engine`),
/// fetched once the page is idle.
#[cfg(feature = "hydrate")]
struct Rehearsal {
    step: fn(usize) -> bool,
    views: fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>,
}

#[cfg(feature = "hydrate")]
static REHEARSAL: Rehearsal = Rehearsal {
    step,
    views: || Box::pin(rehearse_views()),
};

crate::client::chunk::split_fn!(
    warm_rehearsal,
    __preload_warm_rehearsal,
    #[cfg(feature = "hydrate")]
    fn rehearsal() -> &'static Rehearsal {
        &REHEARSAL
    }
);

/// Rehearse in the background, one step per idle moment, starting a little after hydration
/// so the page's own start-up work goes first. A run's code and the rehearsal's are fetched
/// first (a chunk that cannot be fetched: no rehearsal; an action would say it in its banner).
#[cfg(feature = "hydrate")]
pub fn after_hydration() {
    use crate::client::transport::sleep_ms;
    leptos::task::spawn_local(async {
        use crate::client::session::run_begun;
        sleep_ms(200).await;
        // A run's code and the messages' views are chunks: fetched now, while the page is idle.
        if !crate::client::load_engine().await {
            return;
        }
        let Ok(r) = rehearsal().await else {
            return;
        };
        let mut n = 0;
        while !run_begun() && (r.step)(n) {
            n += 1;
            sleep_ms(16).await;
        }
        if !run_begun() {
            (r.views)().await;
        }
    });
}

/// The rehearsal's messages and event rows, drawn into an element outside the document (no
/// layout, nothing shown, no context of the page's), the answer streamed for a few frames,
/// then removed.
#[cfg(feature = "hydrate")]
async fn rehearse_views() {
    /// Text appended to the rehearsal's answer at each of its frames.
    const MORE: &str = "More *text*, `code` and a [link](https://example.com). ";
    /// Frames of the view rehearsal.
    const VIEW_FRAMES: usize = 24;
    use crate::client::transport::sleep_ms;
    use crate::protocol::types::Message as Msg;
    use leptos::prelude::*;
    use leptos::wasm_bindgen::JsCast;

    let (p, rows) = rehearsed(stream().as_bytes(), false, usize::MAX);
    let messages: Vec<RwSignal<Msg>> = p
        .conversation
        .messages
        .iter()
        .cloned()
        .map(RwSignal::new)
        .collect();
    let Some(answer) = messages
        .iter()
        .copied()
        .find(|m| m.with_untracked(|m| m.role() == crate::protocol::types::Role::Assistant))
    else {
        return;
    };
    let Some(host) = document()
        .create_element("div")
        .ok()
        .and_then(|e| e.dyn_into::<leptos::web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let streaming = RwSignal::new(true);
    let shown = messages.clone();
    let handle = leptos::mount::mount_to(host, move || {
        view! {
            {shown
                .into_iter()
                .map(|m| view! { <div class="turn"><crate::ui::message::Message message=m streaming/></div> })
                .collect_view()}
            {crate::ui::inspector::rehearsal_rows(rows)}
        }
    });
    for frame in 0..VIEW_FRAMES {
        sleep_ms(16).await;
        if crate::client::session::run_begun() {
            break;
        }
        answer.update(|m| {
            if let Msg::Assistant(a) = m {
                let text = a.content.get_or_insert_with(String::new);
                if frame % 8 == 7 {
                    text.push_str("\n\n");
                }
                text.push_str(MORE);
            }
        });
    }
    streaming.set(false);
    sleep_ms(16).await;
    drop(handle);
    for m in messages {
        m.dispose();
    }
    streaming.dispose();
}

#[cfg(test)]
mod tests;
