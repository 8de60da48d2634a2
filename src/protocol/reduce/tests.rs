//! Tests of the `reduce` module.
use super::*;
use crate::protocol::limits::JsonLimits;
use crate::protocol::types::RunOutcome;
use proptest::prelude::*;
use serde_json::json;

fn ev(v: Value) -> Event {
    Event::from_value(v.clone()).unwrap_or_else(|e| panic!("bad test event {v}: {e}"))
}

fn feed(c: &mut Conversation, events: Value) -> Vec<Change> {
    let Value::Array(events) = events else {
        panic!("expected an array")
    };
    events.into_iter().map(|e| c.apply(&ev(e))).collect()
}

fn conv(events: Value) -> Conversation {
    let mut c = Conversation::new();
    feed(&mut c, events);
    c.assert_consistent();
    c
}

fn ids(c: &Conversation) -> Vec<&str> {
    c.messages.iter().map(Message::id).collect()
}

fn json_of(c: &Conversation, id: &str) -> Value {
    serde_json::to_value(c.message(id).expect("message")).unwrap()
}

impl Conversation {
    fn assert_consistent(&self) {
        assert_eq!(self.index.len(), self.messages.len(), "index size");
        for (i, m) in self.messages.iter().enumerate() {
            assert_eq!(self.index.get(m.id()), Some(&i), "index of {}", m.id());
        }
        for (tc, owner) in &self.tool_owner {
            let Some(Message::Assistant(a)) = self.message(owner) else {
                panic!("owner {owner} of {tc} is not an assistant message")
            };
            assert!(a.tool_calls.iter().flatten().any(|c| c.id == *tc));
        }
    }
}

#[test]
fn reopened_text_appends_and_metadata_merges_shallowly() {
    let mut c = Conversation::new();
    let changes = feed(
        &mut c,
        json!([
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": {"a": 1, "o": {"x": 1}}},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hel"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m", "metadata": {"o": {"y": 2}}},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "name": "bot", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "lo", "metadata": {"a": 3}},
        ]),
    );
    assert_eq!(changes[0], Change::MessageAdded { index: 0 });
    assert!(changes[1..]
        .iter()
        .all(|c| *c == Change::MessageUpdated { index: 0 }));
    assert_eq!(
        json_of(&c, "m"),
        json!({"role": "assistant", "id": "m", "content": "Hello",
        "name": "bot", "metadata": {"a": 3, "o": {"y": 2}}, "subagentRunId": "s1"})
    );
}

#[test]
fn text_deltas_reach_every_text_role_and_unknown_ids_warn() {
    let mut c = conv(json!([
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "p", "role": "user", "content": [{"type": "text", "text": "a"}]},
            {"id": "i", "role": "user", "content": [{"type": "image",
                "source": {"type": "url", "value": "https://x/i.png"}}]}]},
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "hi"},
        {"type": "TEXT_MESSAGE_START", "messageId": "s", "role": "system"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "s", "delta": "sys"},
        {"type": "TEXT_MESSAGE_START", "messageId": "p", "role": "user"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "p", "delta": "b"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "i", "delta": "caption"},
        {"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "hmm"},
        {"type": "REASONING_MESSAGE_END", "messageId": "r", "metadata": {"k": 1}},
    ]));
    assert_eq!(
        json_of(&c, "u"),
        json!({"role": "user", "id": "u", "content": "hi"})
    );
    assert_eq!(
        json_of(&c, "s"),
        json!({"role": "system", "id": "s", "content": "sys"})
    );
    assert_eq!(
        json_of(&c, "p")["content"],
        json!([{"type": "text", "text": "ab"}])
    );
    assert_eq!(
        json_of(&c, "i")["content"][1],
        json!({"type": "text", "text": "caption"})
    );
    assert_eq!(
        json_of(&c, "r"),
        json!({"role": "reasoning", "id": "r", "content": "hmm", "metadata": {"k": 1}})
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let before = c.messages.clone();
    let changes = feed(
        &mut c,
        json!([
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "u", "delta": "x"},
        ]),
    );
    assert_eq!(changes, [Change::None, Change::None]);
    assert_eq!(c.messages, before);
    assert_eq!(c.warnings.len(), 2);
}

