//! Thread edits over real sockets: rename, delete (409 while a run is in progress), feedback on
//! messages, search, regenerating the last answer, cutting a thread before an edited message —
//! each with its owner check (another user's thread is 404) and its hostile inputs.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use agui_studio::server::accounts::users_line;
use common::{request, start_server, wait_until, HttpResponse};
use serde_json::{json, Value};

fn input(thread: &str, run: &str, messages: Value) -> Value {
    json!({"threadId": thread, "runId": run, "messages": messages})
}

fn user(id: &str, text: &str) -> Value {
    json!({"id": id, "role": "user", "content": text})
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> HttpResponse {
    let body = body.map(|b| b.to_string());
    request(addr, method, path, &[], body.as_deref().map(str::as_bytes)).await
}

/// Run the demo agent on `body` to the end.
async fn run(addr: SocketAddr, body: &Value) {
    let r = call(addr, "POST", "/api/agents/demo", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("RUN_FINISHED"), "{}", r.body);
}

async fn thread(addr: SocketAddr, id: &str) -> Value {
    let r = call(addr, "GET", &format!("/api/threads/{id}"), None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

fn ids(thread: &Value) -> Vec<String> {
    thread["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

async fn titles(addr: SocketAddr, query: &str) -> Vec<String> {
    let r = call(addr, "GET", &format!("/api/threads{query}"), None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_string())
        .collect()
}

async fn server() -> SocketAddr {
    start_server(&["--demo-delay-ms", "0"]).await.0
}

#[tokio::test]
async fn a_thread_is_renamed_and_an_empty_title_gives_the_automatic_one_back() {
    let addr = server().await;
    run(
        addr,
        &input("t1", "r1", json!([user("u1", "chat about rivers")])),
    )
    .await;
    assert_eq!(thread(addr, "t1").await["title"], "chat about rivers");
    let r = call(
        addr,
        "PATCH",
        "/api/threads/t1",
        Some(&json!({"title": "  Rivers \n and  lakes "})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["title"], "Rivers and lakes");
    assert_eq!(thread(addr, "t1").await["title"], "Rivers and lakes");
    assert_eq!(titles(addr, "").await, vec!["Rivers and lakes"]);
    // A later run keeps the user's title.
    run(addr, &input("t1", "r2", json!([user("u2", "chat more")]))).await;
    assert_eq!(titles(addr, "").await, vec!["Rivers and lakes"]);
    let r = call(
        addr,
        "PATCH",
        "/api/threads/t1",
        Some(&json!({"title": "   "})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(thread(addr, "t1").await["title"], "chat about rivers");
}

#[tokio::test]
async fn hostile_renames_are_refused_and_change_nothing() {
    let addr = server().await;
    run(addr, &input("t1", "r1", json!([user("u1", "chat")]))).await;
    let huge = "x".repeat(201);
    let cases: Vec<(Option<String>, u16, &str)> = vec![
        (Some(json!({"title": huge}).to_string()), 413, "too_large"),
        (
            Some(json!({"title": "é".repeat(100_000)}).to_string()),
            413,
            "too_large",
        ),
        (Some("{\"title\": ".into()), 400, "invalid_json"),
        (
            Some(json!({"title": 5}).to_string()),
            422,
            "invalid_request",
        ),
        (
            Some(json!({"title": "a", "extra": 1}).to_string()),
            422,
            "invalid_request",
        ),
        (Some("[]".into()), 422, "invalid_request"),
        (None, 400, "invalid_json"),
    ];
    for (body, status, code) in cases {
        let r = request(
            addr,
            "PATCH",
            "/api/threads/t1",
            &[],
            body.as_deref().map(str::as_bytes),
        )
        .await;
        assert_eq!(r.status, status, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], code, "{}", r.body);
    }
    // The guards of every other write: JSON only, same origin only.
    let body = json!({"title": "x"}).to_string();
    let r = request(
        addr,
        "PATCH",
        "/api/threads/t1",
        &[("Content-Type", "text/plain")],
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(r.status, 415, "{}", r.body);
    let r = request(
        addr,
        "PATCH",
        "/api/threads/t1",
        &[("Origin", "https://evil.example")],
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = request(
        addr,
        "DELETE",
        "/api/threads/t1",
        &[("Origin", "https://evil.example")],
        None,
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = request(
        addr,
        "PUT",
        "/api/threads/t1/feedback",
        &[("Origin", "https://evil.example")],
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = call(
        addr,
        "PATCH",
        "/api/threads/nope",
        Some(&json!({"title": "x"})),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(thread(addr, "t1").await["title"], "chat");
}

#[tokio::test]
async fn a_deleted_thread_is_gone_with_its_runs_and_events() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
    run(addr, &input("t1", "r1", json!([user("u1", "chat one")]))).await;
    run(addr, &input("t2", "r2", json!([user("u2", "chat two")]))).await;
    let r = call(addr, "DELETE", "/api/threads/t1", None).await;
    assert_eq!(r.status, 204, "{}", r.body);
    assert_eq!(call(addr, "GET", "/api/threads/t1", None).await.status, 404);
    assert_eq!(call(addr, "GET", "/api/runs/r1", None).await.status, 404);
    assert_eq!(
        call(addr, "GET", "/api/runs/r1/events", None).await.status,
        404
    );
    assert_eq!(titles(addr, "").await, vec!["chat two"]);
    assert!(!state.runs.thread_ids().contains(&"t1".to_string()));
    let store = state.runs.store().unwrap();
    assert!(store.events_after("r1", 0, 10).await.unwrap().is_empty());
    assert_eq!(
        call(addr, "DELETE", "/api/threads/t1", None).await.status,
        404
    );
    // The id may be used again: a new thread, without the old one's history.
    run(addr, &input("t1", "r3", json!([user("u3", "chat anew")]))).await;
    assert_eq!(ids(&thread(addr, "t1").await)[0], "u3");
}

#[tokio::test]
async fn a_thread_with_a_run_in_progress_is_not_deleted_or_cut() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
    let body = input("t1", "r1", json!([user("u1", "approval")]));
    let mut sse = common::open_sse(addr, "POST", "/api/agents/demo", Some(&body.to_string())).await;
    wait_until(Duration::from_secs(5), "the agent waits", || {
        !state.runs.pending_waits().is_empty()
    })
    .await;
    let r = call(addr, "DELETE", "/api/threads/t1", None).await;
    assert_eq!(r.status, 409, "{}", r.body);
    let r = call(
        addr,
        "POST",
        "/api/threads/t1/truncate",
        Some(&json!({"fromMessageId": "u1"})),
    )
    .await;
    assert_eq!(r.status, 409, "{}", r.body);
    let call_id = state.runs.pending_waits()[0].0.clone();
    let (s, _) = common::post_json(
        addr,
        "/api/ag-ui/tool-result",
        &json!({"toolCallId": call_id, "approved": true}),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(sse.read_run().await.last().unwrap()["type"], "RUN_FINISHED");
    wait_until(Duration::from_secs(5), "the run ends", || {
        state.runs.active_count() == 0
    })
    .await;
    // Nothing was lost meanwhile.
    assert!(
        thread(addr, "t1").await["messages"]
            .as_array()
            .unwrap()
            .len()
            > 1
    );
    assert_eq!(
        call(addr, "DELETE", "/api/threads/t1", None).await.status,
        204
    );
}

#[tokio::test]
async fn feedback_is_stored_with_the_thread_one_per_message() {
    let addr = server().await;
    run(addr, &input("t1", "r1", json!([user("u1", "chat")]))).await;
    let answer = ids(&thread(addr, "t1").await)[1].clone();
    let put = |body: Value| async move {
        call(addr, "PUT", "/api/threads/t1/feedback", Some(&body)).await
    };
    let r = put(json!({"messageId": answer, "rating": "up"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        thread(addr, "t1").await["feedback"],
        json!({answer.clone(): "up"})
    );
    put(json!({"messageId": answer, "rating": "down"})).await;
    assert_eq!(
        thread(addr, "t1").await["feedback"],
        json!({answer.clone(): "down"})
    );
    put(json!({"messageId": answer, "rating": null})).await;
    assert_eq!(thread(addr, "t1").await["feedback"], json!({}));
    // Only messages of the thread, only up or down, bounded ids.
    let r = put(json!({"messageId": "not-a-message", "rating": "up"})).await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = put(json!({"messageId": "x".repeat(100_000), "rating": "up"})).await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "invalid_id");
    let r = put(json!({"messageId": answer, "rating": "meh"})).await;
    assert_eq!(r.status, 422, "{}", r.body);
    // No rating is no rating.
    let r = put(json!({"messageId": answer})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = put(json!({"rating": "up"})).await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = call(
        addr,
        "PUT",
        "/api/threads/nope/feedback",
        Some(&json!({"messageId": answer, "rating": "up"})),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(thread(addr, "t1").await["feedback"], json!({}));
}

#[tokio::test]
async fn search_finds_titles_literally_and_is_bounded() {
    let addr = server().await;
    run(
        addr,
        &input("t1", "r1", json!([user("u1", "chat Alpha river")])),
    )
    .await;
    run(
        addr,
        &input("t2", "r2", json!([user("u2", "chat beta 100%_done")])),
    )
    .await;
    run(addr, &input("t3", "r3", json!([user("u3", "chat gamma")]))).await;
    assert_eq!(titles(addr, "?q=alpha").await, vec!["chat Alpha river"]);
    assert_eq!(titles(addr, "?q=%25_").await, vec!["chat beta 100%_done"]);
    assert_eq!(titles(addr, "?q=_").await, vec!["chat beta 100%_done"]);
    assert_eq!(titles(addr, "?q=chat").await.len(), 3);
    assert_eq!(titles(addr, "?q=").await.len(), 3);
    assert!(titles(addr, "?q=zzz").await.is_empty());
    call(
        addr,
        "PATCH",
        "/api/threads/t3",
        Some(&json!({"title": "Delta"})),
    )
    .await;
    assert_eq!(titles(addr, "?q=delt").await, vec!["Delta"]);
    let r = call(
        addr,
        "GET",
        &format!("/api/threads?q={}", "a".repeat(201)),
        None,
    )
    .await;
    assert_eq!(r.status, 413, "{}", r.body);
    let r = call(
        addr,
        "GET",
        &format!("/api/threads?q={}", "a".repeat(20_000)),
        None,
    )
    .await;
    assert!(
        r.status == 413 || r.status == 431 || r.status == 414,
        "{}",
        r.status
    );
}

#[tokio::test]
async fn a_run_with_exactly_the_last_runs_messages_regenerates_its_answer() {
    let addr = server().await;
    run(addr, &input("t1", "r1", json!([user("u1", "chat")]))).await;
    let first = ids(&thread(addr, "t1").await);
    assert_eq!(first.len(), 2);
    let answer = first[1].clone();
    call(
        addr,
        "PUT",
        "/api/threads/t1/feedback",
        Some(&json!({"messageId": answer, "rating": "up"})),
    )
    .await;
    run(addr, &input("t1", "r2", json!([user("u1", "chat")]))).await;
    let view = thread(addr, "t1").await;
    let now = ids(&view);
    assert_eq!(now.len(), 2, "the old answer was replaced: {now:?}");
    assert_eq!(now[0], "u1");
    assert_ne!(now[1], answer);
    assert_eq!(view["feedback"], json!({}));
    // A run with new messages still only adds.
    let mut all: Vec<Value> = view["messages"].as_array().unwrap().clone();
    all.push(user("u2", "chat again"));
    run(addr, &input("t1", "r3", Value::Array(all))).await;
    assert_eq!(ids(&thread(addr, "t1").await).len(), 4);
}

#[tokio::test]
async fn a_thread_cut_before_an_edited_message_continues_from_there() {
    let addr = server().await;
    run(addr, &input("t1", "r1", json!([user("u1", "chat one")]))).await;
    let mut all = thread(addr, "t1").await["messages"]
        .as_array()
        .unwrap()
        .clone();
    all.push(user("u2", "chat two"));
    run(addr, &input("t1", "r2", Value::Array(all))).await;
    let before = thread(addr, "t1").await;
    let kept: Vec<Value> = before["messages"].as_array().unwrap()[..2].to_vec();
    let a2 = ids(&before)[3].clone();
    call(
        addr,
        "PUT",
        "/api/threads/t1/feedback",
        Some(&json!({"messageId": a2, "rating": "down"})),
    )
    .await;
    let r = call(
        addr,
        "POST",
        "/api/threads/t1/truncate",
        Some(&json!({"fromMessageId": "u2"})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ids(&r.json()), ids(&json!({"messages": kept.clone()})));
    let view = thread(addr, "t1").await;
    assert_eq!(ids(&view), vec!["u1".to_string(), ids(&before)[1].clone()]);
    assert_eq!(view["feedback"], json!({}));
    let listed = call(addr, "GET", "/api/threads", None).await.json();
    assert_eq!(listed["threads"][0]["messageCount"], 2);
    // The edited message, sent with what was kept: the thread is what the client sees.
    let mut sent = kept.clone();
    sent.push(user("u2b", "chat two, edited"));
    run(addr, &input("t1", "r3", Value::Array(sent))).await;
    let after = ids(&thread(addr, "t1").await);
    assert_eq!(after.len(), 4);
    assert_eq!(after[2], "u2b");
    // Hostile or unknown cut points.
    let r = call(
        addr,
        "POST",
        "/api/threads/t1/truncate",
        Some(&json!({"fromMessageId": "nope"})),
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = call(
        addr,
        "POST",
        "/api/threads/t1/truncate",
        Some(&json!({"fromMessageId": "x".repeat(10_000)})),
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = request(
        addr,
        "POST",
        "/api/threads/t1/truncate",
        &[],
        Some(b"{oops"),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(ids(&thread(addr, "t1").await).len(), 4);
}

const ALICE: &str = "alice-token-1";
const BOB: &str = "bob-token-2";

#[tokio::test]
async fn another_users_thread_is_not_found_by_any_edit() {
    let path = std::env::temp_dir().join(format!("agui-users-threads-{}.txt", std::process::id()));
    std::fs::write(
        &path,
        format!(
            "{}\n{}\n",
            users_line("alice", ALICE),
            users_line("bob", BOB)
        ),
    )
    .unwrap();
    let path = path.to_string_lossy().into_owned();
    let (addr, _) = start_server(&["--users", &path, "--demo-delay-ms", "0"]).await;
    let as_ = |token: &'static str,
               method: &'static str,
               path: &'static str,
               body: Option<Value>| async move {
        let auth = format!("Bearer {token}");
        let body = body.map(|b| b.to_string());
        request(
            addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.as_deref().map(str::as_bytes),
        )
        .await
    };
    let r = as_(
        ALICE,
        "POST",
        "/api/agents/demo",
        Some(input("ta", "ra", json!([user("u1", "chat secret")]))),
    )
    .await;
    assert_eq!(r.status, 200);
    for (method, path, body) in [
        (
            "PATCH",
            "/api/threads/ta",
            Some(json!({"title": "mine now"})),
        ),
        ("DELETE", "/api/threads/ta", None),
        (
            "PUT",
            "/api/threads/ta/feedback",
            Some(json!({"messageId": "u1", "rating": "up"})),
        ),
        (
            "POST",
            "/api/threads/ta/truncate",
            Some(json!({"fromMessageId": "u1"})),
        ),
    ] {
        let r = as_(BOB, method, path, body).await;
        assert_eq!(r.status, 404, "{method} {path}: {}", r.body);
    }
    let r = as_(BOB, "GET", "/api/threads?q=secret", None).await;
    assert_eq!(r.json()["threads"], json!([]));
    let r = as_(ALICE, "GET", "/api/threads/ta", None).await;
    let view = r.json();
    assert_eq!(view["title"], "chat secret");
    assert_eq!(view["feedback"], json!({}));
    assert_eq!(view["messages"].as_array().unwrap().len(), 2);
    let r = as_(ALICE, "GET", "/api/threads?q=secret", None).await;
    assert_eq!(r.json()["threads"].as_array().unwrap().len(), 1);
}
