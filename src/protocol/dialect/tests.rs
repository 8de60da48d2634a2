//! Tests of the `dialect` module.
use super::*;
use serde_json::json;

/// Feeds SSE text through the translator the way the pipeline does: the decoder reports the
/// default name `message` as `None`, which is the harder case for the named-event dialect.
fn feed_sse(t: &mut Translator, text: &str) -> Translated {
    let mut all = Translated::default();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = Some(v.trim());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.strip_prefix(' ').unwrap_or(v));
            }
        }
        if data.is_empty() {
            continue;
        }
        let value = serde_json::from_str(&data).expect("seed data is JSON");
        let out = t.translate(name.filter(|n| *n != "message"), value);
        all.events.extend(out.events);
        all.warnings.extend(out.warnings);
    }
    all
}

fn feed(t: &mut Translator, events: &[Value]) -> Translated {
    let mut all = Translated::default();
    for ev in events {
        let out = t.translate(None, ev.clone());
        all.events.extend(out.events);
        all.warnings.extend(out.warnings);
    }
    all
}

fn named(t: &mut Translator, name: &str, data: &str) -> Translated {
    t.translate(Some(name), serde_json::from_str(data).unwrap())
}

fn typed(t: &mut Translator, data: &str) -> Translated {
    t.translate(None, serde_json::from_str(data).unwrap())
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

fn raw(name: &str, data: &str) -> Value {
    json!({"event": name, "data": serde_json::from_str::<Value>(data).unwrap()})
}

/// One 1.1 event of every type, including chunks and open payloads.
fn conformant_events() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1", "timestamp": 1}),
        json!({"type": "STEP_STARTED", "stepName": "plan"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "metadata": {"k": null}}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ""}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "x"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "m2"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c2", "toolCallName": "g", "delta": "{}"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "tm1", "toolCallId": "c1", "content": [{"type": "text", "text": "ok"}], "role": "tool"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": null}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": []}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan", "content": {}, "replace": false}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan", "patch": []}),
        json!({"type": "REASONING_START", "messageId": "s1"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "rm1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "rm1", "delta": "hm"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "rm1"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "rm2", "delta": "hm"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "rm1", "encryptedValue": "b3Bh", "encryptedValueType": "x"}),
        json!({"type": "REASONING_END", "messageId": "s1"}),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sa", "name": "n"}),
        json!({"type": "SUBAGENT_ERROR", "subagentRunId": "sa", "message": "m"}),
        json!({"type": "RAW", "event": {"a": 1}, "source": "s"}),
        json!({"type": "CUSTOM", "name": "n", "value": null}),
        json!({"type": "STEP_FINISHED", "stepName": "plan"}),
        json!({"type": "FUTURE_EVENT", "anything": true}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}, "usage": [{"inputTokens": 1}]}),
        json!({"type": "RUN_ERROR", "message": "late", "code": "x"}),
    ]
}

#[test]
fn conformant_events_pass_through_unchanged_and_quietly() {
    let events = conformant_events();
    let mut t = Translator::with_ids("t", "r");
    let out = feed(&mut t, &events);
    assert_eq!(out.events, events);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_eq!(t.finish(), Translated::default());
}

#[test]
fn unrecognised_frames_pass_through() {
    let mut t = Translator::new();
    for (name, data) in [
        (Some("foo"), json!({"x": 1})),
        (None, json!({"x": 1})),
        (None, json!([1, 2])),
        (Some("tool_call_start"), json!("not an object")),
        (Some("message"), json!({"content": 42})),
        (None, json!({"type": "lowercase"})),
    ] {
        let out = t.translate(name, data.clone());
        assert_eq!(out.events, vec![data]);
        assert!(out.warnings.is_empty());
    }
}

/// Every official conformance stream except the one that exercises THINKING_* must reach the
/// enforcement stage exactly as the producer sent it: the fatal ones included, so the
/// translator never repairs what the spec wants rejected.
#[test]
fn conformance_streams_are_untouched() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/agui-conformance/streams"
    );
    let Ok(entries) = std::fs::read_dir(dir) else {
        return; // the corpus lives beside the repository, not in it
    };
    let mut checked = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.starts_with("era-0-0-45") {
            continue;
        }
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let stream = fixture["stream"].as_array().unwrap();
        let mut t = Translator::new();
        let out = feed(&mut t, stream);
        assert_eq!(&out.events, stream, "{name}");
        assert!(out.warnings.is_empty(), "{name}: {:?}", out.warnings);
        checked += 1;
    }
    assert!(checked > 60);
}

