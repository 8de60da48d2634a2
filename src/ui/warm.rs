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
        1 => {
            let input = input();
            let mut p = Pipeline::for_input(&input, PipelineOptions::default());
            let bytes = stream();
            // Split as a network read would, so the decoder's buffering runs too.
            for piece in bytes.as_bytes().chunks(97) {
                let _ = p.push_bytes(piece);
            }
            let _ = p.finish();
            debug_assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
        }
        2 => {
            let _ = crate::ui::markdown::parse::parse(MARKDOWN);
        }
        3 => inspect(),
        _ => return false,
    }
    true
}

/// What the event inspector does with a run's events: records, a filtered index, the per-run
/// summary and the timeline.
fn inspect() {
    use crate::client::event_log::{all, records, Filter, FilteredIndex, RunMark};
    use crate::client::run_report::{run_stats, timeline};
    let mut p = Pipeline::for_input(&input(), PipelineOptions::default());
    let mut delivered = p.push_bytes(stream().as_bytes());
    delivered.extend(p.finish());
    let (mut seen, mut key) = (0, 0);
    let mut run = RunMark::new(RUN, 0.0);
    let live = records(delivered, &p.warnings, &mut seen, &mut run, &mut key, 0.0);
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

/// Rehearse in the background, one step per idle moment, starting a little after hydration
/// so the page's own start-up work goes first.
#[cfg(feature = "hydrate")]
pub fn after_hydration() {
    use crate::client::transport::sleep_ms;
    leptos::task::spawn_local(async {
        sleep_ms(200).await;
        let mut n = 0;
        while step(n) {
            n += 1;
            sleep_ms(16).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rehearsal_stream_is_a_complete_valid_run() {
        let mut p = Pipeline::for_input(&input(), PipelineOptions::default());
        let mut delivered = p.push_bytes(stream().as_bytes());
        delivered.extend(p.finish());
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(delivered.len(), events().len());
        let text: Vec<_> = p
            .conversation
            .messages
            .iter()
            .filter_map(Message::text)
            .collect();
        assert!(text.iter().any(|t| t.contains("Some *text*")), "{text:?}");
    }

    #[test]
    fn every_step_runs_and_the_steps_end() {
        let mut n = 0;
        while step(n) {
            n += 1;
            assert!(n < 10, "the rehearsal does not end");
        }
        assert_eq!(n, 4);
    }
}
