use serde_json::json;

use super::*;
use crate::protocol::pipeline::{Pipeline, StreamOutcome};
use crate::protocol::types::{Content, Interrupt, Message, ReasoningRole, TextRole, ToolRole};

fn ev(kind: EventKind) -> Event {
    Event::from(kind)
}

fn text_start(id: &str, name: Option<&str>) -> Event {
    ev(EventKind::TextMessageStart {
        message_id: id.into(),
        role: Some(TextRole::Assistant),
        name: name.map(Into::into),
    })
}

fn text(id: &str, delta: &str) -> Event {
    ev(EventKind::TextMessageContent {
        message_id: id.into(),
        delta: delta.into(),
    })
}

fn text_end(id: &str) -> Event {
    ev(EventKind::TextMessageEnd {
        message_id: id.into(),
    })
}

fn finished(outcome: Option<RunOutcome>) -> Event {
    ev(EventKind::RunFinished {
        thread_id: "t".into(),
        run_id: "r".into(),
        result: None,
        outcome,
        usage: None,
    })
}

/// A demo-like run: reasoning, text, a tool call with its result, more text, plus events the
/// dialect has no words for.
fn demo_stream() -> Vec<Event> {
    vec![
        ev(EventKind::RunStarted {
            thread_id: "t".into(),
            run_id: "r".into(),
            parent_run_id: None,
            input: None,
            protocol_version: Some("1.1".into()),
        }),
        ev(EventKind::StepStarted {
            step_name: "think".into(),
        }),
        ev(EventKind::ReasoningStart {
            message_id: "s1".into(),
        }),
        ev(EventKind::ReasoningMessageStart {
            message_id: "rm1".into(),
            role: ReasoningRole::default(),
        }),
        ev(EventKind::ReasoningMessageContent {
            message_id: "rm1".into(),
            delta: "Two numbers; ".into(),
        }),
        ev(EventKind::ReasoningMessageContent {
            message_id: "rm1".into(),
            delta: "use the calculator.".into(),
        }),
        ev(EventKind::ReasoningMessageEnd {
            message_id: "rm1".into(),
        }),
        ev(EventKind::ReasoningEnd {
            message_id: "s1".into(),
        }),
        ev(EventKind::StepFinished {
            step_name: "think".into(),
        }),
        text_start("m1", None),
        text("m1", "Let me "),
        text("m1", "compute that."),
        text_end("m1"),
        ev(EventKind::ToolCallStart {
            tool_call_id: "c1".into(),
            tool_call_name: "calculator".into(),
            parent_message_id: Some("m1".into()),
        }),
        ev(EventKind::ToolCallArgs {
            tool_call_id: "c1".into(),
            delta: "{\"a\":2,".into(),
        }),
        ev(EventKind::ToolCallArgs {
            tool_call_id: "c1".into(),
            delta: "\"b\":3}".into(),
        }),
        ev(EventKind::ToolCallEnd {
            tool_call_id: "c1".into(),
        }),
        ev(EventKind::ToolCallResult {
            message_id: "tm1".into(),
            tool_call_id: "c1".into(),
            content: Content::Text("5".into()),
            role: Some(ToolRole::default()),
        }),
        ev(EventKind::StateSnapshot {
            snapshot: json!({"x": 1}),
        }),
        text_start("m2", None),
        text("m2", "2 + 3 = **5**"),
        text_end("m2"),
        finished(None),
    ]
}

/// What a conversation says, independent of message ids and of whether a tool call shares a
/// message with the text before it.
fn projection(messages: &[Message]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in messages {
        match m {
            Message::Assistant(a) => {
                if let Some(c) = a.content.as_deref().filter(|c| !c.is_empty()) {
                    out.push(("assistant".into(), c.to_string()));
                }
                for tc in a.tool_calls.iter().flatten() {
                    out.push((
                        "tool_call".into(),
                        format!("{} {} {}", tc.id, tc.function.name, tc.function.arguments),
                    ));
                }
            }
            Message::Tool(t) => out.push((
                "tool".into(),
                format!("{} {}", t.tool_call_id, t.content.text()),
            )),
            other => out.push((
                other.role().as_str().into(),
                other.text().unwrap_or_default(),
            )),
        }
    }
    out
}

