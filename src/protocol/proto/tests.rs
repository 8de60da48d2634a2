//! The binding against the frozen field numbers, the official corpus, the cross-SDK fixtures,
//! and hostile frames.

use std::collections::BTreeSet;

use prost::Message as _;
use prost_types::{DescriptorProto, FileDescriptorSet};
use serde_json::{json, Value};

use super::*;
use crate::protocol::event::{Event, EVENT_TYPES};

mod hostile;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/agui-conformance");

fn shared(path: &str) -> Option<String> {
    std::fs::read_to_string(format!("{SHARED}/{path}")).ok()
}

/// `Message[.Nested].[oneof.]field = N` and `Enum.VALUE = N`, as the ledger writes them.
fn ledger_of_descriptors() -> BTreeSet<String> {
    fn message(prefix: &str, m: &DescriptorProto, out: &mut BTreeSet<String>) {
        let name = format!("{prefix}{}", m.name());
        for f in &m.field {
            let oneof = f
                .oneof_index
                .filter(|_| !f.proto3_optional())
                .map(|i| format!("{}.", m.oneof_decl[i as usize].name()))
                .unwrap_or_default();
            out.insert(format!("{name}.{oneof}{} = {}", f.name(), f.number()));
        }
        for n in &m.nested_type {
            if !n.options.as_ref().is_some_and(|o| o.map_entry()) {
                message(&format!("{name}."), n, out);
            }
        }
    }
    let set = FileDescriptorSet::decode(DESCRIPTOR_SET).expect("build.rs wrote a descriptor set");
    let mut out = BTreeSet::new();
    for file in set.file.iter().filter(|f| f.package() == "ag_ui") {
        for m in &file.message_type {
            message("", m, &mut out);
        }
        for e in &file.enum_type {
            for v in &e.value {
                out.insert(format!("{}.{} = {}", e.name(), v.name(), v.number()));
            }
        }
    }
    out
}

#[test]
fn field_numbers_match_the_freeze() {
    let vendored = include_str!("../../../proto/proto-freeze.txt");
    if let Some(upstream) = shared("proto/proto-freeze.txt") {
        assert_eq!(
            vendored, upstream,
            "proto/proto-freeze.txt differs from the shared copy"
        );
    }
    let ledger: BTreeSet<String> = vendored
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert_eq!(ledger.len(), 301);
    let generated = ledger_of_descriptors();
    let missing: Vec<_> = ledger.difference(&generated).collect();
    let extra: Vec<_> = generated.difference(&ledger).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "field numbers differ from the freeze\n in the ledger only: {missing:?}\n generated only: {extra:?}"
    );
}

#[test]
fn vendored_proto_files_equal_the_shared_ones() {
    for (name, vendored) in [
        ("events.proto", include_str!("../../../proto/events.proto")),
        ("types.proto", include_str!("../../../proto/types.proto")),
        ("patch.proto", include_str!("../../../proto/patch.proto")),
    ] {
        if let Some(upstream) = shared(&format!("proto/{name}")) {
            assert_eq!(
                vendored, upstream,
                "proto/{name} differs from the shared copy"
            );
        }
    }
}

/// JSON → frame → JSON, through the frame decoder as a stream would go.
fn round_trip(json: &Value) -> Result<Value, String> {
    let frame = encode_event_json(json).map_err(|e| e.to_string())?;
    let mut d = FrameDecoder::new();
    let mut payloads = d.push(&frame).map_err(|e| e.to_string())?;
    d.finish().map_err(|e| e.to_string())?;
    assert_eq!(payloads.len(), 1);
    decode_payload(&payloads.remove(0)).map_err(|e| e.to_string())
}

/// One event of our type survives JSON → protobuf → JSON unchanged.
fn assert_event_round_trips(event: &Event, label: &str) {
    let json = event.to_value();
    let back = round_trip(&json).unwrap_or_else(|e| panic!("{label}: {e}\n{json}"));
    assert_eq!(back, json, "{label}");
    let parsed = Event::from_value(back).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(&parsed, event, "{label}");
}

