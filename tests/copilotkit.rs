//! The CopilotKit runtime routes over real sockets (`/api/copilotkit`): discovery, runs
//! (downgraded to CopilotKit's AG-UI 0.0.48 unless the request declares a newer version),
//! `connect` restating a thread and joining its live run exactly, `stop`, and their errors.
//! The single-route mode is in `copilotkit_single.rs`.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use agui_studio::server::accounts::users_line;
use common::{open_sse, request, start_server, wait_until, HttpResponse, SseReader};
use serde_json::{json, Value};

const BASE: &str = "/api/copilotkit";

fn input(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread, "runId": run, "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
    })
}

/// What CopilotKit's client sends to `connect`: the thread, no messages.
fn connect_input(thread: &str) -> Value {
    json!({"threadId": thread, "runId": "c1", "state": {}, "messages": [], "tools": [],
           "context": [], "forwardedProps": {}})
}

async fn post(addr: SocketAddr, path: &str, body: Option<&Value>) -> HttpResponse {
    let body = body.map(|b| b.to_string());
    request(addr, "POST", path, &[], body.as_deref().map(str::as_bytes)).await
}

async fn sse(addr: SocketAddr, path: &str, body: &Value) -> SseReader {
    let sse = open_sse(addr, "POST", path, Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    sse
}

async fn events_to_end(sse: &mut SseReader) -> Vec<Value> {
    let frames = sse.frames_to_end().await;
    frames.iter().map(|f| common::json_of(&f.data)).collect()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

async fn thread(addr: SocketAddr, id: &str) -> Value {
    let r = request(addr, "GET", &format!("/api/threads/{id}"), &[], None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

#[tokio::test]
async fn info_lists_the_agents_in_the_runtime_shape() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let r = request(addr, "GET", &format!("{BASE}/info"), &[], None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let info = r.json();
    assert_eq!(info["mode"], "sse");
    assert!(info["version"].is_string());
    let demo = &info["agents"]["demo"];
    assert_eq!(demo["name"], "demo");
    assert!(demo["description"].as_str().unwrap().contains("demo"));
    assert!(demo["className"].is_string());
}

#[tokio::test]
async fn a_run_streams_the_scenario_in_copilotkits_protocol_version() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "chat"),
    )
    .await;
    let events = events_to_end(&mut s).await;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    // 0.0.48 has no protocolVersion: it is not sent to CopilotKit's client.
    assert!(events[0].get("protocolVersion").is_none(), "{}", events[0]);
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert!(!text.is_empty());
    assert_eq!(thread(addr, "t1").await["runs"][0]["status"], "finished");

    // Subagent events are 1.0: dropped for CopilotKit, kept for a client declaring 1.1.
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t2", "r2", "subagents"),
    )
    .await;
    let old = events_to_end(&mut s).await;
    assert!(
        !types(&old).iter().any(|t| t.starts_with("SUBAGENT_")),
        "{:?}",
        types(&old)
    );
    let mut newer = input("t3", "r3", "subagents");
    newer["protocolVersion"] = "1.1".into();
    let mut s = sse(addr, &format!("{BASE}/agent/demo/run"), &newer).await;
    let new = events_to_end(&mut s).await;
    assert!(
        types(&new).contains(&"SUBAGENT_STARTED"),
        "{:?}",
        types(&new)
    );
}

#[tokio::test]
async fn connect_to_a_thread_there_is_none_of_is_an_empty_stream() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/connect"),
        &connect_input("nope"),
    )
    .await;
    assert!(events_to_end(&mut s).await.is_empty());
}

#[tokio::test]
async fn connect_restates_a_finished_thread_as_snapshots_inside_one_run() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "chat"),
    )
    .await;
    events_to_end(&mut s).await;
    let mut body = connect_input("t1");
    body["lastSeenEventId"] = "17".into();
    let mut s = sse(addr, &format!("{BASE}/agent/demo/connect"), &body).await;
    let events = events_to_end(&mut s).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(events[0]["threadId"], "t1");
    assert_eq!(events[0]["runId"], events[3]["runId"]);
    let messages = events[1]["messages"].as_array().unwrap();
    let stored = thread(addr, "t1").await;
    assert_eq!(messages, stored["messages"].as_array().unwrap());
    assert_eq!(messages[0]["content"], "chat");
    assert_eq!(messages[1]["role"], "assistant");
}

