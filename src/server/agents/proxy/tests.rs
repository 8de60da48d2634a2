//! Unit tests of the proxy's small helpers (the relay itself is tested over sockets in
//! `tests/proxy.rs`, against a real Python agent).

use super::relay::{merge_usage, Relay};
use super::*;
use crate::protocol::pipeline::{Pipeline, PipelineOptions};
use crate::protocol::types::TokenUsage;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};

fn usage(provider: &str, model: &str, input: u64, output: u64) -> TokenUsage {
    TokenUsage {
        provider: Some(provider.into()),
        model: Some(model.into()),
        input_tokens: Some(input),
        output_tokens: Some(output),
        ..Default::default()
    }
}

#[test]
fn usage_entries_merge_into_one() {
    assert_eq!(merge_usage(None), None);
    assert_eq!(merge_usage(Some(vec![])), None);
    let one = usage("openai", "gpt", 3, 4);
    assert_eq!(merge_usage(Some(vec![one.clone()])), Some(one));
    let merged = merge_usage(Some(vec![
        usage("openai", "gpt", 3, 4),
        usage("openai", "mini", 10, 20),
    ]))
    .unwrap();
    assert_eq!(merged.provider.as_deref(), Some("openai"));
    assert_eq!(merged.model, None);
    assert_eq!(
        (merged.input_tokens, merged.output_tokens),
        (Some(13), Some(24))
    );
    assert_eq!(merged.total_tokens, None, "absent is not zero");
}

#[test]
fn only_an_event_stream_or_protobuf_content_type_is_read() {
    let with = |v: &'static str| {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_TYPE, HeaderValue::from_static(v));
        h
    };
    let name = |h: &HeaderMap| feed::detect(h).map(feed::name);
    assert_eq!(name(&with("text/event-stream")), Some("SSE"));
    assert_eq!(name(&with("Text/Event-Stream; charset=utf-8")), Some("SSE"));
    assert_eq!(
        name(&with("application/vnd.ag-ui.event+proto")),
        Some("protobuf")
    );
    assert_eq!(name(&with("application/json")), None);
    assert_eq!(name(&with("text/event-streamx")), None);
    assert_eq!(name(&with("application/vnd.ag-ui.event+protox")), None);
    assert_eq!(name(&HeaderMap::new()), None);
}

#[test]
fn loopback_hosts_are_recognised() {
    for (url, expected) in [
        ("http://127.0.0.1:8000/a", true),
        ("http://localhost/a", true),
        ("http://[::1]:9/a", true),
        ("https://agents.example.com/a", false),
        ("http://10.0.0.1/a", false),
    ] {
        assert_eq!(is_loopback(&Url::parse(url).unwrap()), expected, "{url}");
    }
    assert_eq!(
        host_of(&Url::parse("http://[::1]:9/a?key=x").unwrap()),
        "[::1]:9"
    );
    assert_eq!(
        host_of(&Url::parse("https://h.example/a").unwrap()),
        "h.example"
    );
}

#[test]
fn info_names_the_host_and_claims_nothing_it_cannot_know() {
    let agent =
        ProxyAgent::new("lg=http://127.0.0.1:8123/agent?key=secret".parse().unwrap()).unwrap();
    let info = agent.info();
    assert_eq!(info.id, "lg");
    assert!(
        info.description.contains("127.0.0.1:8123"),
        "{}",
        info.description
    );
    assert!(!info.description.contains("secret"));
    // Transport and persistence are the server's to add; nothing is read yet (no runtime).
    let groups: Vec<&String> = info.capabilities.as_object().unwrap().keys().collect();
    assert_eq!(groups, ["identity"]);
    assert!(!info.capabilities.to_string().contains("secret"));
}

#[test]
fn a_missing_header_variable_stops_startup() {
    let e = "x=http://127.0.0.1:1/,header-env=Authorization:AGUI_PROXY_TEST_SURELY_UNSET"
        .parse::<super::spec::ProxySpec>()
        .expect_err("refused")
        .to_string();
    assert!(e.contains("AGUI_PROXY_TEST_SURELY_UNSET"), "{e}");
}

/// A foreign state the reducer refuses (past the limits) ends our run with `STATE_LIMIT`, not
/// with a protocol error.
#[test]
fn a_refused_foreign_state_ends_the_run_with_state_limit() {
    let agent = ProxyAgent::new("f=http://127.0.0.1:1/agent".parse().unwrap()).unwrap();
    let mut pipeline = Pipeline::new(PipelineOptions::default());
    let snapshot =
        serde_json::json!({"type": "STATE_SNAPSHOT", "snapshot": {"s": "x".repeat(5 << 20)}});
    pipeline.push_bytes(
        format!("data: {{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n\ndata: {snapshot}\n\n")
            .as_bytes(),
    );
    match agent.check(&pipeline, &Relay::default()) {
        Err(AgentError::Failed { code, message }) => {
            assert_eq!(code.as_str(), "STATE_LIMIT");
            assert!(
                message.contains("too large (over 4194304 bytes)"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}
