//! The seed-000 surface over a real loopback socket: `POST /agent/chat/stream` and
//! `POST /agent/agent/stream` stream named SSE events that our own inbound pipeline reads back
//! as a complete run, and answer bad requests with the statuses the contract lists.
#![cfg(feature = "ssr")]

mod common;

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::protocol::sse::{Decoder, SseFrame};
use agui_studio::protocol::types::Message;
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use common::assistant_text;
use serde_json::{json, Value};

/// Start the app on 127.0.0.1 with a free port and extra flags; the task ends with the test
/// runtime.
async fn start(flags: &[&str]) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut args = vec!["agui-studio", "--demo-delay-ms", "0", "--db", ":memory:"];
    args.extend_from_slice(flags);
    let cli = Cli::parse_from(args);
    let state = AppState::new(&cli.serve).await.unwrap();
    tokio::spawn(async move { axum::serve(listener, app(state)).await.unwrap() });
    addr
}

struct Reply {
    status: u16,
    /// Header names lower-cased.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// The body's SSE frames.
    fn frames(&self) -> Vec<SseFrame> {
        let mut d = Decoder::new();
        let mut frames = d.push(&self.body).unwrap();
        frames.extend(d.finish().unwrap());
        frames
    }
}

/// POST a JSON body with extra `Name: value` headers (one connection, `Connection: close`),
/// the body read to its end.
async fn post(addr: std::net::SocketAddr, path: &str, body: &[u8], headers: &[&str]) -> Reply {
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|h| {
            let (k, v) = h.split_once(':').expect("a `Name: value` header");
            (k.trim(), v.trim())
        })
        .collect();
    let mut conn = common::HttpConn::send(addr, "POST", path, &headers, Some(body)).await;
    let mut bytes = Vec::new();
    while let Some(piece) = conn.next_body_bytes().await {
        bytes.extend_from_slice(&piece);
    }
    assert_eq!(conn.body_error, None, "the body ended early");
    Reply {
        status: conn.status,
        headers: conn.headers,
        body: bytes,
    }
}

async fn post_json(addr: std::net::SocketAddr, path: &str, body: Value) -> Reply {
    post(addr, path, body.to_string().as_bytes(), &[]).await
}

fn names(frames: &[SseFrame]) -> Vec<&str> {
    frames
        .iter()
        .map(|f| f.event.as_deref().unwrap_or(""))
        .collect()
}

fn data(frame: &SseFrame) -> Value {
    serde_json::from_str(&frame.data).unwrap()
}

/// The body read back by our inbound pipeline: it must be a complete run whose only warnings
/// are the dialect translation's notices.
fn read_back(reply: &Reply) -> Pipeline {
    let mut p = Pipeline::new(Default::default());
    p.push_bytes(&reply.body);
    p.finish();
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
    let unexpected: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| !w.starts_with("translated ") && !w.contains("`status` running"))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
    p
}

/// The assistant text of the canonical endpoint for the same user message.
async fn canonical_answer(addr: std::net::SocketAddr, text: &str) -> String {
    let input = json!({"threadId": "t-canon", "runId": "r-canon", "messages": [{"id": "u1", "role": "user", "content": text}]});
    let reply = post_json(addr, "/api/agents/demo", input).await;
    assert_eq!(reply.status, 200);
    assistant_text(&read_back(&reply))
}

/// A successful stream: `status start` first, `status complete` last, one thread id throughout;
/// returns the concatenated `message` contents.
fn check_stream(reply: &Reply, thread: Option<&str>) -> String {
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("text/event-stream")
    );
    let frames = reply.frames();
    assert!(frames.len() > 2, "{}", reply.text());
    assert!(
        frames.iter().all(|f| f.id.is_none()),
        "no ids in this dialect"
    );
    let first = data(&frames[0]);
    assert_eq!(frames[0].event.as_deref(), Some("status"));
    assert_eq!(first["type"], "start");
    let thread_id = first["thread_id"].as_str().unwrap().to_string();
    if let Some(t) = thread {
        assert_eq!(thread_id, t);
    }
    let last = frames.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("status"), "{}", reply.text());
    assert_eq!(
        data(last),
        json!({"type": "complete", "thread_id": thread_id})
    );
    assert!(frames
        .iter()
        .all(|f| data(f)["thread_id"] == thread_id.as_str()));
    frames
        .iter()
        .filter(|f| f.event.as_deref() == Some("message"))
        .map(|f| data(f)["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn chat_stream_with_a_string_message() {
    let addr = start(&[]).await;
    let body = json!({"messages": [{"role": "user", "content": "hello"}], "thread_id": "thread_1"});
    let reply = post_json(addr, "/agent/chat/stream", body).await;
    let text = check_stream(&reply, Some("thread_1"));
    assert!(!text.is_empty());
    assert_eq!(text, canonical_answer(addr, "hello").await);
    let p = read_back(&reply);
    assert_eq!(assistant_text(&p), text);
    assert_eq!(p.conversation.thread_id.as_deref(), Some("thread_1"));
}

#[tokio::test]
async fn chat_stream_accepts_content_blocks_and_options() {
    let addr = start(&[]).await;
    let body = json!({
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAE=", "mime_type": "image/png"},
                {"type": "image", "url": "https://example.com/cat.jpg"}
            ]}
        ],
        "agent_id": "demo",
        "model_id": "any-model",
        "enable_deep_thinking": true
    });
    let reply = post_json(addr, "/agent/chat/stream", body).await;
    let text = check_stream(&reply, None);
    assert!(!text.is_empty());
    read_back(&reply);
}

