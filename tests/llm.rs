//! The OpenAI-compatible LLM agent over real loopback sockets: a replay server plays recorded
//! Chat Completions streams (`tests/fixtures/openai/`) and records what the agent asks; every run
//! is read back through our own client pipeline, which must see a clean stream with exactly
//! one terminal event.
#![cfg(feature = "ssr")]

mod common;

use common::assistant_text;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::protocol::types::Message;
use common::{open_sse, start_server, wait_until};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

// ---------------------------------------------------------------------------------------------
// The replay server

/// How the replay server answers one request.
#[derive(Debug, Clone)]
enum Reply {
    /// A recorded SSE stream, one frame per HTTP chunk, properly ended.
    Sse(&'static str),
    /// The first `n` frames, then the socket is dropped mid-body (no terminating chunk).
    Cut(&'static str, usize),
    /// The first `n` frames, then a properly ended body: no `[DONE]`, no finish_reason.
    EndEarly(&'static str, usize),
    /// The first `n` frames, then silence until the client closes the connection.
    Hang(&'static str, usize),
    /// An error status with a recorded JSON body.
    Status(u16, &'static str),
}

/// One request the agent sent.
#[derive(Debug, Clone)]
struct Recorded {
    path: String,
    /// Header names lower-cased.
    headers: Vec<(String, String)>,
    body: Value,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Replay {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// When a `Hang` connection saw its client close.
    closed: mpsc::UnboundedReceiver<Instant>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Replay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Replay {
    /// Serve `script` in order, one reply per request; the last reply repeats.
    async fn start(script: Vec<Reply>) -> Replay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (closed_tx, closed) = mpsc::unbounded_channel();
        let recorded = requests.clone();
        let task = tokio::spawn(async move {
            let mut n = 0;
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = script[n.min(script.len() - 1)].clone();
                n += 1;
                let recorded = recorded.clone();
                let closed_tx = closed_tx.clone();
                tokio::spawn(async move {
                    serve(socket, reply, recorded, closed_tx).await;
                });
            }
        });
        Replay {
            addr,
            requests,
            closed,
            task,
        }
    }

    fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/openai/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The SSE frames of a recorded stream, each with its blank line.
fn frames(name: &str) -> Vec<String> {
    fixture(name)
        .split_inclusive("\n\n")
        .map(str::to_string)
        .collect()
}

async fn serve(
    mut socket: TcpStream,
    reply: Reply,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    closed: mpsc::UnboundedSender<Instant>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    recorded.lock().unwrap().push(request);
    let head = |status: &str, ctype: &str, chunked: bool| {
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\n{}connection: close\r\n\r\n",
            if chunked {
                "transfer-encoding: chunked\r\n"
            } else {
                ""
            }
        )
    };
    let chunk = |s: &str| format!("{:x}\r\n{s}\r\n", s.len());
    let stream_head = head("200 OK", "text/event-stream; charset=utf-8", true);
    match reply {
        Reply::Status(code, file) => {
            let body = fixture(file);
            let status = match code {
                200 => "200 OK",
                401 => "401 Unauthorized",
                404 => "404 Not Found",
                429 => "429 Too Many Requests",
                500 => "500 Internal Server Error",
                _ => unreachable!(),
            };
            let mut out = head(status, "application/json", false);
            out.insert_str(
                out.len() - 2,
                &format!("content-length: {}\r\n", body.len()),
            );
            out.push_str(&body);
            let _ = socket.write_all(out.as_bytes()).await;
        }
        Reply::Sse(file) => {
            let _ = socket.write_all(stream_head.as_bytes()).await;
            for f in frames(file) {
                if socket.write_all(chunk(&f).as_bytes()).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let _ = socket.write_all(b"0\r\n\r\n").await;
        }
        Reply::Cut(file, n) | Reply::EndEarly(file, n) | Reply::Hang(file, n) => {
            let _ = socket.write_all(stream_head.as_bytes()).await;
            for f in frames(file).iter().take(n) {
                let _ = socket.write_all(chunk(f).as_bytes()).await;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            match reply {
                Reply::EndEarly(..) => {
                    let _ = socket.write_all(b"0\r\n\r\n").await;
                }
                Reply::Hang(..) => {
                    // The client closing its end is what a model server sees when a user
                    // stops a run: a read returns EOF (or fails).
                    let mut buf = [0u8; 1024];
                    loop {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {}
                        }
                    }
                    let _ = closed.send(Instant::now());
                }
                _ => {}
            }
        }
    }
    let _ = socket.flush().await;
    // Dropping the socket closes it (for `Cut`, mid-body).
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 16 * 1024];
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split_whitespace().nth(1)?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    while body.len() < len {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    Some(Recorded {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

// ---------------------------------------------------------------------------------------------
// Runs

async fn start_app(llm_specs: &[String]) -> (SocketAddr, agui_studio::server::AppState) {
    // `start_server` gives every app an in-memory database.
    let mut args = Vec::new();
    for s in llm_specs {
        args.push("--llm");
        args.push(s);
    }
    start_server(&args).await
}

fn input(run: &str, messages: Value, tools: Value) -> Value {
    json!({"threadId": format!("t-{run}"), "runId": run, "messages": messages, "tools": tools})
}

fn ask(text: &str) -> Value {
    json!([{"id": "u1", "role": "user", "content": text}])
}

/// A whole run through our client pipeline, which must find nothing to warn about.
async fn run(addr: SocketAddr, agent: &str, body: &Value) -> (Vec<Value>, Pipeline) {
    let mut sse = open_sse(
        addr,
        "POST",
        &format!("/api/agents/{agent}"),
        Some(&body.to_string()),
    )
    .await;
    assert_eq!(sse.status(), 200);
    let (events, p) = common::read_through_pipeline(&mut sse, body).await;
    assert_eq!(p.outcome(), StreamOutcome::Completed, "{:?}", p.error());
    assert!(p.warnings.is_empty(), "warnings: {:?}", p.warnings);
    let terminals = events
        .iter()
        .filter(|e| matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")))
        .count();
    assert_eq!(terminals, 1, "exactly one terminal event: {events:#?}");
    assert!(matches!(
        events.last().unwrap()["type"].as_str(),
        Some("RUN_FINISHED" | "RUN_ERROR")
    ));
    (events, p)
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

fn of_type<'a>(events: &'a [Value], ty: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == ty).collect()
}

fn run_error(events: &[Value]) -> (String, String) {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{events:#?}");
    (
        last["code"].as_str().unwrap().to_string(),
        last["message"].as_str().unwrap().to_string(),
    )
}

// ---------------------------------------------------------------------------------------------
// Tests

#[tokio::test]
async fn plain_text_streams_with_usage_and_the_request_maps_every_role() {
    let replay = Replay::start(vec![Reply::Sse("openai_text.sse")]).await;
    let spec = format!(
        "gpt={},model=gpt-4o-mini,key=sk-test-123",
        replay.base_url()
    );
    let (addr, _) = start_app(&[spec]).await;
    let messages = json!([
        {"id": "s", "role": "system", "content": "Be brief."},
        {"id": "d", "role": "developer", "content": "Answer in English."},
        {"id": "u0", "role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
            {"type": "document", "source": {"type": "url", "value": "https://example.com/a.pdf", "mimeType": "application/pdf"}}
        ]},
        {"id": "r", "role": "reasoning", "content": "private thoughts"},
        {"id": "a1", "role": "assistant", "content": "A cat. Let me check the size.", "toolCalls": [
            {"id": "call_1", "type": "function", "function": {"name": "measure", "arguments": "{\"what\":\"cat\"}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": "call_1", "content": "{\"cm\":40}"},
        {"id": "act", "role": "activity", "activityType": "PROGRESS", "content": {"pct": 100}},
        {"id": "a2", "role": "assistant", "content": "It is 40 cm long."},
        {"id": "u1", "role": "user", "content": "And the answer to everything?"}
    ]);
    let mut body = input(
        "r-text",
        messages,
        json!([{"name": "measure", "description": "Measure a thing",
                "parameters": {"type": "object", "properties": {"what": {"type": "string"}}}}]),
    );
    body["context"] = json!([{"description": "user locale", "value": "en-GB"}]);
    let (events, p) = run(addr, "gpt", &body).await;

    assert_eq!(
        types(&events),
        [
            ["RUN_STARTED", "TEXT_MESSAGE_START"].as_slice(),
            &["TEXT_MESSAGE_CONTENT"; 13],
            &["TEXT_MESSAGE_END", "RUN_FINISHED"]
        ]
        .concat()
    );
    assert!(assistant_text(&p).ends_with("The answer is **42**.\n\nAnything else?"));
    let finished = events.last().unwrap();
    assert!(finished.get("outcome").is_none() || finished["outcome"]["type"] == "success");
    assert_eq!(
        finished["usage"],
        json!([{"provider": "openai-compatible", "model": "gpt-4o-mini-2024-07-18",
                "inputTokens": 231, "outputTokens": 14, "totalTokens": 245,
                "reasoningTokens": 0, "cachedInputTokens": 0}])
    );

    let reqs = replay.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test-123"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.body["model"], "gpt-4o-mini");
    assert_eq!(r.body["stream"], true);
    assert_eq!(r.body["stream_options"], json!({"include_usage": true}));
    let sent = r.body["messages"].as_array().unwrap();
    assert_eq!(sent.len(), 8, "{sent:#?}");
    assert_eq!(sent[0], json!({"role": "system", "content": "Be brief."}));
    assert_eq!(
        sent[1],
        json!({"role": "system", "content": "Answer in English."})
    );
    assert_eq!(
        sent[2],
        json!({"role": "system", "content": "Context provided by the application:\n- user locale: en-GB"})
    );
    assert_eq!(sent[3]["role"], "user");
    let parts = sent[3]["content"].as_array().unwrap();
    assert_eq!(
        parts[0],
        json!({"type": "text", "text": "What is in this picture?"})
    );
    assert_eq!(
        parts[1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
    );
    assert_eq!(parts[2]["type"], "text");
    assert!(parts[2]["text"]
        .as_str()
        .unwrap()
        .contains("application/pdf at https://example.com/a.pdf"));
    assert_eq!(
        sent[4],
        json!({"role": "assistant", "content": "A cat. Let me check the size.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "measure", "arguments": "{\"what\":\"cat\"}"}}]})
    );
    assert_eq!(
        sent[5],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"cm\":40}"})
    );
    assert_eq!(
        sent[6],
        json!({"role": "assistant", "content": "It is 40 cm long."})
    );
    assert_eq!(
        sent[7],
        json!({"role": "user", "content": "And the answer to everything?"})
    );
    // The frontend tool first, then the backend tools it does not shadow.
    let names: Vec<_> = r.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["type"], "function");
            t["function"]["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(names, ["measure", "calculate", "convert_units"]);
    assert_eq!(
        r.body["tools"][0]["function"]["parameters"]["properties"]["what"]["type"],
        "string"
    );
}

#[tokio::test]
async fn no_key_means_no_authorization_header_and_no_tools_when_none() {
    let replay = Replay::start(vec![Reply::Sse("openai_text.sse")]).await;
    let spec = format!("local={},tools=none", replay.base_url());
    let (addr, _) = start_app(&[spec]).await;
    let (events, _) = run(addr, "local", &input("r-nokey", ask("hi"), json!([]))).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let r = &replay.requests()[0];
    assert_eq!(r.header("authorization"), None);
    assert!(
        r.body.get("model").is_none(),
        "no model configured: none sent"
    );
    assert!(
        r.body.get("tools").is_none(),
        "no tools offered: {}",
        r.body
    );
}

#[tokio::test]
async fn parallel_frontend_tool_calls_end_the_run_pending() {
    let replay = Replay::start(vec![Reply::Sse("openai_parallel_tools.sse")]).await;
    let (addr, _) = start_app(&[format!("gpt={},model=gpt-4o-mini", replay.base_url())]).await;
    let tools = json!([
        {"name": "change_background", "description": "Change the page background",
         "parameters": {"type": "object", "properties": {"background": {"type": "string"}}}},
        {"name": "confirm_action", "description": "Ask the user to confirm",
         "parameters": {"type": "object", "properties": {"action": {"type": "string"}}}}
    ]);
    let (events, p) = run(
        addr,
        "gpt",
        &input("r-par", ask("Make it blue, after asking me"), tools),
    )
    .await;
    let starts = of_type(&events, "TOOL_CALL_START");
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0]["toolCallId"], "call_Xk3mPq8vT2rYw9sLd4nB7cFh");
    assert_eq!(starts[0]["toolCallName"], "change_background");
    assert_eq!(starts[1]["toolCallId"], "call_Rv6tHn1sWq4zKp7mJc2xLg9A");
    assert_eq!(starts[1]["toolCallName"], "confirm_action");
    assert_eq!(starts[0]["parentMessageId"], starts[1]["parentMessageId"]);
    assert!(of_type(&events, "TOOL_CALL_RESULT").is_empty());
    assert_eq!(of_type(&events, "TOOL_CALL_END").len(), 2);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(
        finished["outcome"],
        json!({"type": "success", "pendingToolCallIds": [
            "call_Xk3mPq8vT2rYw9sLd4nB7cFh", "call_Rv6tHn1sWq4zKp7mJc2xLg9A"]})
    );
    assert_eq!(finished["usage"][0]["totalTokens"], 370);
    // The calls, with their whole arguments, sit on one assistant message.
    let Some(Message::Assistant(a)) = p
        .conversation
        .messages
        .iter()
        .find(|m| matches!(m, Message::Assistant(_)))
    else {
        panic!("an assistant message");
    };
    assert_eq!(a.id, starts[0]["parentMessageId"].as_str().unwrap());
    let calls = a.tool_calls.as_ref().unwrap();
    let args: Vec<Value> = calls
        .iter()
        .map(|c| serde_json::from_str(&c.function.arguments).unwrap())
        .collect();
    assert_eq!(
        args,
        [
            json!({"background": "linear-gradient(90deg, #1e3c72, #2a5298)"}),
            json!({"action": "Repaint the page"})
        ]
    );
    assert_eq!(
        replay.requests().len(),
        1,
        "frontend tools are the app's to run"
    );
}

#[tokio::test]
async fn backend_tool_result_goes_back_to_the_model() {
    let replay = Replay::start(vec![
        Reply::Sse("ollama_backend_tool.sse"),
        Reply::Sse("ollama_tool_answer.sse"),
    ])
    .await;
    let (addr, _) = start_app(&[format!("ollama={},model=llama3.2", replay.base_url())]).await;
    let (events, p) = run(
        addr,
        "ollama",
        &input("r-calc", ask("What is 12 * 7?"), json!([])),
    )
    .await;
    let ty = types(&events);
    let result_at = ty.iter().position(|t| *t == "TOOL_CALL_RESULT").unwrap();
    assert!(ty[..result_at].contains(&"TOOL_CALL_END"));
    assert!(ty[result_at..].contains(&"TEXT_MESSAGE_START"));
    let result = of_type(&events, "TOOL_CALL_RESULT")[0];
    assert_eq!(result["toolCallId"], "call_w7l2k9qa");
    let content: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, json!({"expression": "12 * 7", "result": 84}));
    assert_eq!(assistant_text(&p), "12 × 7 is **84**.");
    let finished = events.last().unwrap();
    assert!(finished.get("outcome").is_none() || finished["outcome"] == json!({"type": "success"}));
    // Both rounds count.
    assert_eq!(
        finished["usage"],
        json!([{"provider": "openai-compatible", "model": "llama3.2",
                "inputTokens": 455, "outputTokens": 30, "totalTokens": 485}])
    );
    // The tool message is in the conversation the client keeps.
    assert!(p
        .conversation
        .messages
        .iter()
        .any(|m| matches!(m, Message::Tool(t) if t.tool_call_id == "call_w7l2k9qa")));

    let reqs = replay.requests();
    assert_eq!(reqs.len(), 2);
    let second = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(second.len(), 3, "{second:#?}");
    assert_eq!(
        second[0],
        json!({"role": "user", "content": "What is 12 * 7?"})
    );
    assert_eq!(
        second[1],
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_w7l2k9qa",
            "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"12 * 7\"}"}}]})
    );
    assert_eq!(
        second[2],
        json!({"role": "tool", "tool_call_id": "call_w7l2k9qa",
               "content": "{\"expression\":\"12 * 7\",\"result\":84}"})
    );
    assert_eq!(reqs[1].body["tools"], reqs[0].body["tools"]);
}

#[tokio::test]
async fn a_frontend_tool_shadows_the_backend_tool_of_the_same_name() {
    let replay = Replay::start(vec![Reply::Sse("ollama_backend_tool.sse")]).await;
    let (addr, _) = start_app(&[format!("ollama={},model=llama3.2", replay.base_url())]).await;
    let tools = json!([{"name": "calculate", "description": "The app's own calculator",
                        "parameters": {"type": "object"}}]);
    let (events, _) = run(addr, "ollama", &input("r-shadow", ask("12 * 7?"), tools)).await;
    assert!(of_type(&events, "TOOL_CALL_RESULT").is_empty());
    assert_eq!(
        events.last().unwrap()["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["call_w7l2k9qa"]})
    );
    let offered = replay.requests()[0].body["tools"].clone();
    let calculators: Vec<_> = offered
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["function"]["name"] == "calculate")
        .collect();
    assert_eq!(calculators.len(), 1);
    assert_eq!(
        calculators[0]["function"]["description"],
        "The app's own calculator"
    );
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_is_stopped() {
    let replay = Replay::start(vec![Reply::Sse("ollama_backend_tool.sse")]).await;
    let (addr, _) = start_app(&[format!("loop={}", replay.base_url())]).await;
    let (events, _) = run(addr, "loop", &input("r-loop", ask("again"), json!([]))).await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "LLM_TOO_MANY_ROUNDS");
    assert!(message.contains("8 rounds"), "{message}");
    assert_eq!(replay.requests().len(), 8);
    // The same call id each round: later rounds get ids of their own.
    let ids: std::collections::HashSet<_> = of_type(&events, "TOOL_CALL_START")
        .iter()
        .map(|e| e["toolCallId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 8);
}

#[tokio::test]
async fn reasoning_content_and_reasoning_become_reasoning_events() {
    for (file, model, thought, answer, reasoning_tokens) in [
        (
            "deepseek_reasoning_content.sse",
            "deepseek-reasoner",
            "Compare 9.9 and 9.11: 0.90 > 0.11.",
            "9.9 is larger.",
            Some(81),
        ),
        (
            "ollama_reasoning.sse",
            "qwen3:4b",
            "The user asks for a greeting.",
            "Hi there!",
            None,
        ),
    ] {
        let replay = Replay::start(vec![Reply::Sse(file)]).await;
        let (addr, _) = start_app(&[format!("r={},model={model}", replay.base_url())]).await;
        let (events, p) = run(addr, "r", &input("r-think", ask("Think first"), json!([]))).await;
        let ty = types(&events);
        let first_text = ty.iter().position(|t| *t == "TEXT_MESSAGE_START").unwrap();
        assert_eq!(
            &ty[1..4],
            [
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT"
            ],
            "{file}"
        );
        assert_eq!(
            &ty[first_text - 2..first_text],
            ["REASONING_MESSAGE_END", "REASONING_END"],
            "{file}: reasoning closes before the answer"
        );
        let streamed: String = of_type(&events, "REASONING_MESSAGE_CONTENT")
            .iter()
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(streamed, thought, "{file}");
        assert!(p
            .conversation
            .messages
            .iter()
            .any(|m| matches!(m, Message::Reasoning(r) if r.content == thought)));
        assert_eq!(assistant_text(&p), answer, "{file}");
        let usage = &events.last().unwrap()["usage"][0];
        assert_eq!(usage["model"], model);
        assert_eq!(
            usage["reasoningTokens"].as_u64(),
            reasoning_tokens,
            "{file}"
        );
    }
}

#[tokio::test]
async fn http_errors_are_run_errors_with_the_upstream_message() {
    for (status, file, code, says) in [
        (
            401,
            "error_401.json",
            "LLM_UNAUTHORIZED",
            "Incorrect API key provided",
        ),
        (
            429,
            "error_429.json",
            "LLM_RATE_LIMITED",
            "Rate limit reached for gpt-4o-mini",
        ),
        (
            500,
            "error_500.json",
            "LLM_HTTP_ERROR",
            "The server had an error while processing your request",
        ),
        (
            404,
            "ollama_error_404.json",
            "LLM_NOT_FOUND",
            "model \"llama9\" not found, try pulling it first",
        ),
    ] {
        let replay = Replay::start(vec![Reply::Status(status, file)]).await;
        let (addr, _) = start_app(&[format!("e={},key=sk-wrong", replay.base_url())]).await;
        let (events, p) = run(addr, "e", &input("r-err", ask("hi"), json!([]))).await;
        assert_eq!(types(&events), ["RUN_STARTED", "RUN_ERROR"], "{status}");
        let (got_code, message) = run_error(&events);
        assert_eq!(got_code, code, "{status}");
        assert!(message.contains(says), "{status}: {message}");
        assert!(message.contains(&status.to_string()), "{status}: {message}");
        assert!(
            !message.contains("sk-wrong"),
            "the key is not echoed: {message}"
        );
        assert_eq!(p.run_errors.len(), 1);
    }
}

#[tokio::test]
async fn connection_refused_is_unreachable() {
    // A port that was free a moment ago and has no listener now.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (addr, _) = start_app(&[format!("gone=http://127.0.0.1:{port}/v1")]).await;
    let started = Instant::now();
    let (events, _) = run(addr, "gone", &input("r-gone", ask("hi"), json!([]))).await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "LLM_UNREACHABLE");
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_stream_cut_mid_way_is_truncated_with_the_text_closed() {
    for (reply, what) in [
        (Reply::Cut("openai_text.sse", 5), "socket dropped mid-body"),
        (
            Reply::EndEarly("openai_text.sse", 5),
            "body ended without finish_reason or [DONE]",
        ),
    ] {
        let replay = Replay::start(vec![reply]).await;
        let (addr, _) = start_app(&[format!("cut={}", replay.base_url())]).await;
        let (events, p) = run(addr, "cut", &input("r-cut", ask("hi"), json!([]))).await;
        let ty = types(&events);
        assert_eq!(
            ty,
            [
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_ERROR"
            ],
            "{what}"
        );
        let (code, message) = run_error(&events);
        assert_eq!(code, "LLM_STREAM_TRUNCATED", "{what}: {message}");
        assert_eq!(assistant_text(&p), "Hello! The answer", "{what}");
    }
}

#[tokio::test]
async fn a_client_that_goes_away_closes_the_upstream_request() {
    let mut replay = Replay::start(vec![Reply::Hang("openai_text.sse", 4)]).await;
    let (addr, state) = start_app(&[format!("slow={}", replay.base_url())]).await;
    let body = input("r-away", ask("hi"), json!([]));
    let mut sse = open_sse(addr, "POST", "/api/agents/slow", Some(&body.to_string())).await;
    let mut contents = 0;
    while contents < 3 {
        let e = sse.next_event().await.expect("events before the pause");
        if e["type"] == "TEXT_MESSAGE_CONTENT" {
            contents += 1;
        }
    }
    assert!(state.runs.is_active("r-away"));
    let dropped = Instant::now();
    drop(sse);
    let closed = tokio::time::timeout(Duration::from_secs(1), replay.closed.recv())
        .await
        .expect("the model server saw its connection closed within a second")
        .unwrap();
    let latency = closed.duration_since(dropped);
    eprintln!("upstream connection closed {latency:?} after the client left");
    wait_until(Duration::from_secs(2), "the run ended", || {
        state.runs.active_count() == 0
    })
    .await;
}

#[tokio::test]
async fn abort_closes_the_upstream_request_and_finishes_cancelled() {
    let mut replay = Replay::start(vec![Reply::Hang("openai_text.sse", 4)]).await;
    let (addr, state) = start_app(&[format!("slow={}", replay.base_url())]).await;
    let body = input("r-abort", ask("hi"), json!([]));
    let mut sse = open_sse(addr, "POST", "/api/agents/slow", Some(&body.to_string())).await;
    let mut events = Vec::new();
    // All three deltas the server sends before it pauses: the agent now waits on the socket.
    while of_type(&events, "TEXT_MESSAGE_CONTENT").len() < 3 {
        events.push(sse.next_event().await.unwrap());
    }
    assert_eq!(state.runs.abort(Some("r-abort"), None), 1);
    tokio::time::timeout(Duration::from_secs(1), replay.closed.recv())
        .await
        .expect("the model server saw its connection closed within a second");
    events.extend(sse.read_run().await);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(finished["outcome"], json!({"type": "cancelled"}));
    assert!(
        types(&events).contains(&"TEXT_MESSAGE_END"),
        "the runtime closed the text"
    );
}

#[tokio::test]
async fn agents_list_describes_the_model() {
    let replay = Replay::start(vec![Reply::Sse("openai_text.sse")]).await;
    let (addr, _) = start_app(&[format!(
        "gpt={},model=gpt-4o-mini,key=sk-secret-key",
        replay.base_url()
    )])
    .await;
    let (status, body) = common::get(addr, "/api/agents").await;
    assert_eq!(status, 200);
    assert!(!body.contains("sk-secret-key"));
    let v: Value = serde_json::from_str(&body).unwrap();
    let agent = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "gpt")
        .expect("the llm agent is listed")
        .clone();
    assert_eq!(agent["name"], "LLM (gpt-4o-mini)");
    assert_eq!(agent["url"], "/api/agents/gpt");
    let description = agent["description"].as_str().unwrap();
    assert!(description.contains("gpt-4o-mini"), "{description}");
    assert!(
        description.contains(&replay.addr.to_string()),
        "{description}"
    );
    assert_eq!(agent["capabilities"]["tools"]["clientProvided"], true);
    assert_eq!(agent["capabilities"]["reasoning"]["streaming"], true);
    assert_eq!(agent["capabilities"]["multimodal"]["input"]["image"], true);
}

/// A bad `--llm` spec is refused by argument parsing (clap's `value_parser`), naming the flag
/// and the reason; the server never starts.
#[tokio::test]
async fn bad_specs_stop_the_server_at_startup() {
    use agui_studio::server::config::Cli;
    use clap::Parser;
    for (spec, says) in [
        (
            "x=http://127.0.0.1:1/v1,key-env=AGUI_TEST_SURELY_UNSET_VAR",
            "AGUI_TEST_SURELY_UNSET_VAR",
        ),
        (
            "x=http://127.0.0.1:1/v1,colour=blue",
            "unknown key 'colour'",
        ),
        ("x y=http://127.0.0.1:1/v1", "only ASCII letters"),
        ("x=file:///etc/passwd", "http:// or https://"),
    ] {
        let err = Cli::try_parse_from(["agui-studio", "--llm", spec])
            .expect_err(spec)
            .to_string();
        assert!(err.contains("--llm"), "{spec}: {err}");
        assert!(err.contains(says), "{spec}: {err}");
    }
}

#[tokio::test]
async fn a_server_that_answers_with_one_json_completion_still_works() {
    let replay = Replay::start(vec![Reply::Status(200, "llamacpp_non_streamed.json")]).await;
    let (addr, _) = start_app(&[format!("plain={}", replay.base_url())]).await;
    let (events, p) = run(addr, "plain", &input("r-json", ask("hi"), json!([]))).await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    assert_eq!(
        assistant_text(&p),
        "Hello from a server that does not stream."
    );
    assert_eq!(events.last().unwrap()["usage"][0]["totalTokens"], 19);
}
