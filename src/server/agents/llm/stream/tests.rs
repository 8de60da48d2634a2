//! Tests of the `stream` module: chunks in, events and the turn's record out.
use serde_json::json;

use super::*;

fn types(events: &[EventKind]) -> Vec<&'static str> {
    events.iter().map(EventKind::type_name).collect()
}

fn feed(turn: &mut Turn, chunks: &[Value]) -> Vec<EventKind> {
    let mut taken = HashSet::new();
    let mut out = Vec::new();
    for c in chunks {
        out.extend(turn.data(&c.to_string(), &mut taken).unwrap());
    }
    out.extend(turn.data("[DONE]", &mut taken).unwrap());
    out.extend(turn.close());
    out
}

fn delta(d: Value) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "m1",
           "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "m1",
           "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

#[test]
fn reasoning_then_text_then_usage() {
    let mut t = Turn::new("m".into(), "p".into());
    let events = feed(
        &mut t,
        &[
            delta(json!({"role": "assistant", "content": "", "reasoning_content": "Hmm"})),
            delta(json!({"content": "", "reasoning": "…", "reasoning_content": "…"})),
            delta(json!({"content": "Hi"})),
            delta(json!({"content": "!"})),
            finish("stop"),
            json!({"id": "c", "object": "chat.completion.chunk", "model": "m1", "choices": [],
                   "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12,
                             "completion_tokens_details": {"reasoning_tokens": 3}}}),
        ],
    );
    assert_eq!(
        types(&events),
        [
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END"
        ]
    );
    assert_eq!(t.content, "Hi!");
    assert!(t.is_complete() && t.done);
    assert_eq!(t.finish_reason.as_deref(), Some("stop"));
    assert_eq!(t.model.as_deref(), Some("m1"));
    let u = t.usage.clone().unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.reasoning_tokens
        ),
        (Some(5), Some(7), Some(12), Some(3))
    );
    assert!(
        matches!(&events[6], EventKind::TextMessageStart { message_id, .. } if message_id == "m")
    );
}

#[test]
fn parallel_tool_calls_by_index() {
    let mut t = Turn::new("m".into(), "p".into());
    let call = |i: u64, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut c = json!({"index": i, "function": {"arguments": args}});
        if let Some(id) = id {
            c["id"] = json!(id);
            c["type"] = json!("function");
        }
        if let Some(n) = name {
            c["function"]["name"] = json!(n);
        }
        delta(json!({"tool_calls": [c]}))
    };
    let events = feed(
        &mut t,
        &[
            delta(json!({"content": "Checking."})),
            call(0, Some("call_a"), Some("f"), ""),
            call(0, None, None, "{\"x\":"),
            call(1, Some("call_b"), Some("g"), ""),
            call(1, None, None, "{}"),
            call(0, None, None, "1}"),
            finish("tool_calls"),
        ],
    );
    assert_eq!(
        types(&events),
        [
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_END"
        ]
    );
    let calls: Vec<_> = t
        .calls()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(calls, [("call_a", "f", "{\"x\":1}"), ("call_b", "g", "{}")]);
    assert!(
        matches!(&events[3], EventKind::ToolCallStart { parent_message_id: Some(p), .. } if p == "m")
    );
    // Closing twice ends nothing twice.
    assert!(t.close().is_empty());
}

#[test]
fn ollama_whole_calls_reusing_index_and_taken_ids() {
    let mut t = Turn::new("m".into(), "p".into());
    let mut taken = HashSet::from(["call_1".to_string()]);
    let whole = |id: &str, name: &str| json!({"id": id, "index": 0, "type": "function", "function": {"name": name, "arguments": "{\"a\":1}"}});
    let chunk = delta(json!({"role": "assistant", "content": "",
        "tool_calls": [whole("call_1", "f"), whole("call_2", "g")]}));
    let mut events = t.data(&chunk.to_string(), &mut taken).unwrap();
    // Same ids again in a later chunk continue those calls.
    let again =
        delta(json!({"tool_calls": [{"id": "call_2", "index": 0, "function": {"arguments": ""}}]}));
    events.extend(t.data(&again.to_string(), &mut taken).unwrap());
    events.extend(t.close());
    assert_eq!(
        types(&events),
        [
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_END"
        ]
    );
    let ids: Vec<_> = t.calls().map(|c| c.id.clone()).collect();
    // call_1 was already in the thread: it gets an id of ours.
    assert_eq!(ids, ["p-call1", "call_2"]);
    assert!(taken.contains("p-call1") && taken.contains("call_2"));
    assert!(!t.is_complete());
}

#[test]
fn arguments_before_the_name_wait_for_it() {
    let mut t = Turn::new("m".into(), "p".into());
    let events = feed(
        &mut t,
        &[
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\""}}]})),
            delta(
                json!({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": ":2}"}}]}),
            ),
            finish("tool_calls"),
        ],
    );
    assert_eq!(
        types(&events),
        [
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END"
        ]
    );
    let c = t.calls().next().unwrap();
    assert_eq!(
        (c.id.as_str(), c.arguments.as_str()),
        ("p-call1", "{\"a\":2}")
    );
}

#[test]
fn text_after_tool_calls_is_a_new_message() {
    let mut t = Turn::new("m".into(), "p".into());
    let events = feed(
        &mut t,
        &[
            delta(
                json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}]}),
            ),
            delta(json!({"content": "done"})),
            finish("stop"),
        ],
    );
    assert!(
        matches!(&events[2], EventKind::TextMessageStart { message_id, .. } if message_id == "p-msg1")
    );
}

#[test]
fn errors_and_malformed_chunks() {
    let mut t = Turn::new("m".into(), "p".into());
    let mut taken = HashSet::new();
    assert_eq!(
        t.data(
            r#"{"error": {"message": "overloaded", "type": "server_error"}}"#,
            &mut taken
        ),
        Err(ChunkError::Upstream("overloaded".into()))
    );
    assert!(matches!(
        t.data("{not json", &mut taken),
        Err(ChunkError::Malformed(_))
    ));
    assert!(matches!(
        t.data("[1]", &mut taken),
        Err(ChunkError::Malformed(_))
    ));
    // A whole completion reads like one chunk.
    let whole = json!({"object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]});
    let events = t.chunk(&whole, &mut taken).unwrap();
    assert_eq!(
        types(&events),
        ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    );
    assert!(t.is_complete());
}