#[test]
fn tool_calls_attach_to_existing_unknown_or_absent_parents() {
    let c = conv(json!([
        {"type": "TEXT_MESSAGE_START", "messageId": "a1"},
        {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f", "parentMessageId": "a1"},
        {"type": "TOOL_CALL_START", "toolCallId": "t2", "toolCallName": "g", "parentMessageId": "ghost"},
        {"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"},
        {"type": "TOOL_CALL_START", "toolCallId": "t3", "toolCallName": "h", "parentMessageId": "u1"},
        {"type": "TOOL_CALL_START", "toolCallId": "t4", "toolCallName": "i", "subagentRunId": "s"},
        {"type": "TEXT_MESSAGE_START", "messageId": "t5", "role": "user"},
        {"type": "TOOL_CALL_START", "toolCallId": "t5", "toolCallName": "j"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "{\"a\":", "metadata": {"k": 1}},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "1}"},
        {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f2", "metadata": {"k": 2}},
        {"type": "TOOL_CALL_END", "toolCallId": "t1", "metadata": {"z": 0}},
    ]));
    assert_eq!(ids(&c), ["a1", "ghost", "u1", "t3", "t4", "t5", "t5-2"]);
    assert_eq!(
        json_of(&c, "a1"),
        json!({"role": "assistant", "id": "a1", "content": "",
        "toolCalls": [{"id": "t1", "type": "function", "function": {"name": "f2",
            "arguments": "{\"a\":1}"}, "metadata": {"k": 2, "z": 0}}]})
    );
    assert_eq!(
        json_of(&c, "ghost"),
        json!({"role": "assistant", "id": "ghost",
        "toolCalls": [{"id": "t2", "type": "function", "function": {"name": "g", "arguments": ""}}]})
    );
    assert_eq!(json_of(&c, "t3")["toolCalls"][0]["id"], "t3");
    assert_eq!(json_of(&c, "t4")["subagentRunId"], "s");
    assert_eq!(json_of(&c, "t5-2")["toolCalls"][0]["id"], "t5");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn tool_results_follow_their_call_and_earlier_results() {
    let mut c = conv(json!([
        {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": "f", "parentMessageId": "a"},
        {"type": "TOOL_CALL_START", "toolCallId": "t2", "toolCallName": "f", "parentMessageId": "a"},
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
            "outcome": {"type": "success", "pendingToolCallIds": ["t1", "t2"]}},
    ]));
    assert_eq!(c.pending_tool_call_ids, ["t1", "t2"]);
    let changes = feed(
        &mut c,
        json!([
            {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "one"},
            {"type": "TOOL_CALL_RESULT", "messageId": "r2", "toolCallId": "t2",
                "content": [{"type": "text", "text": "two"}], "metadata": {"m": 1}},
            {"type": "TOOL_CALL_RESULT", "messageId": "r3", "toolCallId": "unknown", "content": "x"},
            {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "uno"},
        ]),
    );
    c.assert_consistent();
    assert_eq!(
        changes,
        [
            Change::MessageAdded { index: 1 },
            Change::MessageAdded { index: 2 },
            Change::MessageAdded { index: 4 },
            Change::MessageUpdated { index: 1 }
        ]
    );
    assert_eq!(ids(&c), ["a", "r1", "r2", "u", "r3"]);
    assert_eq!(
        json_of(&c, "r1"),
        json!({"role": "tool", "id": "r1", "content": "uno", "toolCallId": "t1"})
    );
    assert_eq!(json_of(&c, "r2")["metadata"], json!({"m": 1}));
    assert!(c.pending_tool_call_ids.is_empty());
}

#[test]
fn messages_snapshot_reconciles_by_id() {
    let local = json!([
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "x"},
            {"id": "a2", "role": "assistant", "toolCalls": [{"id": "t0", "type": "function",
                "function": {"name": "f", "arguments": ""}}]}]},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN", "content": {}},
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
    ]);
    let mut c = conv(local.clone());
    let change = c.apply(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "a1", "role": "assistant", "content": "X", "toolCalls": [{"id": "t1",
            "type": "function", "function": {"name": "f", "arguments": ""}}]},
        {"id": "n1", "role": "user", "content": "new"},
        {"id": "u1", "role": "user", "content": "hi!"}]})));
    c.assert_consistent();
    assert_eq!(change, Change::MessagesReset);
    assert_eq!(ids(&c), ["u1", "a1", "act", "r1", "n1"]);
    assert_eq!(json_of(&c, "a1")["content"], "X");
    assert_eq!(json_of(&c, "u1")["content"], "hi!");
    feed(
        &mut c,
        json!([
            {"type": "TOOL_CALL_ARGS", "toolCallId": "t1", "delta": "{}"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "t0", "delta": "{}"},
        ]),
    );
    assert_eq!(
        json_of(&c, "a1")["toolCalls"][0]["function"]["arguments"],
        "{}"
    );
    assert_eq!(c.warnings.len(), 1, "t0 went away with a2");

    let mut c = conv(local);
    c.apply(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "act2", "role": "activity", "activityType": "PLAN", "content": {}},
        {"id": "r2", "role": "reasoning", "content": "r"},
        {"id": "u1", "role": "user", "content": "hi"}]})));
    c.assert_consistent();
    assert_eq!(ids(&c), ["u1", "act2", "r2"]);
}

