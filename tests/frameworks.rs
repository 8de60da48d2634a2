//! Real agent frameworks behind the proxy, over real sockets: a LangGraph graph served by
//! `ag-ui-langgraph` (`tests/foreign/langgraph_agent.py`) and a Pydantic AI agent served by its
//! AG-UI adapter (`tests/foreign/pydantic_agent.py`), both with fake models (no network, no key),
//! started on loopback by the tests and stopped by PID. Every response of ours is read back
//! through our own client pipeline: no warning, no error, exactly one terminal event; the thread
//! is stored; a run cut mid-stream resumes through `GET /api/runs/{id}/events`.
//!
//! The venv is the one `scripts/studio.sh setup` creates (`tests/foreign/requirements.txt` and
//! `requirements-frameworks.txt`); `AGUI_TEST_PYTHON` overrides it.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::protocol::sse::{Decoder, SseFrame};
use agui_studio::protocol::types::RunAgentInput;
use common::{get, json_of, open_sse, start_printing_port, start_server, HttpConn, PortProcess};
use serde_json::{json, Value};

fn python() -> PathBuf {
    let path = std::env::var_os("AGUI_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        path.exists(),
        "no Python for the framework agents at {}: run `scripts/studio.sh setup` (it installs \
         tests/foreign/requirements*.txt into .venv/), or set AGUI_TEST_PYTHON",
        path.display()
    );
    path
}

/// Start `tests/foreign/<script>`; it binds a free loopback port and prints it first.
fn start_agent(script: &str) -> PortProcess {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/foreign")
        .join(script);
    let mut cmd = Command::new(python());
    cmd.arg(path);
    start_printing_port(cmd, script)
}

fn input(thread: &str, run: &str, messages: Vec<Value>) -> Value {
    json!({
        "threadId": thread, "runId": run, "messages": messages,
        "state": {}, "context": [], "forwardedProps": {},
        "tools": [{"name": "confirm_booking", "description": "Ask the user to confirm a booking",
                   "parameters": {"type": "object",
                                  "properties": {"flight": {"type": "string"}}}}]
    })
}

fn user(id: &str, text: &str) -> Value {
    json!({"id": id, "role": "user", "content": text})
}

