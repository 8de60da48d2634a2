//! Tests of the `request` module: threads, content parts and tools as Chat Completions JSON.
use super::*;

fn default_schemes() -> Vec<String> {
    crate::server::agents::DEFAULT_LLM_IMAGE_SCHEMES
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn input(messages: Value) -> RunAgentInput {
    serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": messages})).unwrap()
}

#[test]
fn every_role_maps() {
    let mut i = input(json!([
        {"id": "1", "role": "system", "content": "Be brief."},
        {"id": "2", "role": "developer", "content": "Use metric units."},
        {"id": "3", "role": "user", "content": "hi", "name": "ann"},
        {"id": "4", "role": "reasoning", "content": "thinking"},
        {"id": "5", "role": "assistant", "content": "Let me check.", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"1+1\"}"}}]},
        {"id": "6", "role": "tool", "toolCallId": "c1", "content": "{\"result\":2}"},
        {"id": "7", "role": "activity", "activityType": "PLAN", "content": {}},
        {"id": "8", "role": "assistant", "content": "It is 2."},
        {"id": "9", "role": "assistant", "content": ""}
    ]));
    i.context = vec![Context {
        description: "city".into(),
        value: "Oslo".into(),
    }];
    assert_eq!(
        Value::Array(messages(&i, &default_schemes()).unwrap()),
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "system", "content": "Use metric units."},
            {"role": "system", "content": "Context provided by the application:\n- city: Oslo"},
            {"role": "user", "content": "hi", "name": "ann"},
            {"role": "assistant", "content": "Let me check.", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"1+1\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "{\"result\":2}"},
            {"role": "assistant", "content": "It is 2."}
        ])
    );
}

#[test]
fn tool_results_follow_their_calls_and_gaps_are_filled() {
    let i = input(json!([
        {"id": "1", "role": "user", "content": "go"},
        {"id": "2", "role": "assistant", "toolCalls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": ""}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
        {"id": "3", "role": "assistant", "content": "waiting"},
        {"id": "4", "role": "tool", "toolCallId": "b", "content": "ok", "error": "partly"},
        {"id": "5", "role": "tool", "toolCallId": "zz", "content": "stray"}
    ]));
    assert_eq!(
        Value::Array(messages(&i, &default_schemes()).unwrap()),
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": UNANSWERED},
            {"role": "tool", "tool_call_id": "b", "content": "Error: partly\nok"},
            {"role": "assistant", "content": "waiting"},
            {"role": "user", "content": "[result of tool call zz]\nstray"}
        ])
    );
}

#[test]
fn content_parts() {
    let i = input(json!([
        {"id": "1", "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"id": "2", "role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
            {"type": "image", "source": {"type": "url", "value": "https://x/cat.jpg"}},
            {"type": "audio", "source": {"type": "data", "value": "AAAAAAAA", "mimeType": "audio/wav"}},
            {"type": "document", "source": {"type": "url", "value": "https://x/d.pdf", "mimeType": "application/pdf"}},
            {"type": "video", "source": {"type": "file", "value": "file-1", "provider": "openai"}}
        ]}
    ]));
    let m = messages(&i, &default_schemes()).unwrap();
    assert_eq!(m[0]["content"], "a\nb");
    let parts = m[1]["content"].as_array().unwrap();
    assert_eq!(parts[0], json!({"type": "text", "text": "What is this?"}));
    assert_eq!(
        parts[1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
    );
    assert_eq!(
        parts[2],
        json!({"type": "image_url", "image_url": {"url": "https://x/cat.jpg"}})
    );
    let text = |i: usize| parts[i]["text"].as_str().unwrap().to_string();
    assert!(
        text(3).contains("an audio (audio/wav, 6 B inline)"),
        "{}",
        text(3)
    );
    assert!(text(4).contains("a document (application/pdf at https://x/d.pdf)"));
    assert!(text(5).contains("a video (file file-1 of openai)"));
}

#[test]
fn frontend_tools_get_an_object_schema() {
    let t: Tool = serde_json::from_value(json!({"name": "confirm", "description": ""})).unwrap();
    assert_eq!(
        frontend_tool(&t),
        json!({"type": "function", "function": {"name": "confirm", "parameters": {"type": "object", "properties": {}}}})
    );
    let t: Tool = serde_json::from_value(json!({"name": "pick", "description": "Pick",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}))
    .unwrap();
    assert_eq!(
        frontend_tool(&t)["function"]["parameters"]["properties"]["n"]["type"],
        "integer"
    );
}

fn image(url: &str) -> RunAgentInput {
    input(json!([{"id": "u1", "role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "url", "value": url}}
    ]}]))
}

#[test]
fn media_urls_outside_the_allowed_schemes_are_refused() {
    let ok = default_schemes();
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "file:///etc/passwd",
        "ftp://x/y.png",
        "gopher://x/",
        "not a url",
    ] {
        let i = image(url);
        let e = check_media(&i, &ok).unwrap_err();
        assert!(e.0.contains("message 'u1', part 1 (image)"), "{e}");
        assert_eq!(messages(&i, &ok).unwrap_err(), e);
    }
    let e = check_media(&image("HTTP://169.254.169.254/"), &ok).unwrap_err();
    assert!(
        e.0.contains("scheme 'http'") && e.0.contains("allowed: data, https"),
        "{e}"
    );
    for url in ["https://x/cat.jpg", "data:image/png;base64,iVBORw0KGgo="] {
        check_media(&image(url), &ok).unwrap();
        let m = messages(&image(url), &ok).unwrap();
        assert_eq!(m[0]["content"][1]["image_url"]["url"], url);
    }
    // Other media: the URL would reach the model as text, so the same rule holds.
    let doc = input(json!([{"id": "u2", "role": "user", "content": [
        {"type": "document", "source": {"type": "url", "value": "file:///etc/shadow"}}
    ]}]));
    assert!(check_media(&doc, &ok)
        .unwrap_err()
        .0
        .contains("part 0 (document)"));
    // Without `data`, inline images are refused too; with `http` listed, http passes.
    let inline = input(json!([{"id": "u3", "role": "user", "content": [
        {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}}
    ]}]));
    let only_https = vec!["https".to_string()];
    assert!(check_media(&inline, &only_https)
        .unwrap_err()
        .0
        .contains("'data'"));
    let with_http = vec!["https".to_string(), "http".to_string()];
    check_media(&image("http://intranet/x.png"), &with_http).unwrap();
}

#[test]
fn the_checked_url_is_the_one_forwarded() {
    // A WHATWG parser drops the tab; what we checked and what the model reads agree.
    let m = messages(&image("https://x/\tcat.jpg"), &default_schemes()).unwrap();
    assert_eq!(m[0]["content"][1]["image_url"]["url"], "https://x/cat.jpg");
}