#[test]
fn state_snapshot_replaces_with_any_json() {
    let mut c = Conversation::new();
    assert_eq!(c.state, json!({}));
    for v in [
        json!(null),
        json!(0),
        json!([1, 2]),
        json!("s"),
        json!({"a": {"b": 1}}),
    ] {
        let change = c.apply(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": v})));
        assert_eq!((change, &c.state), (Change::State, &v));
    }
}

#[test]
fn state_delta_is_atomic_and_failures_keep_state() {
    let mut c = conv(json!([{"type": "STATE_SNAPSHOT", "snapshot": {"a": {"b": 1}}}]));
    let delta = |ops: Value| ev(json!({"type": "STATE_DELTA", "delta": ops}));
    let good = delta(json!([{"op": "add", "path": "/c", "value": [1], "note": "extra member"}]));
    assert_eq!(c.apply(&good), Change::State);
    assert_eq!(c.state, json!({"a": {"b": 1}, "c": [1]}));
    let before = c.state.clone();
    for (n, bad) in [
        json!([{"op": "add", "path": "/d", "value": 1}, {"op": "replace", "path": "/zz/q", "value": 2}]),
        json!([{"op": "move", "from": "/a/b", "path": "/a"}, {"op": "test", "path": "/zz", "value": 0}]),
        json!([{"op": "move", "from": "/c", "path": ""}, {"op": "remove", "path": "/zz"}]),
        json!([{"op": "frobnicate", "path": "/a"}]),
    ].into_iter().enumerate() {
        assert_eq!(c.apply(&delta(bad)), Change::None);
        assert_eq!(c.state, before);
        assert_eq!(c.warnings.len(), n + 1);
        assert!(c.warnings[n].contains("Failed to apply state patch"), "{}", c.warnings[n]);
    }
    c.apply(&delta(
        json!([{"op": "move", "from": "/a/b", "path": "/a"}]),
    ));
    assert_eq!(c.state, json!({"a": 1, "c": [1]}));
}

#[test]
fn activity_snapshots_and_deltas() {
    let snap = |content: Value, replace: Value| {
        ev(
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "PLAN",
            "content": content, "replace": replace, "metadata": {"n": replace}}),
        )
    };
    let delta = |id: &str, patch: Value| {
        ev(
            json!({"type": "ACTIVITY_DELTA", "messageId": id, "activityType": "PLAN2", "patch": patch}),
        )
    };
    let mut c = Conversation::new();
    assert_eq!(
        c.apply(&snap(json!({"s": 1}), json!(true))),
        Change::MessageAdded { index: 0 }
    );
    assert_eq!(c.apply(&snap(json!({"s": 2}), json!(false))), Change::None);
    assert_eq!(json_of(&c, "act")["content"], json!({"s": 1}));
    c.apply(&snap(json!({"s": 3}), json!(null)));
    assert_eq!(
        json_of(&c, "act"),
        json!({"role": "activity", "id": "act",
        "activityType": "PLAN", "content": {"s": 3}, "metadata": {"n": null}})
    );
    assert_eq!(c.apply(&delta("missing", json!([]))), Change::None);
    assert!(c.warnings.is_empty() && c.messages.len() == 1);
    c.apply(&delta(
        "act",
        json!([{"op": "replace", "path": "/s", "value": 4}]),
    ));
    assert_eq!(json_of(&c, "act")["content"], json!({"s": 4}));
    assert_eq!(json_of(&c, "act")["activityType"], "PLAN2");
    for bad in [
        json!([{"op": "remove", "path": "/nope"}]),
        json!([{"op": "replace", "path": "", "value": [1]}]),
    ] {
        assert_eq!(c.apply(&delta("act", bad)), Change::None);
    }
    assert_eq!(json_of(&c, "act")["content"], json!({"s": 4}));
    feed(
        &mut c,
        json!([{"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}]),
    );
    assert_eq!(c.apply(&delta("u", json!([]))), Change::None);
    assert_eq!(c.warnings.len(), 3);
}

#[test]
fn encrypted_values_land_on_messages_and_tool_calls() {
    let c = conv(json!([
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "a"},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "u",
            "encryptedValue": "E1", "encryptedValueType": "k1"},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "t",
            "encryptedValue": "E2"},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "ghost",
            "encryptedValue": "E3"},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "ghost",
            "encryptedValue": "E4"},
    ]));
    assert_eq!(json_of(&c, "u")["encryptedValue"], "E1");
    assert_eq!(json_of(&c, "u")["encryptedValueType"], "k1");
    assert_eq!(json_of(&c, "a")["toolCalls"][0]["encryptedValue"], "E2");
    assert!(json_of(&c, "a").get("encryptedValue").is_none());
    assert!(c.warnings.is_empty());
}

