//! Tests of the `mcp_app` scenario, the built-in app's bridge messages and the proxied MCP
//! requests, hostile ones included.

use serde_json::{json, Value};

use super::super::super::testing::{
    assert_clean, input_for, run_input, run_scenario, settings, types,
};
use super::super::tests::{activities, the_call};
use super::{
    proxied_result, roll, APP_MIME, DICE_HTML, DICE_TOOL, DICE_URI, MCP_APPS_ACTIVITY, SERVER_HASH,
    SERVER_ID,
};
use crate::protocol::pipeline::StreamOutcome;
use crate::protocol::types::RunAgentInput;
use crate::wire::RunErrorCode;

#[tokio::test]
async fn mcp_app_calls_a_tool_then_links_its_view() {
    let (events, p) = run_scenario("mcp_app", |_| {}).await;
    assert_clean("mcp_app", &events, &p);
    let t = types(&events);
    let at = |ty: &str| t.iter().position(|x| *x == ty).unwrap();
    assert!(at("TOOL_CALL_END") < at("TOOL_CALL_RESULT"));
    assert!(at("TOOL_CALL_RESULT") < at("ACTIVITY_SNAPSHOT"));
    let (call, args) = the_call(&p);
    assert_eq!(call.function.name, DICE_TOOL);
    let acts = activities(&p);
    assert_eq!(acts.len(), 1);
    assert_eq!(acts[0].activity_type, MCP_APPS_ACTIVITY);
    let c = Value::Object(acts[0].content.clone());
    assert_eq!(c["resourceUri"], DICE_URI);
    assert_eq!(c["serverHash"], SERVER_HASH);
    assert_eq!(c["serverId"], SERVER_ID);
    assert_eq!(c["toolInput"], args);
    let rolls = c["result"]["structuredContent"]["rolls"]
        .as_array()
        .unwrap();
    assert_eq!(rolls.len(), 3);
    assert!(rolls
        .iter()
        .all(|r| (1..=20).contains(&r.as_u64().unwrap())));
    assert_eq!(c["result"]["content"][0]["type"], "text");
}

/// A run carrying only `forwardedProps.__proxiedMCPRequest = request`, in a thread whose first
/// run showed the app (side runs are answered only there).
async fn proxied(
    request: Value,
) -> (
    Vec<crate::protocol::event::Event>,
    crate::protocol::pipeline::Pipeline,
) {
    let runs = crate::server::runs::Runs::new();
    let first = input_for("mcp_app");
    let thread = first.thread_id.clone();
    let (_, p) = run_input(&runs, first, settings()).await;
    assert_eq!(activities(&p).len(), 1, "the app is shown");
    let side_run = format!("{}-side", p.conversation.messages.len());
    let mut input = RunAgentInput::new(thread, format!("run-{side_run}-{}", rand_suffix()));
    input.forwarded_props = json!({"__proxiedMCPRequest": request});
    run_input(&runs, input, settings()).await
}

/// A suffix no other run of the process has.
fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[tokio::test]
async fn resources_read_is_answered_in_run_finished_alone() {
    for server in [
        json!({"serverHash": SERVER_HASH}),
        json!({"serverHash": "stale", "serverId": SERVER_ID}),
    ] {
        let mut req = json!({"method": "resources/read", "params": {"uri": DICE_URI}});
        req.as_object_mut()
            .unwrap()
            .extend(server.as_object().unwrap().clone());
        let (events, p) = proxied(req).await;
        assert_clean("resources/read", &events, &p);
        assert_eq!(types(&events), ["RUN_STARTED", "RUN_FINISHED"]);
        let result = &events[1].to_value()["result"];
        let content = &result["contents"][0];
        assert_eq!(content["uri"], DICE_URI);
        assert_eq!(content["mimeType"], APP_MIME);
        assert_eq!(content["text"], DICE_HTML);
        assert_eq!(
            content["_meta"]["ui"],
            json!({"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": true})
        );
    }
}

