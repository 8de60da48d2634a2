use super::*;
use serde_json::json;

fn run(v: Value) -> (Result<Enforced, ProtocolError>, Vec<String>) {
    let mut w = Vec::new();
    (enforce(v, &mut w), w)
}

#[test]
fn clean_event_is_quiet() {
    let (r, w) = run(
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x",
        "timestamp": 5, "metadata": {"k": null}, "subagentRunId": "s"}),
    );
    assert!(matches!(r, Ok(Enforced::Event(_))));
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn unknown_type_is_dropped_with_warning() {
    let (r, w) = run(json!({"type": "FUTURE_EVENT", "x": 1}));
    assert_eq!(r, Ok(Enforced::Dropped));
    assert!(w[0].contains("FUTURE_EVENT"));
}

#[test]
fn unknown_property_is_stripped_with_its_path() {
    let (r, w) = run(
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "futureProp": 1}),
    );
    let Ok(Enforced::Event(e)) = r else { panic!() };
    assert!(e.to_value().get("futureProp").is_none());
    assert!(w[0].contains("/futureProp"), "{w:?}");
}

#[test]
fn nested_unknown_property_is_reported_with_full_path() {
    let (_, w) = run(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "type": "function",
         "function": {"name": "f", "arguments": "", "extra": true}}]}]}));
    assert!(
        w.iter()
            .any(|w| w.contains("/messages/0/toolCalls/0/function/extra")),
        "{w:?}"
    );
}

#[test]
fn attribution_on_an_unattributable_event_is_stripped() {
    let (_, w) =
        run(json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "subagentRunId": "s"}));
    assert!(w.iter().any(|w| w.contains("/subagentRunId")), "{w:?}");
}

#[test]
fn malformed_known_field_is_fatal_and_names_the_event() {
    let (r, _) = run(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 5}));
    let err = r.unwrap_err();
    assert!(matches!(err, ProtocolError::Malformed(_)));
    let err = err.to_string();
    assert!(
        err.contains("TEXT_MESSAGE_CONTENT") && err.contains("delta"),
        "{err}"
    );
}

#[test]
fn missing_required_field_is_fatal() {
    let (r, _) = run(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s"}));
    assert!(r.unwrap_err().to_string().contains("name"));
}

#[test]
fn unknown_outcome_is_stripped_but_an_array_is_fatal() {
    let (r, w) = run(
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "paused"}}),
    );
    let Ok(Enforced::Event(e)) = r else { panic!() };
    assert!(e.to_value().get("outcome").is_none());
    assert!(w[0].contains("/outcome"));
    let (r, _) = run(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": []}));
    assert!(r.is_err());
}

#[test]
fn unknown_parts_and_ops_are_dropped_with_paths() {
    let (r, w) = run(
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "u", "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "hologram"}, {"type": "text", "text": "b"}]}]}),
    );
    assert!(matches!(r, Ok(Enforced::Event(_))));
    assert!(w[0].contains("/messages/0/content/1"), "{w:?}");
    let (r, w) = run(
        json!({"type": "STATE_DELTA", "delta": [{"op": "increment", "path": "/a"},
        {"op": "remove", "path": "/b", "value": "extra kept"}]}),
    );
    let Ok(Enforced::Event(e)) = r else { panic!() };
    assert_eq!(
        e.to_value()["delta"],
        json!([{"op": "remove", "path": "/b", "value": "extra kept"}])
    );
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("/delta/0"));
}

#[test]
fn legacy_null_optionals_are_absent_and_quiet() {
    let (r, w) = run(
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": null}),
    );
    assert!(matches!(r, Ok(Enforced::Event(_))));
    assert!(w.is_empty());
}