#[test]
fn run_outcomes_drive_interrupts_results_and_usage() {
    let started = |run: &str, resume: bool| {
        let mut input = json!({"threadId": "th", "runId": run, "messages": []});
        if resume {
            input["resume"] = json!([{"interruptId": "i1", "status": "resolved"}]);
        }
        ev(json!({"type": "RUN_STARTED", "threadId": "th", "runId": run, "input": input}))
    };
    let finished = |outcome: Value, result: Value| {
        let mut e = json!({"type": "RUN_FINISHED", "threadId": "th", "runId": "r", "result": result,
            "usage": [{"model": "m", "inputTokens": 3}]});
        if !outcome.is_null() {
            e["outcome"] = outcome;
        }
        ev(e)
    };
    let mut c = Conversation::new();
    assert_eq!(c.apply(&started("r1", false)), Change::Run);
    assert!(c.is_running() && c.thread_id.as_deref() == Some("th"));
    feed(
        &mut c,
        json!([{"type": "STEP_STARTED", "stepName": "s"},
        {"type": "REASONING_START", "messageId": "sp"}]),
    );
    c.apply(&finished(
        json!({"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirmation"}]}),
        json!(1),
    ));
    assert_eq!(c.pending_interrupts.len(), 1);
    assert_eq!(c.result, None);
    assert!(c.active_steps.is_empty() && c.reasoning_spans.is_empty());
    assert!(matches!(
        &c.run,
        RunStatus::Finished {
            outcome: Some(RunOutcome::Interrupt { .. }),
            ..
        }
    ));
    c.apply(&started("r2", false));
    assert_eq!(
        c.pending_interrupts.len(),
        1,
        "kept until a run resumes them"
    );
    c.apply(&ev(
        json!({"type": "RUN_ERROR", "message": "boom", "code": "E", "usage": [{}]}),
    ));
    assert_eq!(
        c.run,
        RunStatus::Error {
            message: "boom".into(),
            code: Some("E".into())
        }
    );
    assert_eq!(c.pending_interrupts.len(), 1);
    c.apply(&started("r3", true));
    assert!(c.pending_interrupts.is_empty());
    c.apply(&finished(
        json!({"type": "success", "pendingToolCallIds": ["t"]}),
        json!({"ok": 1}),
    ));
    assert_eq!(
        (c.pending_tool_call_ids.clone(), c.result.clone()),
        (vec!["t".into()], Some(json!({"ok": 1})))
    );
    c.apply(&started("r4", false));
    assert!(c.pending_tool_call_ids.is_empty() && c.result.is_none());
    c.apply(&finished(Value::Null, json!("done")));
    assert_eq!(c.result, Some(json!("done")));
    c.apply(&started("r5", false));
    c.apply(&finished(json!({"type": "cancelled"}), json!("x")));
    assert_eq!(c.result, None);
    assert_eq!(c.usage.len(), 5);
}

#[test]
fn from_input_and_run_started_input_append_only_new_messages() {
    let input: RunAgentInput = serde_json::from_value(json!({"threadId": "th", "runId": "r",
        "state": {"s": 1}, "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "toolCalls": [{"id": "t1", "type": "function",
                "function": {"name": "f", "arguments": "{}"}}]},
            {"id": "u2", "role": "user", "content": "later"}]}))
    .unwrap();
    let mut c = Conversation::from_input(&input);
    assert_eq!(
        (c.thread_id.as_deref(), &c.state, c.run.clone()),
        (Some("th"), &json!({"s": 1}), RunStatus::Idle)
    );
    assert_eq!(
        c.messages_json(),
        serde_json::to_value(&input.messages).unwrap()
    );
    c.apply(&ev(
        json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "t1", "content": "ok"}),
    ));
    assert_eq!(ids(&c), ["u1", "a1", "r1", "u2"]);
    let mut input2 = json!({"threadId": "th", "runId": "r2", "messages": [
        {"id": "u1", "role": "user", "content": "changed?"}, {"id": "u3", "role": "user", "content": "new"}]});
    let run = |input: &Value| {
        ev(json!({"type": "RUN_STARTED", "threadId": "th", "runId": "r2", "input": input}))
    };
    assert_eq!(c.apply(&run(&input2)), Change::MessagesReset);
    assert_eq!(ids(&c), ["u1", "a1", "r1", "u2", "u3"]);
    assert_eq!(json_of(&c, "u1")["content"], "hi");
    input2["messages"] = json!([]);
    assert_eq!(c.apply(&run(&input2)), Change::Run);
    c.assert_consistent();
}

