//! The proxy to a foreign AG-UI agent, over real sockets: our server (`--proxy`) in front of a
//! real foreign agent written with the official Python SDK (`tests/foreign/agent.py`, run by
//! the venv `scripts/studio.sh setup` creates). Every response is read back through our own
//! client pipeline.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::protocol::reduce::RunStatus;
use common::{get, json_of, open_sse, start_printing_port, start_server, wait_until, PortProcess};
use serde_json::{json, Value};

fn python() -> PathBuf {
    let path = std::env::var_os("AGUI_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        path.exists(),
        "no Python for the foreign agent at {}: run `scripts/studio.sh setup` (it creates .venv/ \
         from tests/foreign/requirements.txt), or set AGUI_TEST_PYTHON",
        path.display()
    );
    path
}

/// Start `tests/foreign/agent.py`; it binds a free loopback port and prints it first.
fn start_foreign() -> PortProcess {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/foreign/agent.py");
    let mut cmd = Command::new(python());
    cmd.arg(script);
    start_printing_port(cmd, "the foreign agent")
}

fn input(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "state": {"mood": "curious"},
        "forwardedProps": {"from": "test"},
        "tools": [{"name": "confirm_booking", "description": "Ask the user to confirm",
                   "parameters": {"type": "object"}}]
    })
}

