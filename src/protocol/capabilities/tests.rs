use serde_json::{json, Value};

use super::*;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/agui-conformance/sdk-fixtures/agent-capabilities.json"
);

/// Every case of the cross-SDK fixture survives [`sanitize`] exactly: nothing the schema
/// defines is lost, no value is invented, nulls under the open members stay.
#[test]
fn the_sdk_fixture_cases_round_trip() {
    let text = std::fs::read_to_string(FIXTURE).expect("the capabilities fixture");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 4);
    for case in cases {
        assert_eq!(
            sanitize(&case["input"]),
            case["expected"],
            "{}",
            case["name"]
        );
    }
}

#[test]
fn what_the_schema_does_not_define_or_types_wrongly_is_left_out() {
    let doc = json!({
        "transport": {"streaming": "yes", "resumable": true, "quantum": true},
        "state": "all of it",
        "tools": {"supported": true, "items": [
            {"name": "a", "description": "ok", "parameters": {"type": "object"}},
            {"name": "no description"},
            {"name": "b", "description": "null schema", "parameters": null},
            {"name": "c", "description": "bad metadata", "metadata": 3},
            "not a tool"
        ]},
        "execution": {"maxIterations": -1, "maxExecutionTime": 1.5, "codeExecution": false},
        "multiAgent": {"subagents": [{"description": "nameless"}, {"name": "w"}]},
        "custom": ["not", "an", "object"],
        "unknownGroup": {"x": true}
    });
    assert_eq!(
        sanitize(&doc),
        json!({
            "transport": {"resumable": true},
            "tools": {"supported": true, "items": [
                {"name": "a", "description": "ok", "parameters": {"type": "object"}},
                {"name": "b", "description": "null schema"}
            ]},
            "execution": {"codeExecution": false},
            "multiAgent": {"subagents": [{"name": "w"}]}
        })
    );
    assert_eq!(sanitize(&json!([1, 2])), json!({}));
    assert_eq!(sanitize(&Value::Null), json!({}));
}

#[test]
fn lists_strings_and_open_values_are_bounded() {
    let many: Vec<Value> = (0..MAX_LIST * 4)
        .map(|i| json!({"name": format!("t{i}"), "description": "d"}))
        .collect();
    let long = "x".repeat(MAX_STRING + 1);
    let big = json!({"blob": "y".repeat(MAX_OPEN_BYTES)});
    let doc = json!({
        "tools": {"items": many},
        "identity": {"name": long, "metadata": big.clone(), "type": "t"},
        "output": {"supportedMimeTypes": vec![json!("text/plain"); MAX_LIST + 5]},
        "custom": big
    });
    let s = sanitize(&doc);
    assert_eq!(s["tools"]["items"].as_array().unwrap().len(), MAX_LIST);
    assert_eq!(s["identity"], json!({"type": "t"}));
    assert_eq!(
        s["output"]["supportedMimeTypes"].as_array().unwrap().len(),
        MAX_LIST
    );
    assert!(s.get("custom").is_none());
}

#[test]
fn readers_say_no_only_for_an_explicit_false() {
    let unknown = json!({});
    assert!(accepts_attachments(&unknown) && supports_hitl(&unknown) && reasons(&unknown));
    assert!(approves_with_edits(&unknown) && !encrypted_reasoning(&unknown));
    let none = json!({
        "multimodal": {"input": {"image": false, "audio": false, "video": false, "pdf": false, "file": false}},
        "humanInTheLoop": {"supported": false, "approveWithEdits": false},
        "reasoning": {"supported": false}
    });
    assert!(!accepts_attachments(&none) && !supports_hitl(&none) && !reasons(&none));
    assert!(!approves_with_edits(&none));
    assert!(encrypted_reasoning(
        &json!({"reasoning": {"encrypted": true}})
    ));
    // One kind accepted, or one left undeclared: attachments may work.
    assert!(accepts_attachments(
        &json!({"multimodal": {"input": {"image": true, "audio": false}}})
    ));
    assert!(accepts_attachments(
        &json!({"multimodal": {"input": {"image": false}}})
    ));
}