#[test]
fn steps_spans_subagents_custom_and_raw() {
    let mut c = Conversation::new();
    let changes = feed(
        &mut c,
        json!([
            {"type": "STEP_STARTED", "stepName": "plan"},
            {"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": "s1"},
            {"type": "STEP_FINISHED", "stepName": "plan"},
            {"type": "REASONING_START", "messageId": "sp"},
            {"type": "REASONING_END", "messageId": "sp"},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n", "parentToolCallId": "t"},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "m"},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "suspended"}},
            {"type": "SUBAGENT_ERROR", "subagentRunId": "s2", "message": "bad"},
            {"type": "SUBAGENT_ERROR", "subagentRunId": "s9", "message": "who"},
            {"type": "RAW", "event": {"x": 1}},
        ]),
    );
    use Change::*;
    assert_eq!(
        changes,
        [
            Steps, Steps, Steps, Reasoning, Reasoning, Subagents, Subagents, Subagents, Subagents,
            None, Raw
        ]
    );
    assert_eq!(
        c.active_steps,
        [(Some("s1".to_string()), "plan".to_string())]
    );
    assert_eq!(c.subagents[0].status, SubagentStatus::Suspended);
    assert_eq!(c.subagents[0].parent_tool_call_id.as_deref(), Some("t"));
    assert_eq!(c.subagents[1].status, SubagentStatus::Error("bad".into()));
    assert_eq!((c.raw_events, c.warnings.len()), (1, 1));
    for n in 0..300 {
        c.apply(&ev(json!({"type": "CUSTOM", "name": "c", "value": n})));
    }
    assert_eq!(c.custom_events.len(), 256);
    assert_eq!(c.custom_events[0], ("c".to_string(), json!(44)));
}

#[test]
fn render_hints_are_placed_after_the_messages_before_them() {
    let mut c = conv(json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "chart", "props": {"a": 1}}},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"no": "component"}},
        {"type": "CUSTOM", "name": "other", "value": 1},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"},
    ]));
    let placed: Vec<_> = c
        .render_hints
        .iter()
        .map(|h| (h.component.as_str(), h.position, h.run_id.as_deref()))
        .collect();
    assert_eq!(placed, [("chart", 0, Some("r1")), ("", 1, Some("r1"))]);
    assert_eq!(c.render_hints[0].props, json!({"a": 1}));
    assert_eq!(c.render_hints[1].props, json!({"no": "component"}));
    // A later run keeps them; the same run id started again replaces its own.
    feed(
        &mut c,
        json!([
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
            {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "table"}},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        ]),
    );
    let placed: Vec<_> = c
        .render_hints
        .iter()
        .map(|h| (h.component.as_str(), h.run_id.as_deref()))
        .collect();
    assert_eq!(placed, [("table", Some("r2"))]);
    assert_eq!(c.render_hints[0].props, json!({}));
    // Stored as JSON and read back unchanged.
    let text = serde_json::to_string(&c.render_hints).unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<PlacedHint>>(&text).unwrap(),
        c.render_hints
    );
}

#[test]
fn a_forgotten_run_takes_its_messages_and_hints_and_leaves_the_rest_in_place() {
    let mut c = conv(json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "chart"}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"},
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        {"type": "TEXT_MESSAGE_START", "messageId": "a2", "role": "assistant"},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "table"}},
        {"type": "TOOL_CALL_START", "toolCallId": "tc", "toolCallName": "f", "parentMessageId": "a2"},
        {"type": "RUN_ERROR", "message": "boom"},
    ]));
    // A later run's hint, placed after r2's message (as if r2's output had been kept).
    c.render_hints.push(PlacedHint::from_value(
        &json!({"component": "code"}),
        2,
        Some("r3".into()),
    ));
    let produced = ["a2".to_string()].into_iter().collect();
    c.forget_run("r2", &produced);
    assert_eq!(ids(&c), ["a1"]);
    let placed: Vec<_> = c
        .render_hints
        .iter()
        .map(|h| (h.component.as_str(), h.position))
        .collect();
    assert_eq!(placed, [("chart", 1), ("code", 1)]);
    c.assert_consistent();
    // The forgotten tool call is unknown now: its events are refused, not misapplied.
    let warnings = c.warnings.len();
    let change = c.apply(&ev(
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "tc", "delta": "x"}),
    ));
    assert_eq!(change, Change::None);
    assert_eq!(c.warnings.len(), warnings + 1);
}