/// POST a run to one of our agents and read the whole response through our client pipeline.
async fn run(addr: SocketAddr, agent: &str, body: &Value) -> (Vec<Value>, Pipeline) {
    let mut sse = open_sse(
        addr,
        "POST",
        &format!("/api/agents/{agent}"),
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(sse.status(), 200, "{}", sse.raw);
    assert_eq!(sse.header("content-type"), Some("text/event-stream"));
    let (events, p) = common::read_through_pipeline(&mut sse, body).await;
    assert_eq!(p.error(), None, "our stream is valid: {events:#?}");
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{events:#?}");
    assert!(p.warnings.is_empty(), "warnings: {:?}", p.warnings);
    let terminals = events
        .iter()
        .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
        .count();
    assert_eq!(terminals, 1, "exactly one terminal event: {events:#?}");
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(events[0]["threadId"], body["threadId"]);
    assert_eq!(events[0]["runId"], body["runId"]);
    (events, p)
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// (role, text) of every message after the user's.
fn replies(p: &Pipeline) -> Vec<(String, String)> {
    p.conversation
        .messages
        .iter()
        .skip(1)
        .map(|m| (m.role().as_str().to_string(), m.text().unwrap_or_default()))
        .collect()
}

fn terminal(events: &[Value]) -> &Value {
    events.last().unwrap()
}

#[tokio::test]
async fn foreign_runs_stream_through_our_pipeline() {
    let py = start_foreign();
    let spec = format!("py=http://{}/", py.addr);
    let (addr, state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;

    let (events, p) = run(addr, "py", &input("t-text", "r-text", "text please")).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(terminal(&events)["threadId"], "t-text");
    assert_eq!(terminal(&events)["runId"], "r-text");
    assert_eq!(
        replies(&p),
        [(
            "assistant".to_string(),
            "Hello from Python! You said: text please".to_string()
        )]
    );
    // Persistence applies to foreign runs like to ours.
    let (_, stored) = state.runs.thread(Some("t-text")).expect("thread stored");
    assert_eq!(stored.messages, p.conversation.messages);
    let (status, thread) = get(addr, "/api/threads/t-text").await;
    assert_eq!(status, 200, "{thread}");
    assert_eq!(json_of(&thread)["messages"], p.conversation.messages_json());

    let (events, p) = run(addr, "py", &input("t-tools", "r-tools", "tools")).await;
    assert!(types(&events).contains(&"TOOL_CALL_RESULT"));
    let messages = p.conversation.messages_json();
    assert_eq!(
        messages[1]["toolCalls"][0]["function"]["name"],
        "get_weather"
    );
    assert_eq!(
        messages[1]["toolCalls"][0]["function"]["arguments"],
        r#"{"city": "Paris"}"#
    );
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["toolCallId"], "py-call-1");
    assert_eq!(messages[2]["content"], r#"{"temp": 21}"#);
    assert_eq!(messages[3]["content"], "It is 21 °C in Paris.");
    assert!(p.conversation.pending_tool_call_ids.is_empty());

    let (events, p) = run(addr, "py", &input("t-state", "r-state", "state")).await;
    assert_eq!(types(&events)[1..3], ["STATE_SNAPSHOT", "STATE_DELTA"]);
    assert_eq!(
        p.conversation.state,
        json!({"counter": 2, "items": ["a", "b"]})
    );

    let (events, p) = run(addr, "py", &input("t-reason", "r-reason", "reasoning")).await;
    assert_eq!(
        types(&events)[1..6],
        [
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END"
        ]
    );
    assert_eq!(
        replies(&p),
        [
            ("reasoning".into(), "Weighing the options…".into()),
            ("assistant".into(), "Option B.".into())
        ]
    );

    // The SDK's RUN_FINISHED names no pending calls; the proxy derives them from the stream.
    let (events, p) = run(addr, "py", &input("t-pend", "r-pend", "pending")).await;
    let fin = terminal(&events);
    assert_eq!(fin["type"], "RUN_FINISHED");
    assert_eq!(
        fin["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["py-front-1"]})
    );
    assert!(fin.get("result").is_none());
    assert_eq!(p.conversation.pending_tool_call_ids, ["py-front-1"]);
    assert_eq!(
        p.conversation.messages_json()[1]["toolCalls"][0]["function"]["name"],
        "confirm_booking",
        "the frontend tool the input offered"
    );

    let (events, p) = run(addr, "py", &input("t-res", "r-res", "result")).await;
    let fin = terminal(&events);
    assert_eq!(fin["result"], json!({"answer": 42}));
    assert_eq!(
        fin["usage"],
        json!([{"provider": "python", "model": "fake-1", "inputTokens": 5, "outputTokens": 7, "totalTokens": 12}])
    );
    assert_eq!(p.conversation.result, Some(json!({"answer": 42})));

    // Chunks are expanded before they are relayed.
    let (events, p) = run(addr, "py", &input("t-chunk", "r-chunk", "chunks")).await;
    assert!(!types(&events).contains(&"TEXT_MESSAGE_CHUNK"));
    assert_eq!(replies(&p), [("assistant".into(), "Chunked text.".into())]);

    // Retired THINKING_* events reach our clients as 1.1 reasoning.
    let (events, p) = run(addr, "py", &input("t-legacy", "r-legacy", "legacy")).await;
    assert!(!types(&events).iter().any(|t| t.starts_with("THINKING")));
    assert!(types(&events).contains(&"REASONING_START"));
    assert_eq!(
        replies(&p),
        [
            ("reasoning".into(), "Old-style thought.".into()),
            ("assistant".into(), "Done.".into())
        ]
    );

    // A foreign agent answering under a run id of its own is relayed under ours.
    let (events, p) = run(addr, "py", &input("t-ids", "r-ids", "other_ids")).await;
    assert_eq!(terminal(&events)["runId"], "r-ids");
    assert_eq!(replies(&p), [("assistant".into(), "Mine.".into())]);
    assert!(!events.iter().any(|e| e.to_string().contains("py-run")));
}

#[tokio::test]
async fn configured_headers_and_the_input_reach_the_foreign_agent() {
    let py = start_foreign();
    // Unique to this test: the environment is the whole process's.
    std::env::set_var("AGUI_TEST_PROXY_TOKEN", "s3cret-token");
    let spec = format!(
        "py=http://{}/echo,header=X-Team:blue,header-env=X-Test-Token:AGUI_TEST_PROXY_TOKEN",
        py.addr
    );
    let (addr, state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;
    let (_, p) = run(addr, "py", &input("t-echo", "r-echo", "hello")).await;
    let seen = json_of(&replies(&p)[0].1);
    assert_eq!(
        seen,
        json!({
            "x-test-token": "s3cret-token", "x-team": "blue",
            "accept": "text/event-stream", "content-type": "application/json",
            "threadId": "t-echo", "runId": "r-echo", "protocolVersion": "1.1",
            "messages": 1, "state": {"mood": "curious"}, "forwardedProps": {"from": "test"},
            "tools": ["confirm_booking"]
        })
    );
    let (_, list) = get(addr, "/api/agents").await;
    let list = json_of(&list);
    let info = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "py")
        .expect("the proxy is listed");
    let host = py.addr.to_string();
    assert!(
        info["description"].as_str().unwrap().contains(&host),
        "{info}"
    );
    assert!(
        !info.to_string().contains("s3cret"),
        "no header value is published"
    );
    assert_eq!(info["capabilities"]["transport"]["streaming"], true);
    drop(state);
}

/// Run a behaviour that must end in `RUN_ERROR` and return (events, code, message).
async fn failing(addr: SocketAddr, agent: &str, text: &str) -> (Vec<Value>, String, String) {
    let run_id = format!("r-{agent}-{}", text.replace(' ', "-"));
    let (events, p) = run(addr, agent, &input("t-fail", &run_id, text)).await;
    let end = terminal(&events);
    assert_eq!(end["type"], "RUN_ERROR", "{events:#?}");
    assert!(matches!(p.conversation.run, RunStatus::Error { .. }));
    (
        events.clone(),
        end["code"].as_str().unwrap_or_default().to_string(),
        end["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// `GET /api/runs/{id}` once the run is no longer stored as running (the store is written just
/// after the terminal event is sent); at most 5 s.
async fn stored_run(addr: SocketAddr, run_id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = get(addr, &format!("/api/runs/{run_id}")).await;
        assert_eq!(status, 200, "{body}");
        let run = json_of(&body);
        if run["run"]["status"] != "running" || Instant::now() > deadline {
            return run;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn broken_foreign_streams_end_in_a_clear_run_error() {
    let py = start_foreign();
    let (addr, _) = start_server(&[
        "--proxy",
        &format!("py=http://{}/", py.addr),
        "--proxy",
        &format!("down=http://{}/http_error", py.addr),
        "--proxy",
        &format!("json=http://{}/not_sse", py.addr),
        "--db",
        ":memory:",
    ])
    .await;

    let (events, code, message) = failing(addr, "py", "error").await;
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("PY_QUOTA", "the python agent failed: quota exceeded"),
        "the foreign code and message are kept"
    );
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "RUN_ERROR"
        ]
    );

    let (_, code, message) = failing(addr, "py", "error_nocode").await;
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("FOREIGN_RUN_ERROR", "something went wrong")
    );

    // RUN_ERROR after RUN_FINISHED is a legal late failure: it wins.
    let (events, code, _) = failing(addr, "py", "late_error").await;
    assert_eq!(code, "PY_LATE");
    assert!(types(&events).contains(&"TEXT_MESSAGE_END"));

    for (text, needle) in [
        ("broken", "py-ghost"),
        ("malformed", "invalid JSON"),
        ("after_terminal", "already finished"),
        ("second_run", "second run"),
    ] {
        let (_, code, message) = failing(addr, "py", text).await;
        assert_eq!(code, "FOREIGN_PROTOCOL_ERROR", "{text}: {message}");
        assert!(message.contains(needle), "{text}: {message}");
        assert!(message.contains(&py.addr.to_string()), "{text}: {message}");
    }

    // Consumer MUSTs: the boundary events carry the input's thread (a stream does not switch
    // threads) and matching run ids, and a run's interrupt ids are unique. Our client sees RUN_ERROR; the run is
    // stored as failed.
    for (text, needle) in [
        (
            "other_thread",
            "RUN_STARTED threadId 'py-thread' does not match the input's threadId 't-fail'",
        ),
        (
            "switch_thread",
            "RUN_FINISHED threadId 'py-thread' does not match the input's threadId",
        ),
        (
            "duplicate_interrupts",
            "interrupt id 'py-int' appears twice",
        ),
    ] {
        let (events, code, message) = failing(addr, "py", text).await;
        assert_eq!(code, "FOREIGN_PROTOCOL_ERROR", "{text}: {message}");
        assert!(message.contains(needle), "{text}: {message}");
        assert!(
            !events[..events.len() - 1]
                .iter()
                .any(|e| e.to_string().contains("py-thread")),
            "{text}: only the RUN_ERROR names the foreign thread"
        );
        let run = stored_run(addr, &format!("r-py-{text}")).await;
        assert_eq!(run["run"]["status"], "error", "{text}: {run}");
        assert!(
            run["run"]["error"].as_str().unwrap().contains(needle),
            "{run}"
        );
    }

    // The connection breaks inside the terminal event's JSON: truncated, not malformed.
    let (_, code, message) = failing(addr, "py", "cut_terminal").await;
    assert_eq!(code, "FOREIGN_STREAM_TRUNCATED", "{message}");
    let run = stored_run(addr, "r-py-cut_terminal").await;
    assert_eq!(run["run"]["status"], "error", "{run}");

    let (events, code, message) = failing(addr, "py", "truncated").await;
    assert_eq!(code, "FOREIGN_STREAM_TRUNCATED", "{message}");
    assert!(
        message.contains("without RUN_FINISHED or RUN_ERROR"),
        "{message}"
    );
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "RUN_ERROR"
        ],
        "what came before the cut is relayed"
    );

    let (_, code, message) = failing(addr, "py", "empty").await;
    assert_eq!(code, "FOREIGN_STREAM_TRUNCATED", "{message}");
    assert!(message.contains("without starting a run"), "{message}");

    let (_, code, message) = failing(addr, "down", "anything").await;
    assert_eq!(code, "FOREIGN_HTTP_ERROR", "{message}");
    assert!(message.contains("503"), "{message}");
    assert!(
        message.contains("database unavailable: connection pool exhausted"),
        "an excerpt of the body, on one line: {message}"
    );

    let (_, code, message) = failing(addr, "json", "anything").await;
    assert_eq!(code, "FOREIGN_NOT_SSE", "{message}");
    assert!(message.contains("application/json"), "{message}");
    assert!(message.contains("this is not a stream"), "{message}");
}

#[tokio::test]
async fn an_unreachable_foreign_agent_is_reported() {
    // A port that was free a moment ago: nothing listens there now.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let spec = format!("gone=http://127.0.0.1:{port}/agent?key=hidden");
    let (addr, _) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;
    let (_, code, message) = failing(addr, "gone", "hello").await;
    assert_eq!(code, "FOREIGN_UNREACHABLE", "{message}");
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(
        !message.contains("hidden"),
        "the URL's query is not shown: {message}"
    );
}

#[tokio::test]
async fn a_foreign_agent_that_keeps_the_connection_open_does_not_hold_the_run() {
    let py = start_foreign();
    let spec = format!("py=http://{}/linger", py.addr);
    let (addr, _) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;
    let started = Instant::now();
    let (events, _) = run(addr, "py", &input("t-linger", "r-linger", "hello")).await;
    let took = started.elapsed();
    assert_eq!(terminal(&events)["type"], "RUN_FINISHED");
    // The agent keeps the stream open for 10 s; the proxy waits one second after its end.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    eprintln!(
        "linger: run ended {} ms after the request",
        took.as_millis()
    );
}

#[tokio::test]
async fn a_client_that_disconnects_stops_the_foreign_request() {
    let py = start_foreign();
    let spec = format!("py=http://{}/slow", py.addr);
    let (addr, state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;
    let body = input("t-cut", "r-cut", "hello");
    let mut sse = open_sse(addr, "POST", "/api/agents/py", Some(&body.to_string())).await;
    let mut seen_events = Vec::new();
    while seen_events
        .iter()
        .filter(|e: &&Value| e["type"] == "TEXT_MESSAGE_CONTENT")
        .count()
        < 5
    {
        match sse.next_event().await {
            Some(e) => seen_events.push(e),
            None => panic!("the slow run ended early: {seen_events:#?}"),
        }
    }
    assert!(state.runs.is_active("r-cut"));
    let (_, seen) = get(py.addr, "/seen/r-cut").await;
    assert_eq!(json_of(&seen)["disconnected"], false);
    drop(sse);
    let dropped = Instant::now();
    wait_until(Duration::from_secs(5), "our run ended", || {
        state.runs.active_count() == 0
    })
    .await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, seen) = get(py.addr, "/seen/r-cut").await;
        let seen = json_of(&seen);
        if seen["disconnected"] == true {
            assert_eq!(seen["completed"], false);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the foreign agent never saw the proxy go away: {seen}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!(
        "cancellation: the foreign agent saw the disconnect {} ms after our client left",
        dropped.elapsed().as_millis()
    );
    let (_, conv) = state.runs.thread(Some("t-cut")).unwrap();
    assert!(
        matches!(
            conv.run,
            RunStatus::Finished {
                outcome: Some(agui_studio::protocol::RunOutcome::Cancelled),
                ..
            }
        ),
        "{:?}",
        conv.run
    );
}

#[tokio::test]
async fn an_abort_stops_a_silent_foreign_request() {
    let py = start_foreign();
    let spec = format!("py=http://{}/quiet", py.addr);
    let (addr, state) = start_server(&["--proxy", &spec, "--db", ":memory:"]).await;
    let body = input("t-quiet", "r-quiet", "hello");
    let mut sse = open_sse(addr, "POST", "/api/agents/py", Some(&body.to_string())).await;
    loop {
        let e = sse.next_event().await.expect("the run streams");
        if e["type"] == "TEXT_MESSAGE_CONTENT" {
            break;
        }
    }
    // The foreign agent is silent now: only the run's cancellation can end the wait.
    let aborted = Instant::now();
    let (status, text) =
        common::post_json(addr, "/api/ag-ui/abort", &json!({"runId": "r-quiet"})).await;
    assert_eq!(status, 200, "{text}");
    let rest = sse.read_run().await;
    let end = rest.last().unwrap();
    assert_eq!(end["type"], "RUN_FINISHED");
    assert_eq!(end["outcome"]["type"], "cancelled");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, seen) = get(py.addr, "/seen/r-quiet").await;
        if json_of(&seen)["disconnected"] == true {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the foreign agent never saw the proxy go away"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!(
        "abort: the foreign agent saw the disconnect {} ms after the abort",
        aborted.elapsed().as_millis()
    );
    wait_until(Duration::from_secs(5), "our run ended", || {
        state.runs.active_count() == 0
    })
    .await;
}
