//! Tests of the `types` module: the wire form of inputs, messages and outcomes.
use super::*;
use serde_json::json;

#[test]
fn run_agent_input_accepts_only_required_fields() {
    let input: RunAgentInput =
        serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": []})).unwrap();
    assert_eq!(input.state, json!({}));
    assert!(input.tools.is_empty() && input.context.is_empty());
    assert_eq!(input.forwarded_props, json!({}));
}

#[test]
fn absent_optionals_are_omitted_and_nulls_in_payloads_kept() {
    let mut input = RunAgentInput::new("t", "r");
    input.state = json!({"a": null});
    let v = serde_json::to_value(&input).unwrap();
    assert!(v.get("parentRunId").is_none());
    assert!(v.get("resume").is_none());
    assert_eq!(v["state"], json!({"a": null}));
}

#[test]
fn messages_of_every_role_round_trip() {
    let all = json!([
        {"id": "1", "role": "developer", "content": "d"},
        {"id": "2", "role": "system", "content": "s", "name": "sys"},
        {"id": "3", "role": "assistant", "toolCalls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"id": "4", "role": "user", "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": "image/png"}},
            {"type": "audio", "source": {"type": "url", "value": "https://x/a.mp3"}},
            {"type": "video", "source": {"type": "file", "value": "file-1", "provider": "openai"}},
            {"type": "document", "source": {"type": "url", "value": "https://x/d.pdf", "mimeType": "application/pdf"}}]},
        {"id": "5", "role": "tool", "content": "ok", "toolCallId": "c", "error": "e"},
        {"id": "6", "role": "activity", "activityType": "PLAN", "content": {"x": null}},
        {"id": "7", "role": "reasoning", "content": "hmm", "encryptedValue": "zz"}
    ]);
    let msgs: Vec<Message> = serde_json::from_value(all.clone()).unwrap();
    assert_eq!(msgs.len(), 7);
    assert_eq!(serde_json::to_value(&msgs).unwrap(), all);
}

#[test]
fn outcomes_round_trip() {
    for v in [
        json!({"type": "success"}),
        json!({"type": "success", "pendingToolCallIds": ["a"]}),
        json!({"type": "interrupt", "interrupts": [{"id": "i", "reason": "confirmation",
            "responseSchema": {"type": "object"}}]}),
        json!({"type": "cancelled"}),
    ] {
        let o: RunOutcome = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&o).unwrap(), v);
    }
}