/// A client connecting while a run streams gets the thread up to a point, then exactly the
/// events after it: the restated text plus the live deltas make the final text, and the open
/// message is started again before its next delta (CopilotKit's client verifies that).
#[tokio::test]
async fn connect_joins_a_live_run_without_gap_or_overlap() {
    let (addr, _) = start_server(&["--demo-delay-ms", "5"]).await;
    let mut run = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "long 3000"),
    )
    .await;
    // Into the message, so the join falls inside it.
    let mut seen = 0;
    while seen < 200 {
        let e = run.next_event().await.unwrap();
        seen += usize::from(e["type"] == "TEXT_MESSAGE_CONTENT");
    }
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/connect"),
        &connect_input("t1"),
    )
    .await;
    let events = events_to_end(&mut s).await;
    let t = types(&events);
    assert_eq!(
        &t[..3],
        ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT"]
    );
    assert_eq!(events[0]["runId"], "r1");
    assert_eq!(*t.last().unwrap(), "RUN_FINISHED");
    assert_eq!(events.last().unwrap()["runId"], "r1");
    assert_eq!(t.iter().filter(|t| **t == "RUN_STARTED").count(), 1);
    let snapshot = events[1]["messages"].as_array().unwrap();
    let assistant = snapshot.iter().find(|m| m["role"] == "assistant").unwrap();
    let id = assistant["id"].as_str().unwrap();
    let mut text = assistant["content"].as_str().unwrap_or("").to_string();
    let mut started = false;
    for e in &events[3..] {
        match e["type"].as_str().unwrap() {
            "TEXT_MESSAGE_START" if e["messageId"] == id => started = true,
            "TEXT_MESSAGE_CONTENT" | "TEXT_MESSAGE_END" if e["messageId"] == id => {
                assert!(started, "a delta of {id} before its start");
                if let Some(d) = e["delta"].as_str() {
                    text.push_str(d);
                }
            }
            _ => {}
        }
    }
    let expected: String = (0..3000).map(|i| format!("{i} ")).collect();
    assert_eq!(text, expected);
    events_to_end(&mut run).await;
}

#[tokio::test]
async fn stop_cancels_the_threads_run_and_its_stream_ends_finished() {
    let (addr, _) = start_server(&["--demo-delay-ms", "5"]).await;
    let mut run = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "long 20000"),
    )
    .await;
    run.next_event().await.unwrap();
    // CopilotKit's client sends the stop with a JSON content type and no body.
    let r = request(
        addr,
        "POST",
        &format!("{BASE}/agent/demo/stop/t1"),
        &[("Content-Type", "application/json")],
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["stopped"], true);
    let rest = tokio::time::timeout(Duration::from_secs(10), events_to_end(&mut run))
        .await
        .expect("the stream ends after stop");
    let last = rest.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED");
    // 0.0.48 knows no `cancelled` outcome.
    assert!(last.get("outcome").is_none(), "{last}");
    let mut status = Value::Null;
    for _ in 0..100 {
        status = thread(addr, "t1").await["runs"][0]["status"].clone();
        if status == "cancelled" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, "cancelled");
    let r = post(addr, &format!("{BASE}/agent/demo/stop/t1"), None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["stopped"], false);
    assert!(r.json()["message"].as_str().unwrap().contains("t1"));
}

/// A `connect` that follows a live run holds one of the user's observer slots while it lives:
/// past `--max-observers-per-user` it is refused with 429 and a JSON body, and a slot comes back
/// when its client goes.
#[tokio::test]
async fn connect_streams_count_against_the_users_observer_limit() {
    let (addr, _) = start_server(&["--demo-delay-ms", "5", "--max-observers-per-user", "2"]).await;
    let mut run = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "long 20000"),
    )
    .await;
    run.next_event().await.unwrap();
    let path = format!("{BASE}/agent/demo/connect");
    let mut first = sse(addr, &path, &connect_input("t1")).await;
    first.next_event().await.unwrap();
    let observer = open_sse(addr, "GET", "/api/ag-ui/stream", None).await;
    assert_eq!(observer.status(), 200);
    let refused = post(addr, &path, Some(&connect_input("t1"))).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.json()["error"]["code"], "too_many_observers");
    drop(first);
    let mut again = None;
    for _ in 0..100 {
        let s = open_sse(addr, "POST", &path, Some(&connect_input("t1").to_string())).await;
        if s.status() == 200 {
            again = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut again = again.expect("the slot came back when the first client went");
    again.next_event().await.unwrap();
    drop((again, observer, run));
}

#[tokio::test]
async fn a_run_outlives_its_client_and_connect_finds_it() {
    let (addr, state) = start_server(&["--demo-delay-ms", "5"]).await;
    let run = sse(
        addr,
        &format!("{BASE}/agent/demo/run"),
        &input("t1", "r1", "long 1000"),
    )
    .await;
    drop(run);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        state.runs.is_active("r1"),
        "the run was cancelled with its client"
    );
    let mut s = sse(
        addr,
        &format!("{BASE}/agent/demo/connect"),
        &connect_input("t1"),
    )
    .await;
    let events = events_to_end(&mut s).await;
    assert_eq!(events[0]["runId"], "r1");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    wait_until(Duration::from_secs(5), "the run ended", || {
        !state.runs.is_active("r1")
    })
    .await;
}

