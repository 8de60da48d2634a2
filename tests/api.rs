//! The canonical AG-UI endpoint over a real loopback socket: every demo scenario read back
//! through our own client pipeline with no warning, the error statuses, cancellation by client
//! disconnect, and the three human-in-the-loop styles across runs.
#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::server::agents::demo::SCENARIOS;
use common::{open_sse, post_raw, start_server, wait_until};
use serde_json::{json, Value};

fn input(thread: &str, run: &str, text: &str, scenario: &str) -> Value {
    json!({
        "threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "forwardedProps": {"scenario": scenario},
        "tools": [{"name": "generate_task_steps", "description": "Let the user pick steps",
                   "parameters": {"type": "object"}}]
    })
}

/// POST a run and read its whole body through our client pipeline.
async fn run(addr: std::net::SocketAddr, body: &Value) -> (Vec<Value>, Pipeline) {
    let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    assert_eq!(sse.header("content-type"), Some("text/event-stream"));
    assert_eq!(sse.header("cache-control"), Some("no-cache"));
    assert_eq!(sse.header("x-accel-buffering"), Some("no"));
    let (events, p) = common::read_through_pipeline(&mut sse, body).await;
    (events, p)
}

#[tokio::test]
async fn every_scenario_reads_back_cleanly() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    for s in SCENARIOS.iter().filter(|s| s.name != "approval") {
        let text = if s.name == "long" { "long 500" } else { s.name };
        let (events, p) = run(
            addr,
            &input("t-all", &format!("r-{}", s.name), text, s.name),
        )
        .await;
        assert_eq!(
            p.outcome(),
            StreamOutcome::Completed,
            "{}: {:?}",
            s.name,
            p.error()
        );
        assert!(p.warnings.is_empty(), "{}: {:?}", s.name, p.warnings);
        assert_eq!(events[0]["type"], "RUN_STARTED");
        assert_eq!(events[0]["protocolVersion"], "1.1");
        let last = events.last().unwrap()["type"].as_str().unwrap().to_string();
        let want = if s.name == "error" {
            "RUN_ERROR"
        } else {
            "RUN_FINISHED"
        };
        assert_eq!(last, want, "{}", s.name);
        let terminals = events
            .iter()
            .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
            .count();
        assert_eq!(terminals, 1, "{}: exactly one terminal event", s.name);
    }
}

#[tokio::test]
async fn errors_before_the_stream_are_statuses_with_json() {
    let (addr, _) = start_server(&["--body-limit", "300"]).await;
    let cases = [
        ("/api/agents/demo", "{not json", 400, "invalid_json"),
        (
            "/api/agents/demo",
            r#"{"threadId": 1}"#,
            422,
            "invalid_request",
        ),
        ("/api/agents/demo", r#"[1,2]"#, 422, "invalid_request"),
        (
            "/api/agents/nobody",
            r#"{"threadId":"t","runId":"r","messages":[]}"#,
            404,
            "not_found",
        ),
    ];
    for (path, body, status, code) in cases {
        let (s, text) = post_raw(addr, path, body).await;
        assert_eq!(s, status, "{path} {body}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["error"]["code"], code, "{text}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    }
    let big =
        json!({"threadId": "t", "runId": "r", "messages": [], "state": {"pad": "x".repeat(400)}});
    let (s, text) = post_raw(addr, "/api/agents/demo", &big.to_string()).await;
    assert_eq!(s, 413, "{text}");

    let (addr, _) = start_server(&["--auth-token", "sesame"]).await;
    let (s, text) = post_raw(
        addr,
        "/api/agents/demo",
        r#"{"threadId":"t","runId":"r","messages":[]}"#,
    )
    .await;
    assert_eq!(s, 401, "{text}");
    let (s, _) = common::get(addr, "/healthz").await;
    assert_eq!(s, 200, "health stays open");
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_the_run() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
    let body = input("t-cut", "r-cut", "long 5000000", "long");
    let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&body.to_string())).await;
    for _ in 0..50 {
        sse.next_event().await.unwrap();
    }
    assert!(state.runs.is_active("r-cut"));
    drop(sse);
    wait_until(Duration::from_secs(5), "the run's task ended", || {
        state.runs.active_count() == 0
    })
    .await;
    let (_, conv) = state.runs.thread(Some("t-cut")).unwrap();
    assert!(
        matches!(
            conv.run,
            agui_studio::protocol::reduce::RunStatus::Finished {
                outcome: Some(agui_studio::protocol::RunOutcome::Cancelled),
                ..
            }
        ),
        "the run ended cancelled: {:?}",
        conv.run
    );
}