#[test]
fn direct_edits_to_messages_are_repaired() {
    let mut c = conv(json!([
        {"type": "TEXT_MESSAGE_START", "messageId": "a"},
        {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "b"},
    ]));
    c.messages.remove(0);
    c.apply(&ev(
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "x"}),
    ));
    c.assert_consistent();
    assert_eq!(
        json_of(&c, "b")["toolCalls"][0]["function"]["arguments"],
        "x"
    );
}

#[test]
fn many_deltas_append_in_linear_time() {
    let mut c = conv(json!([{"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "f", "parentMessageId": "m"}]));
    let text = ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "ab"}));
    let args = ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "cd"}));
    for _ in 0..200_000 {
        c.apply(&text);
        c.apply(&args);
    }
    let Some(Message::Assistant(a)) = c.message("m") else {
        panic!()
    };
    assert_eq!(a.content.as_ref().map(String::len), Some(400_000));
    assert_eq!(
        a.tool_calls.as_ref().unwrap()[0].function.arguments.len(),
        400_000
    );
}

const POOL: [&str; 4] = ["a", "b", "c", "d"];

fn random_patch(ops: &[(u8, u8, u8)]) -> Value {
    const PATHS: [&str; 7] = ["", "/a", "/a/b", "/arr/-", "/arr/0", "/x", "bad"];
    const OPS: [&str; 7] = ["add", "remove", "replace", "move", "copy", "test", "nope"];
    let op = |&(o, p, f): &(u8, u8, u8)| {
        let value = if p % 2 == 0 {
            json!({"b": [1]})
        } else {
            json!(1)
        };
        json!({"op": OPS[o as usize % 7], "path": PATHS[p as usize % 7],
            "from": PATHS[f as usize % 7], "value": value})
    };
    Value::Array(ops.iter().map(op).collect())
}

fn random_messages(a: u8, b: u8, s: &str) -> Value {
    let mut out = Vec::new();
    for k in 0..4 {
        if a & (1 << k) == 0 {
            continue;
        }
        let id = POOL[k];
        let tc = POOL[(k + b as usize) % 4];
        out.push(match (b >> k) % 5 {
            0 => json!({"id": id, "role": "user", "content": s}),
            1 => json!({"id": id, "role": "assistant", "toolCalls": [{"id": tc,
                "type": "function", "function": {"name": "f", "arguments": ""}}]}),
            2 => json!({"id": id, "role": "tool", "content": s, "toolCallId": tc}),
            3 => json!({"id": id, "role": "activity", "activityType": s, "content": {}}),
            _ => json!({"id": id, "role": "reasoning", "content": s}),
        });
    }
    if a & 16 != 0 && !out.is_empty() {
        out.push(out[0].clone());
    }
    Value::Array(out)
}

fn pick<T: Clone>(items: &[T], n: u8) -> T {
    items[n as usize % items.len()].clone()
}