/// One event of every type, each with its optional fields and base fields set.
fn one_of_each() -> Vec<Value> {
    let base = json!({"timestamp": 1_760_000_000_123_i64, "rawEvent": {"a": [1, null, "x"]}, "metadata": {"k": null, "n": 2.5}});
    let part = |t: &str| json!({"type": t, "source": {"type": "url", "value": "https://e/x", "mimeType": "image/png"}, "id": "p1", "metadata": {"m": 1}});
    let interrupt = json!({"id": "i1", "reason": "approval", "message": "ok?", "toolCallId": "tc", "responseSchema": {"type": "object"}, "expiresAt": "2030-01-01T00:00:00Z", "metadata": {"x": null}});
    let usage = json!([{"provider": "openai", "model": "m", "inputTokens": 3, "outputTokens": 4, "totalTokens": 7, "reasoningTokens": 1, "cachedInputTokens": 0, "cacheWriteInputTokens": 2}]);
    let messages = json!([
        {"id": "s", "role": "system", "content": "Be brief.", "name": "sys"},
        {"id": "d", "role": "developer", "content": "dev"},
        {"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}, part("image"), part("audio"), part("video"),
            {"type": "document", "source": {"type": "data", "value": "QUJD", "mimeType": "application/pdf"}},
            {"type": "image", "source": {"type": "file", "value": "file-1", "provider": "openai"}}]},
        {"id": "u2", "role": "user", "content": "plain"},
        {"id": "a", "role": "assistant", "content": "x", "toolCalls": [{"id": "tc", "type": "function", "function": {"name": "f", "arguments": "{\"q\":1}"}, "metadata": {"t": 1}, "encryptedValue": "e", "encryptedValueType": "v"}], "encryptedValue": "enc"},
        {"id": "t", "role": "tool", "content": "{}", "toolCallId": "tc", "error": "boom"},
        {"id": "act", "role": "activity", "activityType": "PLAN", "content": {"steps": [1, 2]}},
        {"id": "r", "role": "reasoning", "content": "thinking", "encryptedValue": "zz"},
    ]);
    let input = json!({"threadId": "t1", "runId": "r1", "protocolVersion": "1.1", "parentRunId": "r0", "state": {"s": [true, false, null]},
        "messages": messages, "tools": [{"name": "f", "description": "d", "parameters": {"type": "object"}, "metadata": {"ui": "x"}}],
        "context": [{"description": "d", "value": "v"}], "forwardedProps": {"fp": 1},
        "resume": [{"interruptId": "i1", "status": "resolved", "payload": {"ok": true}, "metadata": {"sig": "s"}}]});
    let mut events = vec![
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "name": "n"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "héllo\n"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "d", "name": "n"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "tc", "toolCallName": "f", "parentMessageId": "m"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "tc", "delta": "{\"a\""}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "tc"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "tc", "toolCallName": "f", "parentMessageId": "m", "delta": "{}"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "tm", "toolCallId": "tc", "content": "42", "role": "tool"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "tm", "toolCallId": "tc", "content": [{"type": "text", "text": "a"}, part("image")]}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": {"b": [1, -2, 3.25, "s", null, true]}, "big": 9_007_199_254_740_991_i64}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": null}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": [0]}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/b"},
            {"op": "replace", "path": "/c", "value": null}, {"op": "move", "from": "/a", "path": "/d"},
            {"op": "copy", "from": "/d", "path": "/e"}, {"op": "test", "path": "/e", "value": {"x": [1]}}]}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": messages}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN", "content": {"steps": []}, "replace": false}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "PLAN", "patch": [{"op": "add", "path": "/steps/-", "value": "x"}]}),
        json!({"type": "RAW", "event": {"provider": "x"}, "source": "openai"}),
        json!({"type": "CUSTOM", "name": "ping", "value": [1, {"a": null}]}),
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "parentRunId": "r0", "input": input, "protocolVersion": "1.1"}),
        json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "result": {"ok": true}, "outcome": {"type": "success", "pendingToolCallIds": ["tc"]}, "usage": usage}),
        json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt", "interrupts": [interrupt]}}),
        json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "cancelled"}}),
        json!({"type": "RUN_ERROR", "message": "boom", "code": "X", "usage": usage}),
        json!({"type": "STEP_STARTED", "stepName": "plan"}),
        json!({"type": "STEP_FINISHED", "stepName": "plan"}),
        json!({"type": "REASONING_START", "messageId": "r"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "hm"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "r"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "x"}),
        json!({"type": "REASONING_END", "messageId": "r"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r", "encryptedValue": "e", "encryptedValueType": "t"}),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n", "description": "d", "parentSubagentRunId": "s0", "parentToolCallId": "tc", "parentMessageId": "m"}),
        json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "result": 3, "outcome": {"type": "suspended", "interruptIds": ["i1"]}}),
        json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}),
        json!({"type": "SUBAGENT_ERROR", "subagentRunId": "s1", "message": "m", "code": "c"}),
    ];
    for e in &mut events {
        let attributable = e["type"].as_str().is_some_and(|t| {
            !t.starts_with("RUN_") && !t.starts_with("SUBAGENT_") && t != "MESSAGES_SNAPSHOT"
        });
        let o = e.as_object_mut().unwrap();
        for (k, v) in base.as_object().unwrap() {
            o.insert(k.clone(), v.clone());
        }
        if attributable {
            o.insert("subagentRunId".into(), json!("sub-1"));
        }
    }
    events
}