/// POST a run to one of our agents and read the whole response through our client pipeline:
/// a clean, completed run with exactly one terminal event under the ids we asked with.
async fn run(addr: SocketAddr, agent: &str, body: &Value) -> (Vec<Value>, Pipeline) {
    let mut sse = open_sse(
        addr,
        "POST",
        &format!("/api/agents/{agent}"),
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(sse.status(), 200, "{}", sse.raw);
    let (events, p) = common::read_through_pipeline(&mut sse, body).await;
    assert_eq!(p.error(), None, "our stream is valid: {events:#?}");
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{events:#?}");
    assert!(p.warnings.is_empty(), "warnings: {:?}", p.warnings);
    let terminals: Vec<&Value> = events
        .iter()
        .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
        .collect();
    assert_eq!(terminals.len(), 1, "exactly one terminal event: {events:#?}");
    assert_eq!(
        terminals[0]["type"], "RUN_FINISHED",
        "the run succeeded: {:#}",
        terminals[0]
    );
    for e in [&events[0], terminals[0]] {
        assert_eq!(e["threadId"], body["threadId"]);
        assert_eq!(e["runId"], body["runId"]);
    }
    (events, p)
}

/// (role, text) of every message after the input's.
fn replies(p: &Pipeline, input: &Value) -> Vec<(String, String)> {
    let skip = input["messages"].as_array().map_or(0, Vec::len);
    p.conversation
        .messages
        .iter()
        .skip(skip)
        .map(|m| (m.role().as_str().to_string(), m.text().unwrap_or_default()))
        .collect()
}

/// The thread as stored must be the conversation our client built.
async fn assert_stored(addr: SocketAddr, thread: &str, p: &Pipeline) {
    let (status, body) = get(addr, &format!("/api/threads/{thread}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(json_of(&body)["messages"], p.conversation.messages_json());
}

#[tokio::test]
async fn langgraph_text_tools_and_interrupts_through_the_proxy() {
    let lg = start_agent("langgraph_agent.py");
    let spec = format!("lg=http://{}/agent", lg.addr);
    let (addr, _state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;

    let body = input("lg-text", "lg-r1", vec![user("u1", "hello there")]);
    let (_, p) = run(addr, "lg", &body).await;
    assert_eq!(
        replies(&p, &body),
        [(
            "assistant".into(),
            "Hello from LangGraph! You said: hello there".into()
        )]
    );
    assert_stored(addr, "lg-text", &p).await;

    // A backend tool: LangGraph's ToolNode runs it, the model answers with its result.
    let body = input("lg-tools", "lg-r2", vec![user("u2", "weather Paris")]);
    let (_, p) = run(addr, "lg", &body).await;
    let messages = p.conversation.messages_json();
    eprintln!("{messages:#}");
    assert_stored(addr, "lg-tools", &p).await;

    // A second run in the same thread: the history goes back in, the graph's ids come back.
    let mut history = messages.as_array().unwrap().clone();
    history.push(user("u3", "weather Oslo"));
    let body = input("lg-tools", "lg-r3", history);
    let (_, p) = run(addr, "lg", &body).await;
    eprintln!("{:#}", p.conversation.messages_json());
    assert_stored(addr, "lg-tools", &p).await;

    // An interrupt, then the run that resumes it.
    let body = input("lg-hitl", "lg-r4", vec![user("u4", "confirm the booking")]);
    let (events, p) = run(addr, "lg", &body).await;
    let fin = events.last().unwrap();
    eprintln!("{fin:#}");
    assert_eq!(fin["outcome"]["type"], "interrupt", "{fin:#}");
    let interrupt = &fin["outcome"]["interrupts"][0];
    let mut resumed = input("lg-hitl", "lg-r5", p.conversation.messages_json().as_array().unwrap().clone());
    resumed["resume"] = json!([{"interruptId": interrupt["id"], "status": "resolved", "payload": "yes"}]);
    let (_, p) = run(addr, "lg", &resumed).await;
    assert_eq!(
        replies(&p, &resumed).last().unwrap(),
        &("assistant".into(), "Booking answered: yes".into())
    );
    assert_stored(addr, "lg-hitl", &p).await;
}

#[tokio::test]
async fn pydantic_ai_text_tools_and_pending_calls_through_the_proxy() {
    let pa = start_agent("pydantic_agent.py");
    let spec = format!("pa=http://{}/agent", pa.addr);
    let (addr, _state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;

    let body = input("pa-text", "pa-r1", vec![user("u1", "hello there")]);
    let (_, p) = run(addr, "pa", &body).await;
    assert_eq!(
        replies(&p, &body),
        [(
            "assistant".into(),
            "Hello from Pydantic AI! You said: hello there".into()
        )]
    );
    assert_stored(addr, "pa-text", &p).await;

    let body = input("pa-tools", "pa-r2", vec![user("u2", "weather Oslo")]);
    let (_, p) = run(addr, "pa", &body).await;
    eprintln!("{:#}", p.conversation.messages_json());
    assert_stored(addr, "pa-tools", &p).await;

    let body = input("pa-think", "pa-r3", vec![user("u3", "think hard")]);
    let (_, p) = run(addr, "pa", &body).await;
    assert_eq!(
        replies(&p, &body),
        [
            ("reasoning".into(), "Weighing the options…".into()),
            ("assistant".into(), "Option B.".into())
        ]
    );

    // The client's own tool: Pydantic AI defers it, the proxy names it pending.
    let body = input("pa-book", "pa-r4", vec![user("u4", "book it")]);
    let (events, p) = run(addr, "pa", &body).await;
    let fin = events.last().unwrap();
    assert_eq!(
        fin["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["pyd-book-1"]})
    );
    assert_eq!(p.conversation.pending_tool_call_ids, ["pyd-book-1"]);
    assert_stored(addr, "pa-book", &p).await;
}