// ---- retired THINKING_* (era-0-0-45-thinking-translated.json) ----

#[test]
fn thinking_stream_becomes_reasoning_with_consistent_ids() {
    let stream: Vec<Value> = serde_json::from_str(
        r#"[
{"type": "RUN_STARTED", "threadId": "t-era45", "runId": "r-1"},
{"type": "THINKING_START", "title": "Working"},
{"type": "THINKING_TEXT_MESSAGE_START"},
{"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Let me check."},
{"type": "THINKING_TEXT_MESSAGE_END"},
{"type": "THINKING_END"},
{"type": "TEXT_MESSAGE_START", "messageId": "era45-m1", "role": "assistant"},
{"type": "TEXT_MESSAGE_CONTENT", "messageId": "era45-m1", "delta": "Checked."},
{"type": "TEXT_MESSAGE_END", "messageId": "era45-m1"},
{"type": "RUN_FINISHED", "threadId": "t-era45", "runId": "r-1"}
]"#,
    )
    .unwrap();
    let mut t = Translator::new();
    let out = feed(&mut t, &stream);
    let span = "r-1-reasoning-1";
    let msg = "r-1-reasoning-msg-2";
    assert_eq!(
        out.events,
        vec![
            stream[0].clone(),
            json!({"type": "REASONING_START", "messageId": span, "metadata": {"title": "Working"}}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": msg, "role": "reasoning"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": msg, "delta": "Let me check."}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": msg}),
            json!({"type": "REASONING_END", "messageId": span}),
            stream[6].clone(),
            stream[7].clone(),
            stream[8].clone(),
            stream[9].clone(),
        ]
    );
    assert!(out.warnings.iter().any(|w| w.contains("THINKING_START")));
    assert_eq!(out.warnings.len(), 5, "{:?}", out.warnings);
}

#[test]
fn thinking_keeps_base_fields_and_warns_once_per_kind() {
    let mut t = Translator::with_ids("t", "r");
    let first = typed(
        &mut t,
        r#"{"type": "THINKING_START", "timestamp": 5, "metadata": {"title": "mine", "k": 1}, "title": "theirs"}"#,
    );
    assert_eq!(
        first.events,
        vec![
            json!({"type": "REASONING_START", "messageId": "r-reasoning-1", "timestamp": 5, "metadata": {"title": "mine", "k": 1}})
        ]
    );
    assert_eq!(first.warnings.len(), 1);
    typed(&mut t, r#"{"type": "THINKING_END"}"#);
    let again = typed(&mut t, r#"{"type": "THINKING_START"}"#);
    assert_eq!(again.events[0]["messageId"], "r-reasoning-2");
    assert!(again.warnings.is_empty());
}

// ---- named SSE events (seed 000), each example verbatim ----

#[test]
fn seed000_tool_call_examples() {
    let mut t = Translator::with_ids("t-given", "r-given");
    let data =
        r#"{"toolCallId": "call_abc123", "toolCallName": "web_search", "thread_id": "thread_1"}"#;
    let out = named(&mut t, "tool_call_start", data);
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_STARTED", "threadId": "thread_1", "runId": "r-given"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "call_abc123", "toolCallName": "web_search", "rawEvent": raw("tool_call_start", data)}),
        ]
    );
    assert_eq!(out.warnings.len(), 2);
    assert!(out.warnings[0].contains("synthesised RUN_STARTED"));
    assert!(out.warnings[1].contains("`tool_call_start`"));

    let data = r#"{"toolCallId": "call_abc123", "delta": "{\"query\": \"weather"}"#;
    assert_eq!(
        named(&mut t, "tool_call_args", data).events,
        vec![
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call_abc123", "delta": "{\"query\": \"weather", "rawEvent": raw("tool_call_args", data)})
        ]
    );
    let data = r#"{"toolCallId": "call_abc123"}"#;
    assert_eq!(
        named(&mut t, "tool_call_end", data).events,
        vec![
            json!({"type": "TOOL_CALL_END", "toolCallId": "call_abc123", "rawEvent": raw("tool_call_end", data)})
        ]
    );
    let data =
        r#"{"toolCallId": "call_abc123", "content": "The weather in Tokyo is...", "role": "tool"}"#;
    assert_eq!(
        named(&mut t, "tool_result", data).events,
        vec![
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r-given-tool-result-1", "toolCallId": "call_abc123", "content": "The weather in Tokyo is...", "role": "tool", "rawEvent": raw("tool_result", data)})
        ]
    );
}