#[test]
fn every_event_type_round_trips_with_every_field() {
    let events = one_of_each();
    let types: BTreeSet<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types, EVENT_TYPES.into_iter().collect(), "one of each type");
    for json in &events {
        let event = Event::from_value(json.clone()).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(&event.to_value(), json, "the sample is in our wire form");
        assert_event_round_trips(&event, &json.to_string());
    }
}

#[test]
fn every_valid_corpus_event_round_trips() {
    let Ok(entries) = std::fs::read_dir(format!("{SHARED}/streams")) else {
        return; // the corpus lives beside the repository, not in it
    };
    let (mut checked, mut refused, mut types) = (0, 0, BTreeSet::new());
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for raw in fixture["stream"].as_array().into_iter().flatten() {
            // Deliberately malformed or unknown events have no form of ours to carry.
            let Ok(event) = Event::from_value(raw.clone()) else {
                continue;
            };
            // An op RFC 6902 does not define has no wire number; enforcement drops it before
            // anything of ours is sent (state-delta-unknown-op-dropped).
            if let Err(ProtoError::Encode(why)) = encode_event(&event) {
                assert!(why.contains("patch op"), "{}: {why}", path.display());
                refused += 1;
                continue;
            }
            assert_event_round_trips(&event, &format!("{}: {raw}", path.display()));
            types.insert(event.type_name());
            checked += 1;
        }
    }
    assert!(
        checked > 200 && types.len() >= 25,
        "{checked} events, {types:?}"
    );
    assert_eq!(refused, 1, "only the unknown patch op is refused");
}

#[test]
fn null_omission_fixtures_round_trip_to_their_expected_form() {
    let Some(text) = shared("sdk-fixtures/null-omission.json") else {
        return;
    };
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let cases = fixture["stream"].as_array().unwrap();
    assert_eq!(cases.len(), 28);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let event =
            Event::from_value(case["input"].clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = round_trip(&event.to_value()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = Event::from_value(case["expected"].clone()).unwrap();
        assert_eq!(back, expected.to_value(), "{name}");
        // Nothing absent came back as null.
        assert!(
            !back.as_object().unwrap().values().any(Value::is_null)
                || name.contains("entirely_null"),
            "{name}: {back}"
        );
    }
}

#[test]
fn agent_capabilities_fixtures_survive_as_open_json() {
    // The .proto has no AgentCapabilities message; a capabilities document travels as open
    // JSON (a CUSTOM value, a RUN_FINISHED result), so it must come back exactly.
    let Some(text) = shared("sdk-fixtures/agent-capabilities.json") else {
        return;
    };
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        for carrier in [
            json!({"type": "CUSTOM", "name": "capabilities", "value": case["input"]}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": case["input"]}),
        ] {
            let back = round_trip(&carrier).unwrap();
            assert_eq!(back, carrier, "{}", case["name"]);
        }
        assert_eq!(case["input"], case["expected"], "{}", case["name"]);
    }
}

#[test]
fn numbers_come_back_as_json_would_write_them() {
    let e = json!({"type": "CUSTOM", "name": "n", "value": [0, -1, 2.5, 1e300, -9_007_199_254_740_991_i64, 1e-7]});
    assert_eq!(round_trip(&e).unwrap(), e);
}

#[test]
fn unknown_patch_ops_and_parts_are_refused_on_encode_with_a_reason() {
    let op = json!({"type": "STATE_DELTA", "delta": [{"op": "merge", "path": "/a", "value": 1}]});
    assert!(matches!(json_to_event(&op), Err(ProtoError::Encode(m)) if m.contains("merge")));
    let part = json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "t", "content": [{"type": "hologram"}]});
    assert!(matches!(json_to_event(&part), Err(ProtoError::Encode(m)) if m.contains("hologram")));
    let unknown = json!({"type": "META", "payload": {}});
    assert!(matches!(
        json_to_event(&unknown),
        Err(ProtoError::Encode(_))
    ));
}
