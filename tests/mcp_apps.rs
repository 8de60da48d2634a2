//! MCP Apps from real MCP servers: a server on the official Python SDK
//! (`tests/foreign/mcp_server.py`, streamable HTTP) whose `counter` tool links the view
//! `ui://py/counter`. The whole chain through the server's HTTP API, with a scripted
//! OpenAI-compatible model on loopback: the model calls the tool → the stream has the
//! `mcp-apps` activity → the view's HTML comes back from a proxied `resources/read` run → the
//! view's `tools/call` of the app-only tool `bump` reaches the Python server and its answer
//! comes back. Then what a view or a server must not get: another server's tools, a
//! model-only tool, a resource no tool links, a resource too large, one that never answers, too
//! many requests at once; and the bounds on the model's MCP calls (per round, bytes per run).
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use agui_studio::server::mcp::{AppError, McpHub, McpLimits, McpSpec};
use common::mcp::{everything_spec, start_py_server};
use common::model::{delta, model_server};
use futures::future::join_all;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// One model round calling `calls` (`(id, tool, arguments)`), then one answering `text`.
fn calls_then_text(calls: &[(&str, &str, Value)], text: &str) -> Vec<Vec<Value>> {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (id, name, args))| {
            json!({"index": i, "id": id, "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    vec![
        vec![
            delta(json!({"role": "assistant", "tool_calls": tool_calls}), None),
            delta(json!({}), Some("tool_calls")),
        ],
        vec![
            delta(json!({"role": "assistant", "content": text}), None),
            delta(json!({}), Some("stop")),
        ],
    ]
}

/// Run agent `gpt` with one user message; every event of the run.
async fn run(addr: SocketAddr, thread: &str, run: &str) -> Vec<Value> {
    let body = json!({"threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": "go"}], "tools": []});
    let mut sse = common::open_sse(addr, "POST", "/api/agents/gpt", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    let (events, p) = common::read_through_pipeline(&mut sse, &body).await;
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    events
}

/// A proxied MCP request as the studio's MCP Apps host sends it: its run's terminal event.
async fn proxied(addr: SocketAddr, request: Value) -> Value {
    let body = json!({"threadId": "t-app", "runId": format!("r-{}", rand_id()),
        "messages": [], "tools": [], "forwardedProps": {"__proxiedMCPRequest": request}});
    let mut sse = common::open_sse(addr, "POST", "/api/agents/gpt", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    let events = tokio::time::timeout(Duration::from_secs(20), sse.read_run())
        .await
        .expect("the proxied run ends within 20 s");
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.len(), 2, "only the run's boundaries: {events:#?}");
    events.last().unwrap().clone()
}

fn rand_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn refused(end: &Value, code: &str, says: &str) {
    assert_eq!(end["type"], "RUN_ERROR", "{end}");
    assert_eq!(end["code"], code, "{end}");
    let m = end["message"].as_str().unwrap_or("");
    assert!(m.contains(says), "wanted '{says}' in: {m}");
    assert!(m.len() < 600, "bounded: {} bytes", m.len());
}

