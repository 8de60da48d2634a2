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
    assert_eq!(
        terminals.len(),
        1,
        "exactly one terminal event: {events:#?}"
    );
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

/// `messages[at]` is an assistant message calling `tool` with `args`, answered by the tool message
/// right after it, and the assistant's text using the result follows.
fn assert_tool_turn(messages: &Value, at: usize, tool: &str, args: &str, city: &str) {
    let call = &messages[at];
    assert_eq!(call["role"], "assistant", "{messages:#}");
    assert_eq!(
        call["toolCalls"][0]["function"]["name"], tool,
        "{messages:#}"
    );
    assert_eq!(call["toolCalls"][0]["function"]["arguments"], args);
    let result = &messages[at + 1];
    assert_eq!(
        result["role"], "tool",
        "the result follows its call: {messages:#}"
    );
    assert_eq!(result["toolCallId"], call["toolCalls"][0]["id"]);
    assert_eq!(
        json_of(result["content"].as_str().unwrap()),
        json!({"temp": 21, "city": city})
    );
    let answer = &messages[at + 2];
    assert_eq!(answer["role"], "assistant", "{messages:#}");
    assert!(
        answer["content"].as_str().unwrap().contains(city),
        "{messages:#}"
    );
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
    assert_tool_turn(&messages, 1, "get_weather", r#"{"city": "Paris"}"#, "Paris");
    assert_eq!(messages.as_array().unwrap().len(), 4, "{messages:#}");
    assert_stored(addr, "lg-tools", &p).await;

    // A second run in the same thread: the history goes back in, the graph's ids come back.
    let mut history = messages.as_array().unwrap().clone();
    history.push(user("u3", "weather Oslo"));
    let body = input("lg-tools", "lg-r3", history);
    let (_, p) = run(addr, "lg", &body).await;
    let messages = p.conversation.messages_json();
    assert_tool_turn(&messages, 1, "get_weather", r#"{"city": "Paris"}"#, "Paris");
    assert_tool_turn(&messages, 5, "get_weather", r#"{"city": "Oslo"}"#, "Oslo");
    assert_eq!(messages.as_array().unwrap().len(), 8, "{messages:#}");
    // The graph numbers calls by the tool messages in its state: one per call, so the history
    // went back under the ids LangGraph knows (no tool message added to its state twice).
    assert_eq!(messages[5]["toolCalls"][0]["id"], "call-weather-2");
    assert_stored(addr, "lg-tools", &p).await;

    // An interrupt, then the run that resumes it.
    let body = input("lg-hitl", "lg-r4", vec![user("u4", "confirm the booking")]);
    let (events, p) = run(addr, "lg", &body).await;
    let fin = events.last().unwrap();
    assert_eq!(fin["outcome"]["type"], "interrupt", "{fin:#}");
    let interrupt = &fin["outcome"]["interrupts"][0];
    let mut resumed = input(
        "lg-hitl",
        "lg-r5",
        p.conversation.messages_json().as_array().unwrap().clone(),
    );
    resumed["resume"] =
        json!([{"interruptId": interrupt["id"], "status": "resolved", "payload": "yes"}]);
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
    let messages = p.conversation.messages_json();
    assert_tool_turn(&messages, 1, "get_weather", r#"{"city": "Oslo"}"#, "Oslo");
    assert_eq!(messages[1]["toolCalls"][0]["id"], "pyd-weather-1");
    assert_stored(addr, "pa-tools", &p).await;

    // The next run of the thread: the scripted model calls its tool under the same id again.
    let mut history = messages.as_array().unwrap().clone();
    history.push(user("u2b", "weather Rome"));
    let body = input("pa-tools", "pa-r2b", history);
    let (_, p) = run(addr, "pa", &body).await;
    let messages = p.conversation.messages_json();
    assert_tool_turn(&messages, 1, "get_weather", r#"{"city": "Oslo"}"#, "Oslo");
    assert_tool_turn(&messages, 5, "get_weather", r#"{"city": "Rome"}"#, "Rome");
    assert_eq!(
        messages[5]["toolCalls"][0]["id"], "pyd-weather-1-2",
        "the reused id is relayed under a fresh one"
    );
    assert_eq!(messages.as_array().unwrap().len(), 8, "{messages:#}");
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

/// Read a response body's frames, stopping after `cut` bytes (None: to the end). Frames are kept
/// only once complete, as any SSE client does.
async fn read_frames(conn: &mut HttpConn, cut: Option<usize>, into: &mut Vec<SseFrame>) {
    let mut decoder = Decoder::new();
    let mut read = 0;
    while let Some(chunk) = conn.next_body_bytes().await {
        let keep = cut.map_or(chunk.len(), |c| chunk.len().min(c - read));
        into.extend(decoder.push(&chunk[..keep]).unwrap());
        read += keep;
        if cut == Some(read) {
            return;
        }
    }
}

fn ended(frames: &[SseFrame]) -> bool {
    frames.last().is_some_and(|f| {
        f.data.starts_with(r#"{"type":"RUN_FINISHED""#)
            || f.data.starts_with(r#"{"type":"RUN_ERROR""#)
    })
}

/// A detached run of a framework agent, cut after `cut` bytes and resumed with `Last-Event-ID`
/// until its terminal event: the events are 1..=N without a gap or a duplicate, and the
/// conversation they build is the one stored and the one the agent meant.
async fn cut_and_resume(addr: SocketAddr, agent: &str, thread: &str, run: &str, cut: usize) {
    let body = input(
        thread,
        run,
        vec![user(&format!("u-{run}"), "slow 30 pieces")],
    );
    let mut conn = HttpConn::send(
        addr,
        "POST",
        &format!("/api/agents/{agent}"),
        &[("X-AGUI-Detach", "true")],
        Some(body.to_string().as_bytes()),
    )
    .await;
    assert_eq!(conn.status, 200);
    let mut frames = Vec::new();
    read_frames(&mut conn, Some(cut), &mut frames).await;
    drop(conn);
    assert!(!ended(&frames), "the cut came before the run ended");
    let mut resumes = 0;
    while !ended(&frames) {
        resumes += 1;
        assert!(resumes <= 20, "run {run} never ended");
        let last = frames
            .last()
            .and_then(|f| f.id.clone())
            .unwrap_or_else(|| "0".into());
        let mut conn = HttpConn::send(
            addr,
            "GET",
            &format!("/api/runs/{run}/events"),
            &[("Last-Event-ID", &last)],
            None,
        )
        .await;
        assert_eq!(conn.status, 200, "resume of {run} after {last}");
        // The first resume is cut again, mid-stream; the second reads to the end.
        let again = (resumes == 1).then_some(cut / 2 + 1);
        read_frames(&mut conn, again, &mut frames).await;
    }
    let ids: Vec<u64> = frames
        .iter()
        .map(|f| f.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        ids,
        (1..=ids.len() as u64).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let parsed: RunAgentInput = serde_json::from_value(body.clone()).unwrap();
    let mut p = Pipeline::for_input(&parsed, Default::default());
    for f in &frames {
        p.push_value(None, serde_json::from_str(&f.data).unwrap());
    }
    p.finish();
    assert_eq!(p.error(), None);
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let text = common::assistant_text(&p);
    let want: Vec<String> = (0..30).map(|i| format!("piece-{i}")).collect();
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        want,
        "every piece once, in order"
    );
    assert_stored(addr, thread, &p).await;
}

#[tokio::test]
async fn cut_framework_runs_resume_through_the_proxy() {
    let lg = start_agent("langgraph_agent.py");
    let pa = start_agent("pydantic_agent.py");
    let lg_spec = format!("lg=http://{}/agent", lg.addr);
    let pa_spec = format!("pa=http://{}/agent", pa.addr);
    let (addr, _state) =
        start_server(&["--proxy", &lg_spec, "--proxy", &pa_spec, "--db", ":memory:"]).await;
    // Cut inside the first frames (mid-frame included) and further on.
    for (i, cut) in [200, 1500].into_iter().enumerate() {
        cut_and_resume(
            addr,
            "lg",
            &format!("lg-cut-{i}"),
            &format!("lg-cut-r{i}"),
            cut,
        )
        .await;
        cut_and_resume(
            addr,
            "pa",
            &format!("pa-cut-{i}"),
            &format!("pa-cut-r{i}"),
            cut,
        )
        .await;
    }
}
