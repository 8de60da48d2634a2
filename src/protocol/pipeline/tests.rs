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

mod properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<String>().prop_map(Value::String),
            Just(json!("user")),
            Just(json!("t")),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "threadId",
                            "runId",
                            "messages",
                            "state",
                            "tools",
                            "context",
                            "forwardedProps",
                            "id",
                            "role",
                            "content",
                            "resume",
                            "parentRunId",
                            "type",
                            "x",
                        ]),
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| Value::Object(
                    kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary JSON, shaped like a request or not, never panics `RunAgentInput`
        /// parsing; what parses starts a pipeline.
        #[test]
        fn run_agent_input_parsing_never_panics(v in arb_json(), depth in 0usize..100) {
            let mut v = v;
            if let Value::Object(o) = &mut v {
                let mut deep = json!({});
                for _ in 0..depth {
                    deep = json!({ "k": deep });
                }
                o.insert("state".into(), deep);
            }
            if let Ok(input) = serde_json::from_value::<RunAgentInput>(v) {
                let _ = Pipeline::for_input(&input, PipelineOptions::default());
            }
        }
    }
}

/// A connection broken mid-frame, then a new one that replays from the last id: with
/// `reconnect`, the cut frame is read again whole, the replayed frames are skipped, and the
/// conversation ends exactly as from one unbroken stream.
#[test]
fn reconnecting_after_a_cut_applies_every_event_once() {
    let frames: Vec<String> = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"one "}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"two "}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"three"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ]
    .iter()
    .enumerate()
    .map(|(i, d)| format!("id: {}\ndata: {d}\n\n", i + 1))
    .collect();
    let whole = frames.concat();
    let mut unbroken = Pipeline::new(PipelineOptions::default());
    unbroken.push_bytes(whole.as_bytes());
    unbroken.finish();

    // Cut in the middle of frame 4; the server replays from frame 3 (a client may ask from an
    // earlier id than it holds, or the server may resend what was in flight).
    let cut = frames[..3].concat().len() + 20;
    let mut p = Pipeline::new(PipelineOptions::default());
    p.push_bytes(&whole.as_bytes()[..cut]);
    assert_eq!(p.last_event_id(), Some("3"));
    p.reconnect();
    let replay = frames[2..].concat();
    let delivered = p.push_bytes(replay.as_bytes());
    assert_eq!(delivered.len(), 4, "frames 4..7, each once");
    p.finish();
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    assert_eq!(p.conversation.messages, unbroken.conversation.messages);
    assert_eq!(p.last_event_id(), Some("7"));
}

/// The fast path for plain deltas (`fast`) gives what the general path gives, event by event,
/// warning by warning, error by error: for deltas it takes and for the look-alikes it must
/// leave to the general path.
#[test]
fn plain_deltas_read_directly_match_the_general_path() {
    let start = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    let text = r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#;
    let tool = r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#;
    let end = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;
    let deltas = [
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi "}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hé 👋\n\"q\"","timestamp":1764000000000}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":null}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1.5}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":-3}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","extra":1}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","rawEvent":{"a":1}}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"x","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","delta":"b"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","type":"RAW","messageId":"m","delta":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":7}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"other","delta":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","content":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m","delta":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":01}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":9223372036854775808}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":-9223372036854775808}"#,
        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\u{1}b\"}",
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"} "#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"a\":"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"1}","timestamp":5}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","args":"{}"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"x","messageId":"m"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"nope","delta":"x"}"#,
    ];
    // The plain ones do take the fast path; the look-alikes do not.
    let taken: Vec<bool> = deltas
        .iter()
        .map(|d| fast::flat_delta(d).is_some())
        .collect();
    assert_eq!(
        taken,
        [
            true, true, false, false, true, false, false, true, false, false, false, true, true,
            false, false, true, false, false, true, false, true, false, false, true, true, false,
            false, true
        ]
    );
    // Each delta in a run with its message or call open, after a chunk that left a message
    // open, and after a named-event (`event: message`) text.
    let mut streams: Vec<String> = Vec::new();
    for d in deltas {
        streams.push(
            [start, text, tool, d, d, end]
                .map(|e| format!("data: {e}\n\n"))
                .concat(),
        );
        let chunk = r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"c"}"#;
        streams.push(
            [start, chunk, d, end]
                .map(|e| format!("data: {e}\n\n"))
                .concat(),
        );
        streams.push(format!(
            "event: message\ndata: {{\"content\":\"named\"}}\n\ndata: {d}\n\ndata: {end}\n\n"
        ));
    }
    for stream in &streams {
        let run = |fast_path: bool| {
            let mut p = Pipeline::new(PipelineOptions::default());
            p.fast_path = fast_path;
            let mut delivered = Vec::new();
            // Split anywhere, as network reads are.
            for piece in stream.as_bytes().chunks(7) {
                delivered.extend(p.push_bytes(piece));
            }
            delivered.extend(p.finish());
            (
                delivered,
                p.warnings.clone(),
                p.error().map(str::to_string),
                p.outcome(),
                p.conversation.messages.clone(),
            )
        };
        assert_eq!(run(true), run(false), "{stream}");
    }
}