#[test]
fn seed000_reasoning_examples() {
    let mut t = Translator::with_ids("t", "r");
    let data = r#"{"messageId": "reasoning-abc123"}"#;
    let out = named(&mut t, "reasoning_start", data);
    assert_eq!(types(&out.events), ["RUN_STARTED", "REASONING_START"]);
    assert_eq!(
        out.events[1],
        json!({"type": "REASONING_START", "messageId": "reasoning-abc123", "rawEvent": raw("reasoning_start", data)})
    );
    let data = r#"{"messageId": "reasoning-abc123", "role": "assistant"}"#;
    assert_eq!(
        named(&mut t, "reasoning_message_start", data).events,
        vec![
            json!({"type": "REASONING_MESSAGE_START", "messageId": "reasoning-abc123", "role": "reasoning", "rawEvent": raw("reasoning_message_start", data)})
        ]
    );
    let data =
        r#"{"messageId": "reasoning-abc123", "delta": "Let me analyze this step by step..."}"#;
    assert_eq!(
        named(&mut t, "reasoning_message_content", data).events,
        vec![
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "reasoning-abc123", "delta": "Let me analyze this step by step...", "rawEvent": raw("reasoning_message_content", data)})
        ]
    );
    let data = r#"{"messageId": "reasoning-abc123"}"#;
    assert_eq!(
        named(&mut t, "reasoning_message_end", data).events,
        vec![
            json!({"type": "REASONING_MESSAGE_END", "messageId": "reasoning-abc123", "rawEvent": raw("reasoning_message_end", data)})
        ]
    );
    assert_eq!(
        named(&mut t, "reasoning_end", data).events,
        vec![
            json!({"type": "REASONING_END", "messageId": "reasoning-abc123", "rawEvent": raw("reasoning_end", data)})
        ]
    );
}

#[test]
fn seed000_message_status_and_error_examples() {
    let mut t = Translator::with_ids("t", "r");
    let data = r#"{"content": "Here is the weather information...", "thread_id": "thread_1"}"#;
    // Both spellings of the SSE default name reach the same translation.
    let out = t.translate(None, serde_json::from_str(data).unwrap());
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_STARTED", "threadId": "thread_1", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "r-msg-1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "r-msg-1", "delta": "Here is the weather information...", "rawEvent": raw("message", data)}),
        ]
    );
    let out = named(&mut t, "message", data);
    assert_eq!(types(&out.events), ["TEXT_MESSAGE_CONTENT"]);
    assert_eq!(out.events[0]["messageId"], "r-msg-1");

    let data = r#"{"type": "complete", "thread_id": "thread_1"}"#;
    assert_eq!(
        named(&mut t, "status", data).events,
        vec![
            json!({"type": "TEXT_MESSAGE_END", "messageId": "r-msg-1"}),
            json!({"type": "RUN_FINISHED", "threadId": "thread_1", "runId": "r", "rawEvent": raw("status", data)}),
        ]
    );
    assert_eq!(t.finish(), Translated::default());

    let mut t = Translator::with_ids("t", "r");
    let data = r#"{"type": "error", "message": "Rate limit exceeded", "code": "RATE_LIMIT"}"#;
    assert_eq!(
        named(&mut t, "error", data).events,
        vec![
            json!({"type": "RUN_ERROR", "message": "Rate limit exceeded", "code": "RATE_LIMIT", "rawEvent": raw("error", data)})
        ]
    );
    let data = r#"{"type": "error", "message": "Tool execution failed", "code": "TOOL_ERROR"}"#;
    assert_eq!(types(&named(&mut t, "error", data).events), ["RUN_ERROR"]);
}