#[tokio::test]
async fn frontend_tool_then_tool_message_continues() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let first = input("t-hitl", "r1", "hitl", "hitl");
    let (_, p) = run(addr, &first).await;
    let pending = p.conversation.pending_tool_call_ids.clone();
    assert_eq!(
        pending.len(),
        1,
        "the run ends with one pending frontend tool call"
    );
    let mut messages = p.conversation.messages_json().as_array().unwrap().clone();
    messages.push(json!({"id": "tool-1", "role": "tool", "toolCallId": pending[0],
        "content": json!({"approved": true, "arguments": {"steps": [{"description": "Pack", "status": "enabled"}]}}).to_string()}));
    let second = json!({"threadId": "t-hitl", "runId": "r2", "messages": messages,
        "forwardedProps": {"scenario": "hitl"}});
    let (_, p) = run(addr, &second).await;
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    let last = p
        .conversation
        .messages
        .last()
        .unwrap()
        .text()
        .unwrap_or_default();
    assert!(
        last.contains("Pack"),
        "the agent continued from the tool message: {last}"
    );
}

#[tokio::test]
async fn interrupt_then_resume_approve_reject_and_edit() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    for (n, payload, expect) in [
        (1, json!({"approved": true}), "Done"),
        (2, json!({"approved": false}), "Rejected"),
        (
            3,
            json!({"approved": true, "editedArgs": {"paths": ["/tmp/demo/only.log"]}}),
            "only.log",
        ),
    ] {
        let thread = format!("t-int-{n}");
        // Run ids are unique across threads.
        let (_, p) = run(
            addr,
            &input(&thread, &format!("r1-{n}"), "interrupt", "interrupt"),
        )
        .await;
        let interrupts = p.conversation.pending_interrupts.clone();
        assert_eq!(interrupts.len(), 1);
        assert!(interrupts[0].response_schema.is_some());
        let second = json!({"threadId": thread, "runId": format!("r2-{n}"),
            "messages": p.conversation.messages_json(),
            "forwardedProps": {"scenario": "interrupt"},
            "resume": [{"interruptId": interrupts[0].id, "status": "resolved", "payload": payload}]});
        let (_, p) = run(addr, &second).await;
        assert_eq!(p.outcome(), StreamOutcome::Completed);
        let all: String = p
            .conversation
            .messages
            .iter()
            .filter_map(|m| m.text())
            .collect();
        assert!(all.contains(expect), "resume {n}: {all}");
    }
}

#[tokio::test]
async fn in_stream_approval_waits_for_tool_result() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
    let body = input("t-appr", "r-appr", "approval", "approval");
    let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&body.to_string())).await;
    wait_until(Duration::from_secs(5), "the agent waits", || {
        !state.runs.pending_waits().is_empty()
    })
    .await;
    let call = state.runs.pending_waits()[0].0.clone();
    let (s, text) = common::post_json(
        addr,
        "/api/ag-ui/tool-result",
        &json!({"toolCallId": call, "approved": true}),
    )
    .await;
    assert_eq!(s, 200, "{text}");
    let events = sse.read_run().await;
    assert!(events
        .iter()
        .any(|e| e["type"] == "TOOL_CALL_RESULT" && e["toolCallId"] == call));
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn approval_timeout_is_a_clear_run_error() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0", "--approval-timeout", "1"]).await;
    let (events, p) = run(addr, &input("t-to", "r-to", "approval", "approval")).await;
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR");
    assert_eq!(last["code"], "APPROVAL_TIMEOUT");
}

#[tokio::test]
async fn a_1_0_client_gets_a_1_0_stream() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let mut body = input("t-v10", "r-v10", "reasoning", "reasoning");
    body["protocolVersion"] = json!("1.0");
    let (events, _) = run(addr, &body).await;
    assert_eq!(events[0]["protocolVersion"], "1.0");
    assert!(events.iter().all(|e| e.get("encryptedValueType").is_none()));
}
