//! Tests of the pipeline's handling of events the reducer refuses.

use super::*;
use crate::protocol::reduce::STATE_LIMIT;

fn sse(events: &[serde_json::Value]) -> Vec<u8> {
    events
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// A `STATE_DELTA` copy bomb ends the stream with the fatal `STATE_LIMIT` error: the event is
/// not delivered, nothing after it is, and the state is as before it.
#[test]
fn a_state_bomb_is_fatal_with_a_stable_code() {
    use serde_json::json;
    let bomb: Vec<Value> = (0..40)
        .map(|i| json!({"op": "copy", "from": "", "path": format!("/n{i}")}))
        .collect();
    let mut p = Pipeline::new(PipelineOptions::default());
    let delivered = p.push_bytes(&sse(&[
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"s": "x".repeat(100)}}),
        json!({"type": "STATE_DELTA", "delta": bomb}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    let types: Vec<&str> = delivered.iter().map(|d| d.event.type_name()).collect();
    assert_eq!(types, ["RUN_STARTED", "STATE_SNAPSHOT"]);
    assert_eq!(p.outcome(), StreamOutcome::Failed);
    assert_eq!(p.error_code(), Some(STATE_LIMIT));
    assert_eq!(
        p.error(),
        Some("STATE_DELTA refused: the state would be too large (over 4194304 bytes)")
    );
    assert_eq!(p.conversation.state, json!({"s": "x".repeat(100)}));
    // A protocol error has no code.
    let mut p = Pipeline::new(PipelineOptions::default());
    p.push_bytes(b"data: {\n\n");
    assert_eq!((p.outcome(), p.error_code()), (StreamOutcome::Failed, None));
}