#[tokio::test]
async fn agent_stream_works_the_same() {
    let addr = start(&[]).await;
    let body = json!({"messages": [{"role": "user", "content": "hello"}]});
    let chat = post_json(addr, "/agent/chat/stream", body.clone()).await;
    let agent = post_json(addr, "/agent/agent/stream", body).await;
    let agent_text = check_stream(&agent, None);
    assert_eq!(agent_text, check_stream(&chat, None));
    assert!(!agent_text.is_empty());
    // Without a thread_id every request gets a thread of its own.
    assert_ne!(data(&agent.frames()[0]), data(&chat.frames()[0]));
    read_back(&agent);
}

#[tokio::test]
async fn backend_tool_streams_the_tool_call_lifecycle() {
    let addr = start(&[]).await;
    let body = json!({"messages": [{"role": "user", "content": "backend_tool 2 + 3"}]});
    let reply = post_json(addr, "/agent/chat/stream", body).await;
    check_stream(&reply, None);
    let frames = reply.frames();
    let names = names(&frames);
    let at = |n: &str| {
        names
            .iter()
            .position(|x| *x == n)
            .unwrap_or_else(|| panic!("no {n}: {names:?}"))
    };
    assert!(at("tool_call_start") < at("tool_call_args"));
    assert!(at("tool_call_args") < at("tool_call_end"));
    assert!(at("tool_call_end") < at("tool_result"));
    let start = data(&frames[at("tool_call_start")]);
    let result = data(&frames[at("tool_result")]);
    assert_eq!(result["toolCallId"], start["toolCallId"]);
    assert_eq!(result["role"], "tool");
    assert!(
        result["content"].as_str().unwrap().contains('5'),
        "{result}"
    );
    let p = read_back(&reply);
    assert!(p
        .conversation
        .messages
        .iter()
        .any(|m| matches!(m, Message::Tool(t) if start["toolCallId"] == t.tool_call_id.as_str())));
}

/// Every demo scenario that ends on its own (not `approval`, which waits for an answer) streams
/// something our inbound pipeline reads back as a complete run.
#[tokio::test]
async fn every_scenario_reads_back_as_a_complete_run() {
    let addr = start(&[]).await;
    let scenarios = [
        "chat",
        "backend_tool",
        "hitl",
        "interrupt",
        "agentic_ui",
        "tool_ui",
        "shared_state",
        "predictive_state",
        "reasoning",
        "activities",
        "subagents",
        "render_hints",
        "multimodal",
        "error",
        "full",
        "long 50",
    ];
    for scenario in scenarios {
        let body = json!({"messages": [{"role": "user", "content": scenario}]});
        let reply = post_json(addr, "/agent/agent/stream", body).await;
        assert_eq!(reply.status, 200, "{scenario}");
        let frames = reply.frames();
        let last = frames.last().unwrap();
        let last_data = data(last);
        if last.event.as_deref() == Some("error") {
            assert_eq!(scenario, "error", "{scenario}: {last_data}");
        } else {
            assert_eq!(last_data["type"], "complete", "{scenario}");
        }
        read_back(&reply);
    }
}

#[tokio::test]
async fn bad_requests_are_400_with_a_json_error() {
    let addr = start(&[]).await;
    for path in ["/agent/chat/stream", "/agent/agent/stream"] {
        let reply = post(addr, path, b"{not json", &[]).await;
        assert_eq!(reply.status, 400);
        assert_eq!(reply.json()["error"]["code"], "invalid_json");
        for (body, code) in [
            (json!({"thread_id": "t"}), "invalid_request"),
            (json!({"messages": []}), "invalid_request"),
            (
                json!({"messages": [{"role": "robot", "content": "x"}]}),
                "invalid_request",
            ),
            (
                json!({"messages": [{"role": "user", "content": "x"}], "agent_id": "nope"}),
                "unknown_agent",
            ),
        ] {
            let reply = post_json(addr, path, body.clone()).await;
            assert_eq!(reply.status, 400, "{body}: {}", reply.text());
            let err = reply.json();
            assert_eq!(err["error"]["code"], code, "{err}");
            assert!(err["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()));
        }
    }
}

#[tokio::test]
async fn body_over_the_limit_is_413() {
    let addr = start(&["--body-limit", "100"]).await;
    let long = "x".repeat(200);
    let body = json!({"messages": [{"role": "user", "content": long}]});
    let reply = post_json(addr, "/agent/chat/stream", body).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["code"], "payload_too_large");
}

#[tokio::test]
async fn bearer_token_is_required_when_configured() {
    let addr = start(&["--auth-token", "secret"]).await;
    let body = json!({"messages": [{"role": "user", "content": "hello"}]}).to_string();
    let reply = post(addr, "/agent/chat/stream", body.as_bytes(), &[]).await;
    assert_eq!(reply.status, 401);
    let wrong = ["Authorization: Bearer nope"];
    let reply = post(addr, "/agent/agent/stream", body.as_bytes(), &wrong).await;
    assert_eq!(reply.status, 401);
    let right = ["Authorization: Bearer secret"];
    let reply = post(addr, "/agent/chat/stream", body.as_bytes(), &right).await;
    check_stream(&reply, None);
}
