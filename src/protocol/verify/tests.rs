//! The consumer MUSTs of AG-UI 1.1 on run boundaries: the input's thread, one thread per
//! stream, matching run ids, unique interrupt ids.

use serde_json::{json, Value};

use super::*;

fn ev(v: Value) -> Event {
    Event::from_value(v.clone()).unwrap_or_else(|e| panic!("bad test event {v}: {e}"))
}

/// Feed `events`; the first violation, if any.
fn verify(v: &mut Verifier, events: Value) -> Option<String> {
    let mut warnings = Vec::new();
    for e in events.as_array().unwrap() {
        if let Err(err) = v.check(&ev(e.clone()), &mut warnings) {
            return Some(err.to_string());
        }
    }
    None
}

fn started(thread: &str, run: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})
}

fn finished(thread: &str, run: &str) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

#[test]
fn boundary_events_carry_the_inputs_thread() {
    let mut v = Verifier::new();
    v.expect_thread("t1");
    assert_eq!(
        verify(&mut v, json!([started("t1", "r1"), finished("t1", "r1")])),
        None
    );

    let mut v = Verifier::new();
    v.expect_thread("t1");
    let err = verify(&mut v, json!([started("other", "r1")])).unwrap();
    assert!(err.contains("RUN_STARTED threadId 'other'"), "{err}");
    assert!(err.contains("the input's threadId 't1'"), "{err}");

    let mut v = Verifier::new();
    v.expect_thread("t1");
    let err = verify(
        &mut v,
        json!([started("t1", "r1"), finished("other", "r1")]),
    )
    .unwrap();
    assert!(err.contains("RUN_FINISHED threadId 'other'"), "{err}");
}

#[test]
fn a_stream_does_not_switch_threads() {
    // Without an input, the first RUN_STARTED fixes the thread.
    let mut v = Verifier::new();
    let same = json!([
        started("t1", "r1"),
        finished("t1", "r1"),
        started("t1", "r2"),
        finished("t1", "r2")
    ]);
    assert_eq!(
        verify(&mut v, same),
        None,
        "runs of one thread may follow each other"
    );
    let mut v = Verifier::new();
    let err = verify(
        &mut v,
        json!([
            started("t1", "r1"),
            finished("t1", "r1"),
            started("t2", "r2")
        ]),
    )
    .unwrap();
    assert!(err.contains("does not switch threads"), "{err}");
    // Also after a RUN_ERROR.
    let mut v = Verifier::new();
    let err = verify(
        &mut v,
        json!([started("t1", "r1"), {"type": "RUN_ERROR", "message": "x"}, started("t2", "r2")]),
    )
    .unwrap();
    assert!(err.contains("does not switch threads"), "{err}");
}

#[test]
fn the_terminal_event_matches_the_run_it_ends() {
    let mut v = Verifier::new();
    let err = verify(&mut v, json!([started("t1", "r1"), finished("t1", "r2")])).unwrap();
    assert_eq!(
        err,
        "RUN_FINISHED runId 'r2' does not match the RUN_STARTED runId 'r1'"
    );
}

#[test]
fn interrupt_ids_are_unique_within_a_run() {
    let outcome = |ids: &[&str]| {
        let interrupts: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "reason": "confirmation"}))
            .collect();
        json!([started("t", "r"), {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
            "outcome": {"type": "interrupt", "interrupts": interrupts}}])
    };
    assert_eq!(verify(&mut Verifier::new(), outcome(&["a", "b"])), None);
    let err = verify(&mut Verifier::new(), outcome(&["a", "b", "a"])).unwrap();
    assert!(err.contains("interrupt id 'a' appears twice"), "{err}");
}