/// The hand reading of a plain delta's usual text (`fast::scan`) gives what the typed parse
/// gives whenever it reads one, and leaves to the typed parse what it does not read.
#[test]
fn plain_delta_text_read_by_hand_matches_the_typed_parse() {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Typed {
        #[serde(rename = "type")]
        _type: String,
        #[serde(rename = "messageId")]
        message_id: String,
        delta: String,
        timestamp: Option<i64>,
    }
    let strings = [
        "",
        "m",
        "hé 👋 ",
        "a b/c<d>&'",
        "0",
        "\u{7f}x",
        "x\u{2028}y",
    ];
    let stamps = [
        "",
        ",\"timestamp\":0",
        ",\"timestamp\":-7",
        ",\"timestamp\":123456789012345678",
    ];
    let mut read = 0;
    for id in strings {
        for delta in strings {
            for stamp in stamps {
                let text = format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"{delta}"{stamp}}}"#
                );
                let typed: Typed = serde_json::from_str(&text).unwrap();
                let rest = text
                    .strip_prefix(r#"{"type":"TEXT_MESSAGE_CONTENT","#)
                    .unwrap();
                let (m, d, t) = fast::scan(rest, r#""messageId":""#).expect(&text);
                let t = match t {
                    fast::Stamp::At(t) => Some(t),
                    fast::Stamp::Absent => None,
                };
                assert_eq!((m, d, t), (typed.message_id, typed.delta, typed.timestamp));
                read += 1;
            }
        }
    }
    assert_eq!(read, strings.len() * strings.len() * stamps.len());
    // Left to the typed parse (which reads some and refuses others).
    for rest in [
        r#""messageId":"a\"b","delta":"x"}"#,
        r#""messageId":"m","delta":"x\n"}"#,
        "\"messageId\":\"m\",\"delta\":\"x\ty\"}",
        r#""messageId":"m","delta":"x","timestamp":1234567890123456789}"#,
        r#""messageId":"m","delta":"x","timestamp":-0}"#,
        r#""messageId":"m","delta":"x","timestamp":00}"#,
        r#""messageId":"m","delta":"x","timestamp":1e3}"#,
        r#""messageId":"m","delta":"x","timestamp":-}"#,
        r#""messageId":"m","delta":"x" }"#,
        r#""messageId":"m","delta":"x"}x"#,
        r#""messageId":"m","delta":"x""#,
        r#""messageId":"m","delta":"x"#,
        r#""delta":"x","messageId":"m"}"#,
    ] {
        assert!(fast::scan(rest, r#""messageId":""#).is_none(), "{rest}");
    }
}