fn random_event(k: u8, a: u8, b: u8, s: &str, ops: &[(u8, u8, u8)]) -> Event {
    let (x, y) = (POOL[a as usize % 4], POOL[b as usize % 4]);
    let mut e = match k % 31 {
        0 => json!({"type": "TEXT_MESSAGE_START", "messageId": x,
            "role": pick(&["assistant", "user", "system", "developer"], b)}),
        1 => json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": x, "delta": s}),
        2 => json!({"type": "TEXT_MESSAGE_END", "messageId": x}),
        3 => {
            json!({"type": "TOOL_CALL_START", "toolCallId": x, "toolCallName": s, "parentMessageId": y})
        }
        4 => json!({"type": "TOOL_CALL_START", "toolCallId": x, "toolCallName": s}),
        5 => json!({"type": "TOOL_CALL_ARGS", "toolCallId": x, "delta": s}),
        6 => json!({"type": "TOOL_CALL_END", "toolCallId": x}),
        7 => json!({"type": "TOOL_CALL_RESULT", "messageId": x, "toolCallId": y,
            "content": if b.is_multiple_of(2) { json!(s) } else { json!([{"type": "text", "text": s}]) }}),
        8 => json!({"type": "STATE_SNAPSHOT", "snapshot":
            pick(&[json!(null), json!(0), json!([1]), json!({"a": {"b": [1]}, "arr": []})], b)}),
        9 => json!({"type": "STATE_DELTA", "delta": random_patch(ops)}),
        10 => json!({"type": "MESSAGES_SNAPSHOT", "messages": random_messages(a, b, s)}),
        11 => json!({"type": "ACTIVITY_SNAPSHOT", "messageId": x, "activityType": s,
            "content": {"a": {"b": [1]}}, "replace": pick(&[json!(null), json!(true), json!(false)], b)}),
        12 => {
            json!({"type": "ACTIVITY_DELTA", "messageId": x, "activityType": s, "patch": random_patch(ops)})
        }
        13 => json!({"type": "REASONING_START", "messageId": x}),
        14 => json!({"type": "REASONING_END", "messageId": x}),
        15 => json!({"type": "REASONING_MESSAGE_START", "messageId": x, "role": "reasoning"}),
        16 => json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": x, "delta": s}),
        17 => json!({"type": "REASONING_MESSAGE_END", "messageId": x}),
        18 => {
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": pick(&["message", "tool-call"], b),
            "entityId": x, "encryptedValue": s})
        }
        19 => {
            let mut input =
                json!({"threadId": "t", "runId": s, "messages": random_messages(a, b, s)});
            if b % 2 == 1 {
                input["resume"] = json!([{"interruptId": x, "status": "resolved"}]);
            }
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": s, "input": input})
        }
        20 => {
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": s, "result": s, "outcome": pick(&[
            json!(null), json!({"type": "success", "pendingToolCallIds": [x]}),
            json!({"type": "interrupt", "interrupts": [{"id": x, "reason": "confirmation"}]}),
            json!({"type": "cancelled"})], b)})
        }
        21 => json!({"type": "RUN_ERROR", "message": s}),
        22 => json!({"type": "STEP_STARTED", "stepName": x}),
        23 => json!({"type": "STEP_FINISHED", "stepName": x}),
        24 => json!({"type": "SUBAGENT_STARTED", "subagentRunId": x, "name": s}),
        25 => json!({"type": "SUBAGENT_FINISHED", "subagentRunId": x,
            "outcome": {"type": pick(&["success", "suspended"], b)}}),
        26 => json!({"type": "SUBAGENT_ERROR", "subagentRunId": x, "message": s}),
        27 => json!({"type": "CUSTOM", "name": s, "value": b}),
        28 => json!({"type": "RAW", "event": s}),
        29 => json!({"type": "TOOL_CALL_CHUNK", "toolCallId": x, "delta": s}),
        _ => json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": x, "delta": s}),
    };
    if a.is_multiple_of(3) {
        e["metadata"] = json!({"k": s, "n": b});
    }
    if b.is_multiple_of(3) && e.get("subagentRunId").is_none() {
        e["subagentRunId"] = json!(y);
    }
    ev(e)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn random_streams_never_panic_and_keep_the_index_exact(
        events in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), "[ab]{0,3}",
            proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..5)), 0..80)
    ) {
        let mut c = Conversation::new();
        c.state = json!({"a": {"b": [1]}, "arr": []});
        for (k, a, b, s, ops) in &events {
            c.apply(&random_event(*k, *a, *b, s, ops));
            c.assert_consistent();
            prop_assert!(c.custom_events.len() <= CUSTOM_LIMIT);
        }
    }
}

