//! The rehearsal's stream and its protobuf files.

use super::*;

/// Where [`events`] splits into the three files: the first text delta, and the event after
/// the last one.
const FIRST_DELTA: usize = 11;
const AFTER_DELTAS: usize = 13;

/// The delta event the protobuf rehearsal repeats.
fn delta_event() -> Value {
    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "warm-a", "delta": "Some *text* and `code`. "})
}

#[test]
fn the_rehearsal_stream_is_a_complete_valid_run() {
    let (p, delivered) = through_pipeline(stream().as_bytes(), false, usize::MAX);
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
        assert!(n < 100, "the rehearsal does not end");
    }
    assert_eq!(n, 4 + PB_ROUNDS);
}

/// The fixed protobuf files are the encoding of the rehearsal's events (with
/// `WARM_WRITE=1`, the test writes them anew).
#[test]
fn the_protobuf_rehearsal_is_the_encoding_of_its_events() {
    use crate::protocol::proto::encode_event_json;
    let ev = events();
    assert!(ev[FIRST_DELTA - 1]["type"] != "TEXT_MESSAGE_CONTENT");
    assert!(ev[FIRST_DELTA..AFTER_DELTAS]
        .iter()
        .all(|e| e["type"] == "TEXT_MESSAGE_CONTENT"));
    assert!(ev[AFTER_DELTAS]["type"] != "TEXT_MESSAGE_CONTENT");
    let frames = |es: &[Value]| -> Vec<u8> {
        es.iter()
            .flat_map(|e| encode_event_json(e).expect("encodes"))
            .collect()
    };
    let want = [
        ("head", frames(&ev[..FIRST_DELTA])),
        ("delta", frames(&[delta_event()])),
        ("tail", frames(&ev[AFTER_DELTAS..])),
    ];
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/ui/warm");
    for (name, bytes) in &want {
        let path = format!("{dir}/{name}.pb");
        if std::env::var_os("WARM_WRITE").is_some() {
            std::fs::write(&path, bytes).expect("writes");
        }
        let have = std::fs::read(&path).expect("reads");
        assert_eq!(
            &have, bytes,
            "{path} is stale: run this test with WARM_WRITE=1"
        );
    }
    assert_eq!(PB_HEAD, want[0].1.as_slice());
}

#[test]
fn the_protobuf_rehearsal_is_a_complete_valid_run() {
    let (p, delivered) = through_pipeline(&proto_stream(), true, usize::MAX);
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(delivered.len(), events().len() - 2 + DELTAS);
}
