//! The CopilotKit runtime's single-route mode over real sockets: `POST /api/copilotkit` with
//! `{method, params, body}` — each method, and the envelopes it refuses (400 JSON).
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;

use common::{open_sse, request, start_server, HttpResponse};
use serde_json::{json, Value};

const BASE: &str = "/api/copilotkit";

fn input(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread, "runId": run, "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
    })
}

async fn call(addr: SocketAddr, envelope: &Value) -> HttpResponse {
    let body = envelope.to_string();
    request(addr, "POST", BASE, &[], Some(body.as_bytes())).await
}

async fn stream(addr: SocketAddr, envelope: &Value) -> Vec<Value> {
    let mut sse = open_sse(addr, "POST", BASE, Some(&envelope.to_string())).await;
    assert_eq!(sse.status(), 200);
    let frames = sse.frames_to_end().await;
    frames.iter().map(|f| common::json_of(&f.data)).collect()
}

#[tokio::test]
async fn every_method_answers_through_the_single_route() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let r = call(addr, &json!({"method": "info"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["agents"]["demo"]["name"], "demo");

    let run = json!({"method": "agent/run", "params": {"agentId": "demo"},
                     "body": input("t1", "r1", "chat")});
    let events = stream(addr, &run).await;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");

    let connect = json!({"method": "agent/connect", "params": {"agentId": "demo"},
                         "body": {"threadId": "t1", "runId": "c1", "messages": [], "state": {},
                                  "tools": [], "context": [], "forwardedProps": {}}});
    let events = stream(addr, &connect).await;
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ]
    );

    let stop = json!({"method": "agent/stop", "params": {"agentId": "demo", "threadId": "t1"}});
    let r = call(addr, &stop).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["stopped"], false);
}

#[tokio::test]
async fn bad_envelopes_are_400_json() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let bad = [
        json!({"method": "agent/fly"}),
        json!({"method": 7}),
        json!({"params": {"agentId": "demo"}}),
        json!({"method": "agent/run", "body": input("t1", "r1", "chat")}),
        json!({"method": "agent/run", "params": {"agentId": ""}, "body": input("t1", "r1", "x")}),
        json!({"method": "agent/run", "params": {"agentId": "demo"}}),
        json!({"method": "agent/connect", "params": {"agentId": "demo"}, "body": null}),
        json!({"method": "agent/stop", "params": {"agentId": "demo"}}),
        json!({"method": "transcribe", "body": {}}),
        json!(["info"]),
    ];
    for envelope in &bad {
        let r = call(addr, envelope).await;
        assert_eq!(r.status, 400, "{envelope}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], "invalid_request", "{envelope}");
    }
    // A long method name is not echoed whole.
    let r = call(addr, &json!({"method": "m".repeat(10_000)})).await;
    assert_eq!(r.status, 400);
    assert!(r.body.len() < 500, "{}", r.body.len());
    // Unknown agent, bad ids and bad bodies as on the REST routes.
    let r = call(
        addr,
        &json!({"method": "agent/run", "params": {"agentId": "nobody"}, "body": input("t", "r", "x")}),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = call(
        addr,
        &json!({"method": "agent/stop", "params": {"agentId": "demo", "threadId": "a/b"}}),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = call(
        addr,
        &json!({"method": "agent/run", "params": {"agentId": "demo"}, "body": {"threadId": 1}}),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = request(addr, "POST", BASE, &[], Some(b"{oops")).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let r = request(
        addr,
        "POST",
        BASE,
        &[("Content-Type", "text/plain")],
        Some(b"{\"method\":\"info\"}"),
    )
    .await;
    assert_eq!(r.status, 415, "{}", r.body);
}
