//! One test per framework quirk the proxy repairs, with the events the frameworks send.

use serde_json::{json, Value};

use super::*;

fn ev(v: Value) -> Event {
    Event::from_value(v.clone()).unwrap_or_else(|e| panic!("bad test event {v}: {e}"))
}

fn input(messages: Value) -> RunAgentInput {
    serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": messages})).unwrap()
}

/// Repair each event; the events as relayed (an event to relay first included), and how many
/// repairs were reported.
fn relay(q: &mut Quirks, events: Value) -> (Vec<Value>, usize) {
    let mut reported = 0;
    let mut out = Vec::new();
    for v in events.as_array().unwrap() {
        let mut e = ev(v.clone());
        let (log, before) = q.repair(&mut e);
        reported += usize::from(log.is_some());
        out.extend(before.map(|b| b.to_value()));
        out.push(e.to_value());
    }
    (out, reported)
}

/// The history of a run that called `get_weather` under `pyd-weather-1`.
fn history() -> Value {
    json!([
        {"id": "u1", "role": "user", "content": "weather Oslo"},
        {"id": "a1", "role": "assistant", "content": "", "toolCalls": [{"id": "pyd-weather-1",
            "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"id": "m1", "role": "tool", "toolCallId": "pyd-weather-1", "content": "21"},
        {"id": "a2", "role": "assistant", "content": "21 in Oslo"},
        {"id": "u2", "role": "user", "content": "weather Rome"},
    ])
}

/// Pydantic AI with a scripted model (and any model that numbers its calls per response)
/// starts the next run's call under an id the thread already has.
#[test]
fn a_tool_call_id_the_thread_already_has_is_relayed_under_a_fresh_one() {
    let mut q = Quirks::for_input(&input(history()));
    let (out, reported) = relay(
        &mut q,
        json!([
            {"type": "TOOL_CALL_START", "toolCallId": "pyd-weather-1", "toolCallName": "get_weather",
             "parentMessageId": "a3"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "pyd-weather-1", "delta": "{}"},
            {"type": "TOOL_CALL_END", "toolCallId": "pyd-weather-1"},
            {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "pyd-weather-1",
             "content": "25"},
            // A second reuse in the same run gets the next free id.
            {"type": "TOOL_CALL_START", "toolCallId": "pyd-weather-1", "toolCallName": "get_weather"},
            {"type": "TOOL_CALL_END", "toolCallId": "pyd-weather-1"},
            {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call",
             "entityId": "pyd-weather-1", "encryptedValue": "x"},
            {"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "a1", "role": "assistant", "toolCalls": [{"id": "pyd-weather-1",
                    "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
                {"id": "m1", "role": "tool", "toolCallId": "pyd-weather-1", "content": "21"},
                {"id": "a3", "role": "assistant", "toolCalls": [{"id": "pyd-weather-1",
                    "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}]},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
             "outcome": {"type": "success", "pendingToolCallIds": ["pyd-weather-1"]}},
        ]),
    );
    assert_eq!(reported, 2);
    let ids: Vec<&Value> = out[..4].iter().map(|e| &e["toolCallId"]).collect();
    assert_eq!(ids, [&json!("pyd-weather-1-2"); 4]);
    assert_eq!(out[4]["toolCallId"], "pyd-weather-1-3");
    assert_eq!(out[5]["toolCallId"], "pyd-weather-1-3");
    assert_eq!(out[6]["entityId"], "pyd-weather-1-3");
    let snapshot = &out[7]["messages"];
    assert_eq!(
        snapshot[0]["toolCalls"][0]["id"], "pyd-weather-1",
        "the history keeps its ids"
    );
    assert_eq!(snapshot[1]["toolCallId"], "pyd-weather-1");
    assert_eq!(snapshot[2]["toolCalls"][0]["id"], "pyd-weather-1-3");
    assert_eq!(
        out[8]["outcome"]["pendingToolCallIds"],
        json!(["pyd-weather-1-3"])
    );
}

#[test]
fn fresh_tool_call_ids_pass_unchanged() {
    let mut q = Quirks::for_input(&input(history()));
    let events = json!([
        {"type": "TOOL_CALL_START", "toolCallId": "call-2", "toolCallName": "get_weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call-2", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "call-2"},
        {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "call-2", "content": "1"},
    ]);
    let (out, reported) = relay(&mut q, events.clone());
    assert_eq!(reported, 0);
    for (got, sent) in out.iter().zip(events.as_array().unwrap()) {
        assert_eq!(got, sent);
    }
}

/// ag-ui-langgraph: `TOOL_CALL_RESULT` with `messageId` = the call's id, then a final snapshot
/// whose tool message has LangGraph's own id. Reconciled by id, it would move the tool message
/// after the answer that used it; the messages before it go first, as a snapshot of their own.
#[test]
fn a_snapshot_that_re_ids_a_relayed_tool_result_keeps_the_order() {
    use crate::protocol::reduce::Conversation;
    let events = json!([
        {"type": "TOOL_CALL_START", "toolCallId": "call-1", "toolCallName": "get_weather",
         "parentMessageId": "lc-1"},
        {"type": "TOOL_CALL_END", "toolCallId": "call-1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "call-1", "toolCallId": "call-1",
         "content": "21", "role": "tool"},
        {"type": "TEXT_MESSAGE_START", "messageId": "lc-2", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "lc-2", "delta": "It is 21."},
        {"type": "TEXT_MESSAGE_END", "messageId": "lc-2"},
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "weather Paris"},
            {"id": "lc-1", "role": "assistant", "content": "", "toolCalls": [{"id": "call-1",
                "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"id": "d2515", "role": "tool", "toolCallId": "call-1", "content": "21"},
            {"id": "lc-2", "role": "assistant", "content": "It is 21."}]},
    ]);
    let history = json!([{"id": "u1", "role": "user", "content": "weather Paris"}]);
    let mut q = Quirks::for_input(&input(history.clone()));
    let unrepaired = events.clone();
    let (out, reported) = relay(&mut q, events.clone());
    assert_eq!(reported, 1);
    assert_eq!(out.len(), 8, "one more event: {out:#?}");
    assert_eq!(out[6]["type"], "MESSAGES_SNAPSHOT");
    assert_eq!(
        out[6]["messages"],
        json!(events[6]["messages"].as_array().unwrap()[..2])
    );
    assert_eq!(out[7], events[6], "the snapshot itself is unchanged");
    // A reconciling client ends with the snapshot's conversation, in its order.
    let mut c = Conversation::from_input(&input(history.clone()));
    for e in &out {
        c.apply(&ev(e.clone()));
    }
    let ids: Vec<&str> = c.messages.iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "lc-1", "d2515", "lc-2"]);
    // Relayed as it is, the tool message would have gone last.
    let mut c = Conversation::from_input(&input(history.clone()));
    for e in unrepaired.as_array().unwrap() {
        c.apply(&ev(e.clone()));
    }
    let ids: Vec<&str> = c.messages.iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "lc-1", "lc-2", "d2515"]);

    // The next run sends the history back with LangGraph's ids: nothing to repair.
    let mut q = Quirks::for_input(&input(events[6]["messages"].clone()));
    let (out, reported) = relay(&mut q, json!([events[6]]));
    assert_eq!((reported, out.len()), (0, 1));
}

#[test]
fn a_snapshot_with_the_relayed_tool_message_id_is_left_alone() {
    let mut q = Quirks::for_input(&input(json!([])));
    let events = json!([
        {"type": "TOOL_CALL_RESULT", "messageId": "x", "toolCallId": "c", "content": "1"},
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "y", "role": "tool", "toolCallId": "c", "content": "1"},
            {"id": "x", "role": "tool", "toolCallId": "c", "content": "1"}]},
    ]);
    let (out, reported) = relay(&mut q, events.clone());
    assert_eq!(reported, 0);
    assert_eq!(out, *events.as_array().unwrap());
}

#[test]
fn one_id_started_over_and_over_costs_one_probe_per_start() {
    // A hostile stream may start and end the same id as often as its event budget allows; each
    // start after the first is renamed. The renames go on from the last suffix instead of
    // probing every earlier one (which made 50,000 starts take about 1.25e9 probes).
    let mut q = Quirks::for_input(&input(history()));
    let start = ev(
        json!({"type": "TOOL_CALL_START", "toolCallId": "pyd-weather-1",
        "toolCallName": "get_weather"}),
    );
    let end = ev(json!({"type": "TOOL_CALL_END", "toolCallId": "pyd-weather-1"}));
    let began = std::time::Instant::now();
    let mut last = String::new();
    for _ in 0..50_000 {
        let mut e = start.clone();
        assert!(q.repair(&mut e).0.is_some());
        let EventKind::ToolCallStart { tool_call_id, .. } = &e.kind else {
            unreachable!()
        };
        last = tool_call_id.clone();
        let mut e = end.clone();
        q.repair(&mut e);
    }
    assert_eq!(last, "pyd-weather-1-50001");
    assert!(
        began.elapsed() < std::time::Duration::from_secs(20),
        "50,000 renames took {:?}",
        began.elapsed()
    );
}