#[tokio::test]
async fn an_mcp_app_of_a_python_sdk_server_end_to_end() {
    let py = start_py_server();
    let (model, seen) = model_server(calls_then_text(
        &[("call_c", "mcp__py__counter", json!({"start": 5}))],
        "Here is the counter.",
    ))
    .await;
    let llm = format!("gpt=http://{model}/v1,model=scripted,tools=none");
    let py_spec = format!("py=http://{}/mcp", py.addr);
    let everything = everything_spec();
    let (addr, _) =
        common::start_server(&["--llm", &llm, "--mcp", &py_spec, "--mcp", &everything]).await;

    let events = run(addr, "t-app", "r-app").await;
    assert_eq!(
        events.last().unwrap()["type"],
        "RUN_FINISHED",
        "{events:#?}"
    );
    let result = events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .unwrap();
    assert_eq!(result["content"], "The counter starts at 5.");
    let activity = events
        .iter()
        .find(|e| e["type"] == "ACTIVITY_SNAPSHOT")
        .expect("an mcp-apps activity");
    assert_eq!(activity["activityType"], "mcp-apps");
    let content = &activity["content"];
    assert_eq!(content["resourceUri"], "ui://py/counter");
    assert_eq!(content["serverId"], "py");
    assert_eq!(content["toolInput"], json!({"start": 5}));
    assert_eq!(
        content["result"]["content"][0]["text"],
        "The counter starts at 5."
    );
    let hash = content["serverHash"].as_str().unwrap().to_string();
    // The app-only tool is not offered to the model; the model-only one is.
    let offered: Vec<String> = seen.lock().unwrap()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    assert!(
        offered.contains(&"mcp__py__secret".to_string()),
        "{offered:?}"
    );
    assert!(!offered.iter().any(|n| n == "mcp__py__bump"), "{offered:?}");

    // The view's HTML, fetched as the studio does (by id, and by hash alone).
    for req in [
        json!({"serverId": "py", "serverHash": hash, "method": "resources/read", "params": {"uri": "ui://py/counter"}}),
        json!({"serverHash": hash, "method": "resources/read", "params": {"uri": "ui://py/counter"}}),
    ] {
        let end = proxied(addr, req).await;
        assert_eq!(end["type"], "RUN_FINISHED", "{end}");
        let c = &end["result"]["contents"][0];
        assert_eq!(c["mimeType"], "text/html;profile=mcp-app");
        let html = c["text"].as_str().unwrap();
        assert!(
            html.contains("method: \"tools/call\"") && html.contains("bump"),
            "{html}"
        );
    }
    // The view's own tool call reaches the Python server.
    let end = proxied(
        addr,
        json!({"serverId": "py", "method": "tools/call",
        "params": {"name": "bump", "arguments": {"n": 41}}}),
    )
    .await;
    assert_eq!(end["type"], "RUN_FINISHED", "{end}");
    assert_eq!(end["result"]["content"][0]["text"], "42", "{end}");
    assert_eq!(end["result"]["structuredContent"]["result"], 42, "{end}");
    assert_eq!(
        proxied(addr, json!({"serverId": "py", "method": "ping"})).await["result"],
        json!({})
    );

    // What a view may not do.
    let big_args = json!({"n": 1, "pad": "x".repeat(70_000)});
    for (req, says) in [
        (
            json!({"serverId": "py", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "x"}}}),
            "MCP server 'py' has no tool 'echo'",
        ),
        (
            json!({"serverId": "py", "method": "tools/call", "params": {"name": "mcp__everything__echo"}}),
            "has no tool",
        ),
        (
            json!({"serverId": "py", "method": "tools/call", "params": {"name": "secret"}}),
            "not visible to apps",
        ),
        (
            json!({"serverId": "py", "method": "resources/read", "params": {"uri": "file:///etc/hostname"}}),
            "no tool of MCP server 'py' links the resource",
        ),
        (
            json!({"serverId": "py", "method": "tools/list"}),
            "not allowed",
        ),
        (
            json!({"serverId": "py", "method": "tools/call", "params": {"name": "bump", "arguments": big_args}}),
            "at most 65536",
        ),
        (
            json!({"serverId": "py", "method": "tools/call", "params": {"name": "bump", "arguments": [1]}}),
            "must be an object",
        ),
        (json!("resources/read"), "must be an object"),
    ] {
        refused(&proxied(addr, req).await, "INVALID_INPUT", says);
    }
    // Servers whose app the thread does not show (a server without apps, an unknown one), and a
    // thread there is none of, are refused before a stream: 404 with a JSON body.
    for (thread, req) in [
        (
            "t-app",
            json!({"serverId": "everything", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "x"}}}),
        ),
        (
            "t-app",
            json!({"serverId": "everything", "method": "resources/read", "params": {"uri": "ui://py/counter"}}),
        ),
        ("t-app", json!({"serverId": "nobody", "method": "ping"})),
        ("t-other", json!({"serverId": "py", "method": "ping"})),
    ] {
        let body = json!({"threadId": thread, "runId": format!("r-{}", rand_id()),
            "messages": [], "tools": [], "forwardedProps": {"__proxiedMCPRequest": req}});
        let r = common::request(
            addr,
            "POST",
            "/api/agents/gpt",
            &[],
            Some(body.to_string().as_bytes()),
        )
        .await;
        assert_eq!(r.status, 404, "{req}: {}", r.body);
        let err: Value = serde_json::from_str(&r.body).expect("a JSON body");
        assert!(err.to_string().contains("no MCP App"), "{err}");
    }
    // The model was called twice, never for a proxied request.
    assert_eq!(seen.lock().unwrap().len(), 2);
}

async fn py_hub(py: &common::PortProcess, limits: McpLimits) -> McpHub {
    let spec: McpSpec = format!("py=http://{}/mcp", py.addr).parse().unwrap();
    McpHub::connect(&[spec], limits).await
}