#[test]
fn state_past_the_limits_is_refused_and_the_state_kept() {
    let mut c = conv(json!([{"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}}]));
    c.state_limits = JsonLimits {
        max_depth: 4,
        max_bytes: 64,
    };
    let big = ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"s": "x".repeat(100)}}));
    let refused = c.apply_checked(&big).unwrap_err();
    assert_eq!(refused.code, STATE_LIMIT);
    assert_eq!(
        refused.message,
        "STATE_SNAPSHOT refused: the state would be too large (over 64 bytes)"
    );
    assert_eq!(c.state, json!({"a": 1}));
    let deep = ev(json!({"type": "STATE_SNAPSHOT", "snapshot": [[[[[1]]]]]}));
    assert!(c
        .apply_checked(&deep)
        .unwrap_err()
        .message
        .contains("too deep (over 4 levels)"));
    let bomb = ev(json!({"type": "STATE_DELTA", "delta": [
        {"op": "copy", "from": "", "path": "/b"}, {"op": "copy", "from": "", "path": "/c"},
        {"op": "copy", "from": "", "path": "/d"}, {"op": "copy", "from": "", "path": "/e"}]}));
    let refused = c.apply_checked(&bomb).unwrap_err();
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (
            STATE_LIMIT,
            "STATE_DELTA refused: the state would be too large (over 64 bytes)"
        )
    );
    assert_eq!(c.state, json!({"a": 1}));
    // Through `apply`, a refusal is a warning; a delta within the limits still applies.
    assert_eq!(c.apply(&bomb), Change::None);
    assert!(c
        .warnings
        .last()
        .unwrap()
        .starts_with("STATE_DELTA refused"));
    let fine =
        ev(json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/b", "value": 2}]}));
    assert_eq!(c.apply_checked(&fine), Ok(Change::State));
    assert_eq!(c.state, json!({"a": 1, "b": 2}));
    // An invalid patch stays a warning, not a refusal.
    let bad = ev(json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/zz"}]}));
    assert_eq!(c.apply_checked(&bad), Ok(Change::None));
}

#[test]
fn activity_patches_past_the_limits_are_dropped() {
    let mut c = conv(json!([{"type": "ACTIVITY_SNAPSHOT", "messageId": "act",
        "activityType": "PLAN", "content": {"s": "x"}}]));
    c.state_limits.max_bytes = 256;
    let bomb: Vec<Value> = (0..20)
        .map(|i| json!({"op": "copy", "from": "", "path": format!("/n{i}")}))
        .collect();
    let delta = ev(json!({"type": "ACTIVITY_DELTA", "messageId": "act",
        "activityType": "PLAN", "patch": bomb}));
    assert_eq!(c.apply_checked(&delta), Ok(Change::None));
    assert_eq!(json_of(&c, "act")["content"], json!({"s": "x"}));
    assert!(c
        .warnings
        .last()
        .unwrap()
        .contains("too large (over 256 bytes)"));
}

/// Which tool calls are still streaming their arguments is the conversation's to say (the UI
/// reads it, not an event log): a call ended early in a long run stays ended after 20,000 later
/// events; one never ended is open until its run ends.
#[test]
fn tool_calls_ended_early_in_a_long_run_stay_ended() {
    let mut c = conv(json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "TOOL_CALL_START", "toolCallId": "early", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "early", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "early"},
        {"type": "TOOL_CALL_START", "toolCallId": "open", "toolCallName": "g"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    ]));
    assert_eq!(c.open_tool_calls.iter().collect::<Vec<_>>(), ["open"]);
    for _ in 0..20_000 {
        c.apply(&ev(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}),
        ));
    }
    assert!(!c.open_tool_calls.contains("early"));
    assert!(c.open_tool_calls.contains("open"));
    feed(&mut c, json!([{"type": "RUN_ERROR", "message": "cut"}]));
    assert!(
        c.open_tool_calls.is_empty(),
        "nothing stays open after a run"
    );
}

/// Hints are placed by the reducer at the message count when they arrive, also when a
/// `MESSAGES_SNAPSHOT` in the same stream changed that count (the browser used to place them
/// itself per batch, approximately when a snapshot was in the batch).
#[test]
fn hints_after_a_snapshot_are_placed_by_the_snapshot_count() {
    let c = conv(json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "a"},
            {"id": "m1", "role": "assistant", "content": "b"},
            {"id": "u2", "role": "user", "content": "c"},
            {"id": "m2", "role": "assistant", "content": "d"}
        ]},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "chart"}},
        {"type": "TEXT_MESSAGE_START", "messageId": "m3", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m3"},
        {"type": "CUSTOM", "name": "ui_render_hint", "value": {"component": "table"}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"},
    ]));
    let placed: Vec<_> = c
        .render_hints
        .iter()
        .map(|h| (h.component.as_str(), h.position))
        .collect();
    assert_eq!(placed, [("chart", 4), ("table", 5)]);
}

#[test]
fn compact_frees_spare_room_and_keeps_the_conversation() {
    let mut c = conv(json!([
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "approve?"},
        {"type": "TEXT_MESSAGE_END", "messageId": "u"},
        {"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "request_approval", "parentMessageId": "a"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "t"},
    ]));
    let calls = |c: &Conversation| match c.messages.last() {
        Some(Message::Assistant(a)) => a.tool_calls.clone().unwrap_or_default(),
        _ => panic!("the last message is not the assistant's"),
    };
    let before = (serde_json::to_value(&c.messages).unwrap(), calls(&c).len());
    assert!(
        c.messages.capacity() > c.messages.len(),
        "room to give back"
    );
    c.compact();
    assert_eq!(c.messages.capacity(), c.messages.len());
    let Some(Message::Assistant(a)) = c.messages.last() else {
        panic!()
    };
    let own = a.tool_calls.as_ref().unwrap();
    assert_eq!(own.capacity(), own.len());
    assert_eq!(
        (serde_json::to_value(&c.messages).unwrap(), calls(&c).len()),
        before
    );
    c.assert_consistent();
    // Still a conversation that takes events: the call's result and a new message.
    feed(
        &mut c,
        json!([
            {"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "t", "content": "yes"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        ]),
    );
    c.assert_consistent();
    assert_eq!(ids(&c), ["u", "a", "r", "m"]);
}