#[test]
fn round_trip_keeps_the_conversation() {
    let events = demo_stream();
    let mut original = Pipeline::new(Default::default());
    for e in &events {
        original.push_value(None, e.to_value());
    }
    original.finish();
    assert_eq!(original.outcome(), StreamOutcome::Completed);

    let mut enc = Encoder::new("t");
    let wire: String = events.iter().filter_map(|e| enc.frames(e)).collect();
    assert!(!wire.contains("\nid:") && !wire.starts_with("id:"));
    let mut back = Pipeline::new(Default::default());
    // Split the bytes anywhere, as a socket would.
    for piece in wire.as_bytes().chunks(7) {
        back.push_bytes(piece);
    }
    back.finish();
    assert_eq!(
        back.outcome(),
        StreamOutcome::Completed,
        "{:?}",
        back.error()
    );
    let unexpected: Vec<_> = back
        .warnings
        .iter()
        .filter(|w| !w.starts_with("translated ") && !w.contains("`status` running"))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");

    let want = projection(&original.conversation.messages);
    assert_eq!(projection(&back.conversation.messages), want);
    assert_eq!(
        want,
        [
            ("reasoning", "Two numbers; use the calculator."),
            ("assistant", "Let me compute that."),
            ("tool_call", "c1 calculator {\"a\":2,\"b\":3}"),
            ("tool", "c1 5"),
            ("assistant", "2 + 3 = **5**"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // The tool message keeps its id: the encoder sends it along.
    assert!(back.conversation.message("tm1").is_some());
}

#[test]
fn each_event_maps_to_the_seed_shape() {
    let t = "thread_1";
    let cases = [
        (
            demo_stream()[0].clone(),
            "status",
            json!({"type": "start", "thread_id": t}),
        ),
        (
            ev(EventKind::StepStarted {
                step_name: "plan".into(),
            }),
            "status",
            json!({"type": "running", "message": "plan", "thread_id": t}),
        ),
        (
            text("m", "Hi"),
            "message",
            json!({"content": "Hi", "thread_id": t}),
        ),
        (
            ev(EventKind::ToolCallStart {
                tool_call_id: "call_1".into(),
                tool_call_name: "web_search".into(),
                parent_message_id: Some("m".into()),
            }),
            "tool_call_start",
            json!({"toolCallId": "call_1", "toolCallName": "web_search", "thread_id": t}),
        ),
        (
            ev(EventKind::ToolCallEnd {
                tool_call_id: "call_1".into(),
            }),
            "tool_call_end",
            json!({"toolCallId": "call_1", "thread_id": t}),
        ),
        (
            ev(EventKind::ReasoningMessageStart {
                message_id: "rm".into(),
                role: ReasoningRole::default(),
            }),
            "reasoning_message_start",
            json!({"messageId": "rm", "role": "assistant", "thread_id": t}),
        ),
        (
            ev(EventKind::RunError {
                message: "Rate limit exceeded".into(),
                code: Some("RATE_LIMIT".into()),
                usage: None,
            }),
            "error",
            json!({"type": "error", "message": "Rate limit exceeded", "code": "RATE_LIMIT", "thread_id": t}),
        ),
        (
            finished(None),
            "status",
            json!({"type": "complete", "thread_id": t}),
        ),
        (
            finished(Some(RunOutcome::Cancelled)),
            "status",
            json!({"type": "complete", "thread_id": t, "message": "cancelled"}),
        ),
    ];
    for (event, name, data) in cases {
        assert_eq!(to_named(&event, t), Some((name, data)), "{event:?}");
    }
    let interrupted = finished(Some(RunOutcome::Interrupt {
        interrupts: vec![Interrupt {
            id: "i".into(),
            reason: "confirmation".into(),
            message: None,
            tool_call_id: None,
            response_schema: None,
            expires_at: None,
            metadata: None,
            subagent_run_id: None,
        }],
    }));
    assert_eq!(
        to_named(&interrupted, t).unwrap().1["message"],
        "interrupted"
    );
    let result = ev(EventKind::ToolCallResult {
        message_id: "tm".into(),
        tool_call_id: "c".into(),
        content: serde_json::from_value(
            json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        )
        .unwrap(),
        role: None,
    });
    assert_eq!(
        to_named(&result, t),
        Some((
            "tool_result",
            json!({"toolCallId": "c", "content": "a\nb", "role": "tool", "messageId": "tm", "thread_id": t})
        ))
    );
}

#[test]
fn events_without_an_equivalent_are_skipped() {
    for e in [
        text_start("m", None),
        text_end("m"),
        ev(EventKind::StateSnapshot {
            snapshot: json!({}),
        }),
        ev(EventKind::StateDelta { delta: vec![] }),
        ev(EventKind::MessagesSnapshot { messages: vec![] }),
        ev(EventKind::Custom {
            name: "n".into(),
            value: json!(1),
        }),
        ev(EventKind::Raw {
            event: json!(1),
            source: None,
        }),
        ev(EventKind::StepFinished {
            step_name: "s".into(),
        }),
    ] {
        assert_eq!(to_named(&e, "t"), None, "{e:?}");
        assert_eq!(Encoder::new("t").frames(&e), None);
    }
}

#[test]
fn chunks_are_expanded_and_agents_named() {
    let mut enc = Encoder::new("t");
    let chunk = ev(EventKind::ToolCallChunk {
        tool_call_id: Some("c".into()),
        tool_call_name: Some("search".into()),
        parent_message_id: None,
        delta: Some("{}".into()),
    });
    let names: Vec<_> = [chunk, finished(None)]
        .iter()
        .flat_map(|e| enc.encode(e))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "tool_call_start",
            "tool_call_args",
            "tool_call_end",
            "status"
        ]
    );

    let mut enc = Encoder::new("t");
    enc.encode(&text_start("m", Some("writer")));
    assert_eq!(enc.encode(&text("m", "x"))[0].1["agent"], "writer");
    enc.encode(&text_end("m"));
    let frames = enc.frames(&text("other", "y")).unwrap();
    assert_eq!(
        frames,
        "event: message\ndata: {\"content\":\"y\",\"thread_id\":\"t\"}\n\n"
    );
}