#[tokio::test]
async fn the_apps_tools_call_comes_back_the_same_way() {
    let req = json!({"serverId": SERVER_ID, "serverHash": SERVER_HASH, "method": "tools/call",
                     "params": {"name": DICE_TOOL, "arguments": {"sides": 6, "count": 4}}});
    let (events, p) = proxied(req).await;
    assert_clean("tools/call", &events, &p);
    let result = events[1].to_value()["result"].clone();
    assert_eq!(
        result["structuredContent"]["rolls"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Rolled 4d6: "));
}

/// A request naming a server whose app the thread does not show (an unknown one, none at all)
/// is refused before any run starts, as in a thread without the app.
#[tokio::test]
async fn a_request_naming_no_app_of_the_thread_is_refused_before_the_run() {
    let runs = crate::server::runs::Runs::new();
    for req in [
        json!({"serverHash": "0000", "method": "resources/read", "params": {"uri": DICE_URI}}),
        json!({"method": "resources/read", "params": {"uri": DICE_URI}}),
        json!({"serverHash": SERVER_HASH, "method": "resources/read", "params": {"uri": DICE_URI}}),
    ] {
        let mut input = input_for("chat");
        input.forwarded_props = json!({"__proxiedMCPRequest": req});
        let agent = std::sync::Arc::new(crate::server::agents::demo::DemoAgent);
        let refused = runs.start(agent, input, settings()).await.err();
        assert!(
            matches!(refused, Some(crate::server::error::ApiError::NotFound(_))),
            "{req}"
        );
    }
}

#[tokio::test]
async fn bad_proxied_requests_fail_the_run_with_a_clear_message() {
    let long = "ui://x/".to_string() + &"a".repeat(100_000);
    for (req, says) in [
        (
            json!({"serverHash": SERVER_HASH, "method": "resources/read", "params": {"uri": "ui://agui-studio/nope"}}),
            "no resource 'ui://agui-studio/nope'",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "resources/read", "params": {"uri": long}}),
            "no resource",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "resources/read", "params": {"uri": 7}}),
            "params.uri",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "resources/read"}),
            "params.uri",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "resources/read", "params": "ui://agui-studio/dice"}),
            "params must be an object",
        ),
        (
            json!({"serverHash": SERVER_HASH, "params": {"uri": DICE_URI}}),
            "method must be a string",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "tools/list"}),
            "not allowed",
        ),
        (
            json!({"serverHash": SERVER_HASH, "method": "tools/call", "params": {"name": "rm_rf"}}),
            "no tool 'rm_rf'",
        ),
        (json!("resources/read"), "must be an object"),
    ] {
        let (events, p) = proxied(req.clone()).await;
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{req}");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"], "{req}");
        let (message, code) = &p.run_errors[0];
        assert_eq!(code.as_deref(), Some(RunErrorCode::InvalidInput.as_str()));
        assert!(message.contains(says), "{req}: {message}");
        assert!(message.len() < 400, "bounded: {} bytes", message.len());
    }
}

#[test]
fn the_tool_reports_bad_arguments_as_its_own_error() {
    for args in [
        json!({"sides": 1}),
        json!({"count": 11}),
        json!({"sides": "six"}),
        json!([1]),
    ] {
        let r = roll(&args, 1);
        assert_eq!(r["isError"], true, "{args}");
    }
    assert_eq!(roll(&json!({}), 9), roll(&json!({}), 9), "deterministic");
    let r = roll(&json!({"sides": 100, "count": 10}), 42);
    assert_eq!(
        r["structuredContent"]["rolls"].as_array().unwrap().len(),
        10
    );
    assert!(proxied_result(&json!({}), 1).is_err());
}

/// The app speaks the bridge's method names exactly (SEP-1865, `@modelcontextprotocol/ext-apps`).
#[test]
fn the_built_in_app_speaks_the_mcp_apps_bridge() {
    for method in [
        "\"ui/initialize\"",
        "\"ui/notifications/initialized\"",
        "\"ui/notifications/tool-input\"",
        "\"ui/notifications/tool-result\"",
        "\"ui/notifications/size-changed\"",
        "\"ui/message\"",
        "\"tools/call\"",
        "\"ui/open-link\"",
        "\"2026-01-26\"",
        "event.source !== host",
    ] {
        assert!(DICE_HTML.contains(method), "{method}");
    }
    assert!(
        !DICE_HTML.contains("innerHTML"),
        "host values are shown as text only"
    );
}