#[tokio::test]
async fn bad_requests_are_refused_before_any_stream() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0", "--body-limit", "4096"]).await;
    let body = input("t1", "r1", "chat");
    for path in ["run", "connect"] {
        let r = post(addr, &format!("{BASE}/agent/nobody/{path}"), Some(&body)).await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], "not_found");
        let r = request(
            addr,
            "POST",
            &format!("{BASE}/agent/demo/{path}"),
            &[],
            Some(b"{not json"),
        )
        .await;
        assert_eq!(r.status, 400, "{}", r.body);
        let r = post(
            addr,
            &format!("{BASE}/agent/demo/{path}"),
            Some(&json!([1])),
        )
        .await;
        assert_eq!(r.status, 422, "{}", r.body);
        let big = input("t1", "r1", &"x".repeat(5000));
        let r = post(addr, &format!("{BASE}/agent/demo/{path}"), Some(&big)).await;
        assert_eq!(r.status, 413, "{}", r.body);
    }
    let r = post(addr, &format!("{BASE}/agent/nobody/stop/t1"), None).await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = post(addr, &format!("{BASE}/agent/demo/stop/a%20b"), None).await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "invalid_id");
    let long = "t".repeat(600);
    let r = post(
        addr,
        &format!("{BASE}/agent/demo/connect"),
        Some(&connect_input(&long)),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = request(addr, "GET", &format!("{BASE}/agent/demo/run"), &[], None).await;
    assert_eq!(r.status, 405);
}

const ALICE: &str = "alice-token-1";
const BOB: &str = "bob-token-2";

#[tokio::test]
async fn the_routes_need_a_user_and_keep_users_apart() {
    let path = std::env::temp_dir().join(format!("agui-users-ck-{}.txt", std::process::id()));
    let users = format!(
        "{}\n{}\n",
        users_line("alice", ALICE),
        users_line("bob", BOB)
    );
    std::fs::write(&path, users).unwrap();
    let path = path.to_string_lossy().into_owned();
    let (addr, _) = start_server(&["--users", &path, "--demo-delay-ms", "5"]).await;
    let r = request(addr, "GET", &format!("{BASE}/info"), &[], None).await;
    assert_eq!(r.status, 401);
    let r = post(
        addr,
        &format!("{BASE}/agent/demo/run"),
        Some(&input("t1", "r1", "chat")),
    )
    .await;
    assert_eq!(r.status, 401);
    let as_ = |token: &str| [("Authorization".to_string(), format!("Bearer {token}"))];
    let alice = as_(ALICE);
    let alice: Vec<(&str, &str)> = alice
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let bob = as_(BOB);
    let bob: Vec<(&str, &str)> = bob.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = request(addr, "GET", &format!("{BASE}/info"), &alice, None).await;
    assert_eq!(r.status, 200);
    // Alice's long run: Bob can neither see its thread nor stop it.
    let body = input("ta", "ra", "long 20000").to_string();
    let mut run = common::HttpConn::send(
        addr,
        "POST",
        &format!("{BASE}/agent/demo/run"),
        &alice,
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(run.status, 200);
    run.next_body_bytes().await.unwrap();
    let connect = connect_input("ta").to_string();
    let r = request(
        addr,
        "POST",
        &format!("{BASE}/agent/demo/connect"),
        &bob,
        Some(connect.as_bytes()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(!r.body.contains("data:"), "{}", r.body);
    let r = request(
        addr,
        "POST",
        &format!("{BASE}/agent/demo/stop/ta"),
        &bob,
        None,
    )
    .await;
    assert_eq!(r.json()["stopped"], false, "{}", r.body);
    let r = request(
        addr,
        "POST",
        &format!("{BASE}/agent/demo/stop/ta"),
        &alice,
        None,
    )
    .await;
    assert_eq!(r.json()["stopped"], true, "{}", r.body);
    let rest = tokio::time::timeout(Duration::from_secs(10), run.read_to_end())
        .await
        .expect("the stream ends after stop");
    assert!(rest.body.contains("RUN_FINISHED"), "{}", rest.body);
}