#[tokio::test]
async fn hostile_resources_are_bounded_in_size_time_and_number() {
    let py = start_py_server();
    let hub = py_hub(
        &py,
        McpLimits {
            call_timeout: Duration::from_secs(1),
            max_resource_bytes: 1 << 20,
            ..McpLimits::default()
        },
    )
    .await;
    let read =
        |uri: &str| json!({"serverId": "py", "method": "resources/read", "params": {"uri": uri}});
    let cancel = CancellationToken::new();
    // The older key links the same view.
    let legacy = hub.app_of("mcp__py__legacy_view").expect("an app");
    assert_eq!(legacy.resource_uri, "ui://py/counter");
    assert!(hub.app_of("mcp__py__shout").is_none());

    // 3 MiB of HTML against a 1 MiB bound.
    let err = hub
        .app_request(&read("ui://py/huge"), &cancel)
        .await
        .unwrap_err();
    let AppError::Failed(m) = &err else {
        panic!("{err:?}")
    };
    assert!(
        m.contains("more than 1048576 (--mcp-max-resource-bytes)"),
        "{m}"
    );

    // A resource that never answers: given up after the call timeout.
    let started = Instant::now();
    let err = hub
        .app_request(&read("ui://py/stuck"), &cancel)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, AppError::Failed(m) if m.contains("did not answer resources/read within 1 s")),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );

    // Nine at once: eight wait for the server, the ninth is refused at once.
    let stuck = read("ui://py/stuck");
    let all = join_all((0..9).map(|_| hub.app_request(&stuck, &cancel))).await;
    let busy = all
        .iter()
        .filter(|r| matches!(r, Err(AppError::Failed(m)) if m.contains("more than 8 app requests at once")))
        .count();
    assert_eq!(busy, 1, "{all:?}");

    // A cancelled run stops waiting.
    let c = CancellationToken::new();
    let cc = c.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cc.cancel();
    });
    assert_eq!(hub.app_request(&stuck, &c).await, Err(AppError::Cancelled));

    // Still serving afterwards.
    let ok = hub
        .app_request(&read("ui://py/counter"), &cancel)
        .await
        .unwrap();
    assert!(ok["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Counter"));
}

#[tokio::test]
async fn mcp_calls_are_capped_per_round_and_charged_to_the_run() {
    let py = start_py_server();
    let py_spec = format!("py=http://{}/mcp", py.addr);
    // Three calls in one round, two allowed: the third is answered without reaching the server.
    let (model, seen) = model_server(calls_then_text(
        &[
            ("c1", "mcp__py__shout", json!({"text": "a"})),
            ("c2", "mcp__py__shout", json!({"text": "b"})),
            ("c3", "mcp__py__shout", json!({"text": "c"})),
        ],
        "done",
    ))
    .await;
    let llm = format!("gpt=http://{model}/v1,tools=none");
    let (addr, _) = common::start_server(&[
        "--llm",
        &llm,
        "--mcp",
        &py_spec,
        "--mcp-max-calls-per-round",
        "2",
    ])
    .await;
    let events = run(addr, "t-cap", "r-cap").await;
    let results: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "TOOL_CALL_RESULT")
        .filter_map(|e| e["content"].as_str())
        .collect();
    assert_eq!(results.len(), 3, "{events:#?}");
    assert_eq!(&results[..2], ["A", "B"]);
    assert!(
        results[2].contains("at most 2 MCP tool calls in one round"),
        "{}",
        results[2]
    );
    let second = seen.lock().unwrap()[1]["messages"].clone();
    let tool_messages = second
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(tool_messages, 3, "every call is answered to the model");
    // Tools without a view bring no activity.
    assert!(!events.iter().any(|e| e["type"] == "ACTIVITY_SNAPSHOT"));

    // 300 KB of answer against a run budget of 100 KB: the run ends, naming the server.
    let (model, seen) = model_server(calls_then_text(
        &[("c1", "mcp__py__blob", json!({"size": 300_000}))],
        "never",
    ))
    .await;
    let llm = format!("gpt=http://{model}/v1,tools=none");
    let (addr, _) = common::start_server(&[
        "--llm",
        &llm,
        "--mcp",
        &py_spec,
        "--max-upstream-bytes",
        "100000",
        "--mcp-max-result-bytes",
        "1000000",
    ])
    .await;
    let events = run(addr, "t-budget", "r-budget").await;
    let end = events.last().unwrap();
    refused(end, "UPSTREAM_LIMIT", "the MCP server 'py' answered with");
    assert!(!events.iter().any(|e| e["type"] == "TOOL_CALL_RESULT"));
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the model is not called again"
    );
}
