//! Bounds on what a server lists. Calls against a real server are in `tests/mcp.rs`.

use serde_json::json;

use super::*;

#[test]
fn definitions_are_named_and_bounded() {
    let (offered, name, def) = tool_definition(
        "everything",
        &json!({"name": "get-sum", "description": "Adds",
                "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                "properties": {"a": {"type": "number"}}}}),
    )
    .unwrap();
    assert_eq!(offered, "mcp__everything__get-sum");
    assert_eq!(name, "get-sum");
    assert_eq!(
        def,
        json!({"type": "function", "function": {"name": "mcp__everything__get-sum", "description": "Adds",
               "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}}})
    );
    // No schema: an empty object schema; a long description is cut.
    let (_, _, def) =
        tool_definition("s", &json!({"name": "t", "description": "d".repeat(5000)})).unwrap();
    assert_eq!(
        def["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        def["function"]["description"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        MAX_DESCRIPTION_CHARS + 1
    );
    for bad in [
        json!({"name": ""}),
        json!({"name": "a b"}),
        json!({"name": "ünïcode"}),
        json!({"name": "x".repeat(60)}),
        json!({"name": "big", "inputSchema": {"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES)}}),
        json!({}),
    ] {
        assert!(tool_definition("s", &bad).is_err(), "{bad}");
    }
}

#[test]
fn tools_per_server_are_capped_and_deduplicated() {
    let mut hub = McpHub {
        limits: McpLimits {
            max_tools: 3,
            ..McpLimits::default()
        },
        ..McpHub::default()
    };
    let tools = (0..10)
        .map(|i| json!({"name": format!("t{}", i % 2 + i / 4)}))
        .collect();
    // t0, t1, t0 (dup), t1 (dup), t1, t2, … : three distinct ones are offered.
    assert_eq!(hub.add_tools(0, "s", tools).0, 3);
    let names: Vec<_> = hub.tools().iter().map(|t| t.offered.as_str()).collect();
    assert_eq!(names, ["mcp__s__t0", "mcp__s__t1", "mcp__s__t2"]);
    assert!(hub.has("mcp__s__t2") && !hub.has("mcp__s__t3"));
}

#[test]
fn visibility_decides_who_may_call_a_tool() {
    let mut hub = McpHub::default();
    let tools = vec![
        json!({"name": "view", "_meta": {"ui": {"resourceUri": "ui://s/v"}}}),
        json!({"name": "app_only", "_meta": {"ui": {"visibility": ["app"]}}}),
        json!({"name": "model_only", "_meta": {"ui": {"visibility": ["model"], "resourceUri": "ui://s/m"}}}),
        json!({"name": "nobody", "_meta": {"ui": {"visibility": ["robots"]}}}),
    ];
    let (offered, apps) = hub.add_tools(0, "s", tools);
    assert_eq!(offered, 2);
    let names: Vec<_> = hub.tools().iter().map(|t| t.offered.as_str()).collect();
    assert_eq!(names, ["mcp__s__view", "mcp__s__model_only"]);
    assert!(apps.tools["view"].app && apps.tools["app_only"].app);
    assert!(!apps.tools["model_only"].app && !apps.tools.contains_key("nobody"));
    let mut uris: Vec<_> = apps.resources.iter().cloned().collect();
    uris.sort();
    assert_eq!(uris, ["ui://s/m", "ui://s/v"]);
}

#[test]
fn arguments_must_be_an_object() {
    assert!(parse_arguments("  ").unwrap().is_empty());
    assert_eq!(parse_arguments(r#"{"a":1}"#).unwrap()["a"], 1);
    assert!(parse_arguments("[1]").unwrap_err().contains("JSON object"));
    assert!(parse_arguments("{oops")
        .unwrap_err()
        .contains("not valid JSON"));
}

#[tokio::test]
async fn a_server_that_cannot_start_is_left_out() {
    let specs: Vec<McpSpec> = vec![
        "gone=stdio:/nonexistent/mcp-server".parse().unwrap(),
        // `true` exits at once: the handshake fails instead of hanging.
        "quits=stdio:true".parse().unwrap(),
    ];
    let started = std::time::Instant::now();
    let hub = McpHub::connect(
        &specs,
        McpLimits {
            connect_timeout: Duration::from_secs(5),
            ..McpLimits::default()
        },
    )
    .await;
    assert!(hub.tools().is_empty());
    assert_eq!(hub.server_ids().count(), 0);
    assert!(started.elapsed() < Duration::from_secs(6));
    let o = hub
        .call("mcp__gone__x", "{}", &CancellationToken::new())
        .await
        .unwrap();
    assert!(o.text.contains("there is no tool named"), "{}", o.text);
}