#[test]
fn seed000_status_start_running_and_error() {
    let mut t = Translator::new();
    let out = named(
        &mut t,
        "status",
        r#"{"type": "start", "thread_id": "thread_1"}"#,
    );
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_STARTED", "threadId": "thread_1", "runId": "run-1", "rawEvent": raw("status", r#"{"type": "start", "thread_id": "thread_1"}"#)})
        ]
    );
    named(&mut t, "message", r#"{"content": "a"}"#);
    // `running` is dropped without splitting the open message.
    let out = named(&mut t, "status", r#"{"type": "running"}"#);
    assert!(out.events.is_empty());
    assert!(out.warnings[0].contains("running"));
    assert_eq!(
        types(&named(&mut t, "message", r#"{"content": "b"}"#).events),
        ["TEXT_MESSAGE_CONTENT"]
    );
    let out = named(&mut t, "status", r#"{"type": "error", "message": "boom"}"#);
    assert_eq!(types(&out.events), ["TEXT_MESSAGE_END", "RUN_ERROR"]);
    assert_eq!(out.events[1]["message"], "boom");
    // The dialect may carry on after an error; the next event opens a fresh run.
    let out = named(&mut t, "message", r#"{"content": "again"}"#);
    assert_eq!(
        types(&out.events),
        ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    );
    assert_eq!(
        out.events[0],
        json!({"type": "RUN_STARTED", "threadId": "thread_1", "runId": "run-3"})
    );
    assert_eq!(out.events[1]["messageId"], "run-3-msg-4");
}

#[test]
fn seed000_concurrent_events_example() {
    let sse = r#"event: reasoning_start
data: {"messageId": "reasoning-1"}

event: tool_call_start
data: {"toolCallId": "call_1", "toolCallName": "search"}

event: reasoning_message_content
data: {"messageId": "reasoning-1", "delta": "I'll search for..."}

event: tool_call_args
data: {"toolCallId": "call_1", "delta": "{\"query\": \"test\"}"}

event: reasoning_message_end
data: {"messageId": "reasoning-1"}

event: tool_call_end
data: {"toolCallId": "call_1"}

event: reasoning_end
data: {"messageId": "reasoning-1"}

event: tool_result
data: {"toolCallId": "call_1", "content": "..."}
"#;
    let mut t = Translator::with_ids("thread-9", "run-9");
    let mut out = feed_sse(&mut t, sse);
    out.events.extend(t.finish().events);
    for ev in &mut out.events {
        ev.as_object_mut().unwrap().shift_remove("rawEvent");
    }
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_STARTED", "threadId": "thread-9", "runId": "run-9"}),
            json!({"type": "REASONING_START", "messageId": "reasoning-1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "call_1", "toolCallName": "search"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "reasoning-1", "role": "reasoning"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "reasoning-1", "delta": "I'll search for..."}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": "{\"query\": \"test\"}"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "reasoning-1"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "call_1"}),
            json!({"type": "REASONING_END", "messageId": "reasoning-1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "run-9-tool-result-1", "toolCallId": "call_1", "content": "...", "role": "tool"}),
        ]
    );
    // A truncated stream stays truncated: no RUN_FINISHED is invented.
    assert!(out
        .warnings
        .iter()
        .any(|w| w.contains("REASONING_MESSAGE_START")));
}

#[test]
fn seed000_full_chat_stream() {
    let sse = r#"event: status
data: {"type": "start", "thread_id": "thread_1"}

event: message
data: {"content": "Let me ", "thread_id": "thread_1"}

event: message
data: {"content": "check the ", "thread_id": "thread_1"}

event: message
data: {"content": "weather.", "thread_id": "thread_1"}

event: tool_call_start
data: {"toolCallId": "call_abc123", "toolCallName": "web_search", "thread_id": "thread_1"}

event: tool_call_args
data: {"toolCallId": "call_abc123", "delta": "{\"query\": \"weather"}

event: tool_call_args
data: {"toolCallId": "call_abc123", "delta": " in Tokyo\"}"}

event: tool_call_end
data: {"toolCallId": "call_abc123"}

event: tool_result
data: {"toolCallId": "call_abc123", "content": "The weather in Tokyo is...", "role": "tool"}

event: message
data: {"content": "It is sunny.", "thread_id": "thread_1", "agent": "weather"}

event: status
data: {"type": "complete", "thread_id": "thread_1"}
"#;
    let mut t = Translator::with_ids("thread_1", "run-42");
    let out = feed_sse(&mut t, sse);
    assert_eq!(
        types(&out.events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]
    );
    let e = &out.events;
    assert_eq!(
        (e[0]["threadId"].as_str(), e[0]["runId"].as_str()),
        (Some("thread_1"), Some("run-42"))
    );
    let first = e[1]["messageId"].as_str().unwrap();
    assert_eq!(first, "run-42-msg-1");
    assert!(e[2..=5].iter().all(|ev| ev["messageId"] == first));
    let deltas: String = e[2..=4]
        .iter()
        .map(|ev| ev["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Let me check the weather.");
    assert!(e[6..=10].iter().all(|ev| ev["toolCallId"] == "call_abc123"));
    assert_eq!(e[10]["role"], "tool");
    let second = e[11]["messageId"].as_str().unwrap();
    assert_ne!(second, first);
    assert_eq!(e[11]["name"], "weather");
    assert!(e[12..=13].iter().all(|ev| ev["messageId"] == second));
    assert_eq!(
        e[14],
        json!({"type": "RUN_FINISHED", "threadId": "thread_1", "runId": "run-42", "rawEvent": raw("status", r#"{"type": "complete", "thread_id": "thread_1"}"#)})
    );
    assert!(e
        .iter()
        .all(|ev| ev.get("thread_id").is_none() && ev.get("agent").is_none()));
    assert_eq!(t.finish(), Translated::default());
}

#[test]
fn seed000_finish_closes_text_but_does_not_finish_the_run() {
    let mut t = Translator::with_ids("t", "r");
    named(&mut t, "message", r#"{"content": "partial"}"#);
    let out = t.finish();
    assert_eq!(
        out.events,
        vec![json!({"type": "TEXT_MESSAGE_END", "messageId": "r-msg-1"})]
    );
    assert_eq!(t.finish(), Translated::default());
}

#[test]
fn seed000_agent_change_starts_a_new_message() {
    let mut t = Translator::with_ids("t", "r");
    named(&mut t, "message", r#"{"content": "a", "agent": "x"}"#);
    let out = named(&mut t, "message", r#"{"content": "b", "agent": "y"}"#);
    assert_eq!(
        types(&out.events),
        [
            "TEXT_MESSAGE_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT"
        ]
    );
    assert_eq!(out.events[1]["name"], "y");
}

// ---- 0.1.0 draft spec (seed 003), each example verbatim ----

#[test]
fn seed003_examples() {
    let mut t = Translator::with_ids("t-crm", "run_12345");
    let data = r#"{
  "type": "RUN_STARTED",
  "runId": "run_12345",
  "agentId": "agent_crm",
  "timestamp": 1700000000
}"#;
    let out = typed(&mut t, data);
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_STARTED", "threadId": "t-crm", "runId": "run_12345", "timestamp": 1700000000, "metadata": {"agentId": "agent_crm"}, "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );
    assert_eq!(out.warnings.len(), 1);

    let data = r#"{
  "type": "TEXT_MESSAGE_CHUNK",
  "delta": "Hello ",
  "messageId": "msg_abc123"
}"#;
    let out = typed(&mut t, data);
    assert_eq!(
        out.events,
        vec![serde_json::from_str::<Value>(data).unwrap()]
    );
    assert!(out.warnings.is_empty());

    let data = r#"{
  "type": "TOOL_CALL_START",
  "toolCallId": "call_987",
  "toolName": "search_contacts",
  "args": { "query": "Alice" }
}"#;
    assert_eq!(
        typed(&mut t, data).events,
        vec![
            json!({"type": "TOOL_CALL_START", "toolCallId": "call_987", "toolCallName": "search_contacts", "rawEvent": serde_json::from_str::<Value>(data).unwrap()}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call_987", "delta": "{\"query\":\"Alice\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "call_987"}),
        ]
    );

    let data = r#"{
  "type": "TOOL_CALL_RESULT",
  "toolCallId": "call_987",
  "result": { "email": "alice@example.com" },
  "isError": false
}"#;
    assert_eq!(
        typed(&mut t, data).events,
        vec![
            json!({"type": "TOOL_CALL_RESULT", "messageId": "run_12345-tool-result-1", "toolCallId": "call_987", "content": "{\"email\":\"alice@example.com\"}", "role": "tool", "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );

    let data = r#"{
  "type": "RUN_FINISHED",
  "runId": "run_12345",
  "status": "success",
  "usage": { "input_tokens": 50, "output_tokens": 100 }
}"#;
    assert_eq!(
        typed(&mut t, data).events,
        vec![
            json!({"type": "RUN_FINISHED", "threadId": "t-crm", "runId": "run_12345", "usage": [{"inputTokens": 50, "outputTokens": 100}], "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );

    let data = r#"{
  "type": "ERROR",
  "code": "INTERNAL_ERROR",
  "message": "Database connection failed",
  "details": {}
}"#;
    assert_eq!(
        typed(&mut t, data).events,
        vec![
            json!({"type": "RUN_ERROR", "message": "Database connection failed", "code": "INTERNAL_ERROR", "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );

    // The seed elides the chart data as `[...]`, which is not JSON; a concrete array stands in.
    let data = r#"{
  "type": "UI_RENDER_HINT",
  "component": "StockChart",
  "props": {
"symbol": "AAPL",
"data": [{"t": 1, "close": 189.5}]
  }
}"#;
    let out = typed(&mut t, data);
    assert_eq!(
        out.events,
        vec![
            json!({"type": "CUSTOM", "name": RENDER_HINT_CUSTOM_NAME, "value": {"component": "StockChart", "props": {"symbol": "AAPL", "data": [{"t": 1, "close": 189.5}]}}, "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );
    assert!(out.warnings[0].contains("UI_RENDER_HINT"));
}

#[test]
fn seed003_run_finished_statuses_and_bare_shapes() {
    let mut t = Translator::new();
    // The seed's reference encoder sends `RUN_STARTED {runId}` and `RUN_FINISHED {}`.
    let out = typed(&mut t, r#"{"type": "RUN_STARTED", "runId": "r7"}"#);
    assert_eq!(out.events[0]["threadId"], "thread-1");
    let out = typed(&mut t, r#"{"type": "RUN_FINISHED"}"#);
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "r7", "rawEvent": {"type": "RUN_FINISHED"}})
        ]
    );

    let out = typed(
        &mut t,
        r#"{"type": "RUN_FINISHED", "threadId": "a", "runId": "b", "status": "cancelled"}"#,
    );
    assert_eq!(out.events[0]["outcome"], json!({"type": "cancelled"}));
    assert!(out.events[0].get("status").is_none());

    let out = typed(
        &mut t,
        r#"{"type": "RUN_FINISHED", "runId": "b", "status": "failed", "usage": {"input_tokens": 1, "total_tokens": 3}, "timestamp": 9}"#,
    );
    let mut ev = out.events[0].clone();
    ev.as_object_mut().unwrap().shift_remove("rawEvent");
    assert_eq!(
        ev,
        json!({"type": "RUN_ERROR", "message": "run failed", "usage": [{"inputTokens": 1, "totalTokens": 3}], "timestamp": 9})
    );

    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_START", "toolCallId": "c", "toolName": "f"}"#,
    );
    assert_eq!(types(&out.events), ["TOOL_CALL_START"]);
    assert_eq!(out.events[0]["toolCallName"], "f");

    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_START", "toolCallId": "c", "toolName": "f", "args": "{\"a\":1}"}"#,
    );
    assert_eq!(out.events[1]["delta"], "{\"a\":1}");

    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_RESULT", "toolCallId": "c", "result": "nope", "isError": true}"#,
    );
    assert_eq!(out.events[0]["content"], "nope");
    assert_eq!(out.events[0]["metadata"], json!({"isError": true}));

    let out = typed(
        &mut t,
        r#"{"type": "UI_RENDER_HINT", "component": "ContactCard"}"#,
    );
    assert_eq!(
        out.events[0]["value"],
        json!({"component": "ContactCard", "props": {}})
    );
}

// ---- implementation guide (seed 001) ----

#[test]
fn seed001_run_error_with_error_field() {
    let mut t = Translator::new();
    let data = r#"{
  "type": "RUN_ERROR",
  "threadId": "uuid",
  "runId": "uuid",
  "error": "Error message"
}"#;
    let out = typed(&mut t, data);
    assert_eq!(
        out.events,
        vec![
            json!({"type": "RUN_ERROR", "message": "Error message", "rawEvent": serde_json::from_str::<Value>(data).unwrap()})
        ]
    );
    assert_eq!(out.warnings.len(), 1);
    assert!(out.warnings[0].contains("RUN_ERROR"));
}

// ---- Super-Goose (seed 004) ----

#[test]
fn seed004_state_delta_example_passes_through() {
    let mut t = Translator::new();
    let data = r#"{
  "type": "STATE_DELTA",
  "delta": [
{"op": "replace", "path": "/core_type", "value": "structured"},
{"op": "replace", "path": "/status", "value": "running"}
  ]
}"#;
    let out = typed(&mut t, data);
    assert_eq!(
        out.events,
        vec![serde_json::from_str::<Value>(data).unwrap()]
    );
    assert!(out.warnings.is_empty());
}

#[test]
fn seed004_field_renames() {
    let mut t = Translator::with_ids("t", "r");
    let out = typed(
        &mut t,
        r#"{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "content": "hi"}"#,
    );
    assert_eq!(
        out.events,
        vec![
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "rawEvent": {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "content": "hi"}})
        ]
    );
    assert_eq!(out.warnings.len(), 1);
    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "args": {"a": 1}}"#,
    );
    assert_eq!(out.events[0]["delta"], "{\"a\":1}");
    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "args": "{\"a\""}"#,
    );
    assert_eq!(out.events[0]["delta"], "{\"a\"");
    let out = typed(&mut t, r#"{"type": "RAW", "payload": {"x": 1}}"#);
    assert_eq!(out.events[0]["event"], json!({"x": 1}));
    assert!(out.events[0].get("payload").is_none());
    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_RESULT", "toolCallId": "c", "content": "done"}"#,
    );
    assert_eq!(
        out.events,
        vec![
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r-tool-result-1", "toolCallId": "c", "content": "done", "role": "tool", "rawEvent": {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "content": "done"}})
        ]
    );
    // The HITL answer `TOOL_CALL_RESULT {approved}` carries its result as bare fields.
    let out = typed(
        &mut t,
        r#"{"type": "TOOL_CALL_RESULT", "toolCallId": "c", "approved": true, "timestamp": 3}"#,
    );
    assert_eq!(out.events[0]["content"], "{\"approved\":true}");
    assert_eq!(out.events[0]["timestamp"], 3);
    assert!(out.events[0].get("approved").is_none());
    // Chunks are valid 1.1 and untouched.
    for chunk in [
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "rm", "delta": "x"}),
    ] {
        assert_eq!(t.translate(None, chunk.clone()).events, vec![chunk]);
    }
}

#[test]
fn seed004_reasoning_without_ids() {
    let mut t = Translator::new();
    let out = feed(
        &mut t,
        &[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "g"}),
            json!({"type": "REASONING_START"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "step-1"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "delta": "thinking"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "step-1"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "ciphertext": "c2VjcmV0"}),
            json!({"type": "REASONING_END"}),
        ],
    );
    let mut events = out.events;
    for ev in &mut events {
        ev.as_object_mut().unwrap().shift_remove("rawEvent");
    }
    assert_eq!(
        events[1..],
        [
            json!({"type": "REASONING_START", "messageId": "g-reasoning-1"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "step-1", "role": "reasoning"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "step-1", "delta": "thinking"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "step-1"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "step-1", "encryptedValue": "c2VjcmV0"}),
            json!({"type": "REASONING_END", "messageId": "g-reasoning-1"}),
        ]
    );
    // A continuation with nothing open keeps its missing id for enforcement to report.
    let orphan = json!({"type": "REASONING_MESSAGE_CONTENT", "delta": "x"});
    assert_eq!(t.translate(None, orphan.clone()).events, vec![orphan]);
}

#[test]
fn seed004_activities_array_splits() {
    let mut t = Translator::with_ids("t", "r");
    let data = json!({"type": "ACTIVITY_SNAPSHOT", "timestamp": 7, "activities": [
        {"id": "ota-1", "type": "ota_build", "status": "running", "progress": 0.4},
        {"messageId": "ci-1", "activityType": "ci", "content": {"state": "green"}},
        "junk",
        {"status": "idle"}
    ]});
    let out = t.translate(None, data.clone());
    assert_eq!(
        out.events,
        vec![
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "ota-1", "activityType": "ota_build", "content": {"status": "running", "progress": 0.4}, "timestamp": 7, "rawEvent": data}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "ci-1", "activityType": "ci", "content": {"state": "green"}, "timestamp": 7}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "r-activity-1", "activityType": "activity", "content": {"status": "idle"}, "timestamp": 7}),
        ]
    );
    assert_eq!(out.warnings.len(), 2);
}

#[test]
fn synthesised_ids_are_unique_and_scoped_by_run() {
    let mut t = Translator::new();
    let mut ids = Vec::new();
    for run in ["r1", "r2"] {
        t.translate(
            None,
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": run}),
        );
        for _ in 0..2 {
            ids.push(
                t.translate(None, json!({"type": "THINKING_START"})).events[0]["messageId"].clone(),
            );
            t.translate(None, json!({"type": "THINKING_END"}));
        }
        t.translate(
            None,
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run}),
        );
    }
    assert_eq!(
        ids,
        [
            json!("r1-reasoning-1"),
            json!("r1-reasoning-2"),
            json!("r2-reasoning-3"),
            json!("r2-reasoning-4")
        ]
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A `{"type": T, …}` object with arbitrary (and known) type names, arbitrary fields, and a
    /// value nested `depth` deep (built without recursion) in a random field.
    fn arb_event() -> impl Strategy<Value = (Value, usize)> {
        let names = prop_oneof![
            Just("TEXT_MESSAGE_CONTENT".to_string()),
            Just("STATE_DELTA".to_string()),
            Just("UI_RENDER_HINT".to_string()),
            Just("on_chat_model_stream".to_string()),
            Just("text-delta".to_string()),
            Just("RUN_STARTED".to_string()),
            any::<String>(),
        ];
        let fields = prop::collection::vec(
            (
                prop::sample::select(vec![
                    "messageId",
                    "delta",
                    "threadId",
                    "runId",
                    "data",
                    "value",
                    "patch",
                    "content",
                    "name",
                    "toolCallId",
                    "event",
                    "x",
                ]),
                prop_oneof![
                    Just(json!(null)),
                    any::<i64>().prop_map(|n| json!(n)),
                    any::<String>().prop_map(Value::String),
                    Just(json!({"chunk": {"content": "a"}})),
                    Just(json!([{"op": "add", "path": "/a", "value": 1}])),
                ],
            ),
            0..8,
        );
        (
            names,
            fields,
            0usize..120,
            prop::sample::select(vec!["data", "value", "delta", "x"]),
        )
            .prop_map(|(name, fields, depth, at)| {
                let mut obj: serde_json::Map<String, Value> = fields
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                let mut deep = json!("leaf");
                for _ in 0..depth {
                    deep = Value::Array(vec![deep]);
                }
                obj.insert(at.to_string(), deep);
                obj.insert("type".into(), Value::String(name));
                (Value::Object(obj), depth)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any object with any `type`, any SSE event name: the translator never panics, and
        /// everything it emits is an object.
        #[test]
        fn arbitrary_objects_never_panic(
            events in prop::collection::vec(arb_event(), 1..6),
            sse in prop::option::of(prop::sample::select(vec!["message", "data", "metadata", "end", "x"])),
        ) {
            let mut t = Translator::new();
            for (e, _) in events {
                let out = t.translate(sse, e);
                for v in &out.events {
                    prop_assert!(v.is_object());
                }
            }
            let _ = t.finish();
        }
    }
}
