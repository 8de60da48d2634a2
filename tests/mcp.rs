//! The MCP client against a real MCP server: `@modelcontextprotocol/server-everything` (the
//! reference server, from npm, pinned in `end2end/package.json`) started over stdio by the
//! client itself. First the client alone (tools listed, `echo` and `get-sum` called, errors,
//! media, the result cap, the call timeout, cancellation), then the LLM agent using one of its
//! tools in a run, with a scripted OpenAI-compatible model server on loopback standing in for
//! the model API. Last, the streamable-HTTP transport against a server built with the official
//! MCP Python SDK (`tests/foreign/mcp_server.py`, run by the venv `scripts/studio.sh setup`
//! creates).
#![cfg(feature = "ssr")]

mod common;

use common::model::{delta, model_server};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agui_studio::protocol::types::{Content, ContentPart};
use agui_studio::server::mcp::{Cancelled, McpHub, McpLimits, McpSpec};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// The `--mcp` spec that starts the reference server with node.
fn everything_spec() -> String {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("end2end/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run `npm ci` in end2end/ (scripts/studio.sh setup)",
        entry.display()
    );
    let node = std::env::var("AGUI_TEST_NODE").unwrap_or_else(|_| "node".into());
    format!("everything=stdio:{node} {} stdio", entry.display())
}

async fn hub(limits: McpLimits) -> McpHub {
    let spec: McpSpec = everything_spec().parse().unwrap();
    McpHub::connect(&[spec], limits).await
}

async fn call(hub: &McpHub, tool: &str, args: Value) -> agui_studio::server::mcp::Outcome {
    hub.call(tool, &args.to_string(), &CancellationToken::new())
        .await
        .unwrap()
}

#[tokio::test]
async fn lists_and_calls_the_tools_of_a_real_server() {
    let hub = hub(McpLimits {
        max_result_bytes: 2000,
        ..McpLimits::default()
    })
    .await;
    assert_eq!(hub.server_ids().collect::<Vec<_>>(), ["everything"]);
    let names: Vec<&str> = hub.tools().iter().map(|t| t.offered.as_str()).collect();
    for want in ["mcp__everything__echo", "mcp__everything__get-sum"] {
        assert!(names.contains(&want), "{names:?}");
    }
    let echo = hub
        .tools()
        .iter()
        .find(|t| t.offered == "mcp__everything__echo")
        .unwrap();
    assert_eq!(
        echo.definition["function"]["parameters"]["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(
        echo.definition["function"]["description"],
        "Echoes back the input string"
    );

    let o = call(&hub, "mcp__everything__echo", json!({"message": "hello"})).await;
    assert_eq!(o.text, "Echo: hello");
    assert_eq!(o.content, Content::Text("Echo: hello".into()));
    let o = call(&hub, "mcp__everything__get-sum", json!({"a": 2, "b": 3})).await;
    assert_eq!(o.text, "The sum of 2 and 3 is 5.");

    // The server's own refusal of bad arguments, and ours of arguments that are not an object.
    let o = call(&hub, "mcp__everything__echo", json!({"msg": 1})).await;
    assert!(o.text.starts_with("Error: "), "{}", o.text);
    let o = hub
        .call(
            "mcp__everything__echo",
            "{not json",
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(o.text.contains("not valid JSON"), "{}", o.text);
    let o = call(&hub, "mcp__everything__nope", json!({})).await;
    assert!(o.text.contains("there is no tool named"), "{}", o.text);

    // Past the result cap: cut, with a note.
    let long = "x".repeat(10_000);
    let o = call(&hub, "mcp__everything__echo", json!({"message": long})).await;
    assert!(o.text.len() < 2200, "{}", o.text.len());
    assert!(
        o.text
            .contains("[truncated: the tool's result was 10006 bytes"),
        "{}",
        &o.text[1900..]
    );

    // An image: described to the model, attached (within the cap it fits) to the event.
    let big = hub_with_cap(200_000).await;
    let o = call(&big, "mcp__everything__get-tiny-image", json!({})).await;
    assert!(o.text.contains("[image: image/png"), "{}", o.text);
    let Content::Parts(parts) = &o.content else {
        panic!("{:?}", o.content)
    };
    assert!(parts.iter().any(|p| matches!(p, ContentPart::Image(_))));
}

async fn hub_with_cap(max_result_bytes: usize) -> McpHub {
    hub(McpLimits {
        max_result_bytes,
        ..McpLimits::default()
    })
    .await
}

#[tokio::test]
async fn slow_calls_time_out_and_cancelled_runs_stop_waiting() {
    let hub = hub(McpLimits {
        call_timeout: Duration::from_secs(1),
        ..McpLimits::default()
    })
    .await;
    let long_op = json!({"duration": 20, "steps": 2}).to_string();
    let started = Instant::now();
    let o = hub
        .call(
            "mcp__everything__trigger-long-running-operation",
            &long_op,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(o.text.contains("did not answer within 1 s"), "{}", o.text);
    assert!(started.elapsed() < Duration::from_secs(5));

    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c.cancel();
    });
    let started = Instant::now();
    let r = hub
        .call(
            "mcp__everything__trigger-long-running-operation",
            &long_op,
            &cancel,
        )
        .await;
    assert_eq!(r.unwrap_err(), Cancelled);
    assert!(started.elapsed() < Duration::from_secs(1));
    // The server is still there for the next call.
    let o = call(
        &hub,
        "mcp__everything__echo",
        json!({"message": "still here"}),
    )
    .await;
    assert_eq!(o.text, "Echo: still here");
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

fn python() -> PathBuf {
    let path = std::env::var_os("AGUI_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        path.exists(),
        "no Python for the MCP server at {}: run `scripts/studio.sh setup` (it creates .venv/ \
         from tests/foreign/requirements.txt), or set AGUI_TEST_PYTHON",
        path.display()
    );
    path
}

#[tokio::test]
async fn streamable_http_against_the_python_sdk() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/foreign/mcp_server.py");
    let mut cmd = std::process::Command::new(python());
    cmd.arg(script);
    // Killed by its PID when dropped.
    let server = common::start_printing_port(cmd, "tests/foreign/mcp_server.py");
    let specs: Vec<McpSpec> = vec![
        format!("py=http://{}/mcp", server.addr).parse().unwrap(),
        // Nothing listens there: left out, the other server unaffected.
        "gone=http://127.0.0.1:1/mcp".parse().unwrap(),
    ];
    let hub = McpHub::connect(
        &specs,
        McpLimits {
            call_timeout: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(20),
            ..McpLimits::default()
        },
    )
    .await;
    assert_eq!(hub.server_ids().collect::<Vec<_>>(), ["py"]);
    let names: Vec<&str> = hub.tools().iter().map(|t| t.offered.as_str()).collect();
    assert_eq!(names, ["mcp__py__shout", "mcp__py__fail", "mcp__py__slow"]);
    let o = call(&hub, "mcp__py__shout", json!({"text": "quiet please"})).await;
    assert_eq!(o.text, "QUIET PLEASE");
    let o = call(&hub, "mcp__py__fail", json!({})).await;
    assert!(
        o.text.starts_with("Error: ") && o.text.contains("always fails"),
        "{}",
        o.text
    );
    let o = call(&hub, "mcp__py__slow", json!({"seconds": 10})).await;
    assert!(o.text.contains("did not answer within 1 s"), "{}", o.text);
    let o = call(&hub, "mcp__py__shout", json!({"text": "still up"})).await;
    assert_eq!(o.text, "STILL UP");
    drop(server);
    // The server is gone: the call fails (or times out) as a result the model reads.
    let started = Instant::now();
    let o = call(&hub, "mcp__py__shout", json!({"text": "anyone?"})).await;
    assert!(
        o.text.starts_with("Error: ") && o.text.contains("'py'"),
        "{}",
        o.text
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

// ---------------------------------------------------------------------------------------------
// The LLM agent with an MCP tool

#[tokio::test]
async fn the_llm_agent_calls_an_mcp_tool_and_reads_its_answer() {
    let (model, seen) = model_server(vec![
        vec![
            delta(json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "mcp__everything__echo", "arguments": ""}}]}), None),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"message\": \"hi from the model\"}"}}]}), None),
            delta(json!({}), Some("tool_calls")),
        ],
        vec![
            delta(json!({"role": "assistant", "content": "The server echoed it."}), None),
            delta(json!({}), Some("stop")),
        ],
    ])
    .await;
    let llm = format!("gpt=http://{model}/v1,model=scripted,tools=none");
    let everything = everything_spec();
    // A server that cannot start is left out; the app starts and the other server's tools work.
    let (addr, _) = common::start_server(&[
        "--llm",
        &llm,
        "--mcp",
        &everything,
        "--mcp",
        "broken=stdio:/nonexistent/mcp-server",
    ])
    .await;
    let body = json!({"threadId": "t-mcp", "runId": "r-mcp",
        "messages": [{"id": "u1", "role": "user", "content": "Echo 'hi from the model'"}], "tools": []});
    let mut sse = common::open_sse(addr, "POST", "/api/agents/gpt", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    let (events, p) = common::read_through_pipeline(&mut sse, &body).await;
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.last(), Some(&"RUN_FINISHED"), "{events:#?}");
    let result = events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .expect("a TOOL_CALL_RESULT");
    assert_eq!(result["toolCallId"], "call_1");
    assert_eq!(result["content"], "Echo: hi from the model");
    assert_eq!(common::assistant_text(&p), "The server echoed it.");

    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"mcp__everything__echo"), "{offered:?}");
    assert!(!offered.iter().any(|n| n.starts_with("mcp__broken__")));
    let last = requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last,
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Echo: hi from the model"})
    );
}

#[tokio::test]
async fn stopping_a_run_stops_waiting_for_its_mcp_call() {
    let (model, seen) = model_server(vec![vec![
        delta(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_slow", "type": "function",
                "function": {"name": "mcp__everything__trigger-long-running-operation",
                             "arguments": "{\"duration\": 30, \"steps\": 3}"}}]}),
            None,
        ),
        delta(json!({}), Some("tool_calls")),
    ]])
    .await;
    let llm = format!("gpt=http://{model}/v1,tools=none");
    let everything = everything_spec();
    let (addr, state) = common::start_server(&["--llm", &llm, "--mcp", &everything]).await;
    let body = json!({"threadId": "t-stop", "runId": "r-stop",
        "messages": [{"id": "u1", "role": "user", "content": "take your time"}], "tools": []});
    let mut sse = common::open_sse(addr, "POST", "/api/agents/gpt", Some(&body.to_string())).await;
    let mut events: Vec<Value> = Vec::new();
    // Bounded: the call is under way once its TOOL_CALL_END is out.
    for _ in 0..50 {
        let e = sse.next_event().await.unwrap();
        let end = e["type"] == "TOOL_CALL_END";
        events.push(e);
        if end {
            break;
        }
    }
    assert_eq!(
        events.last().unwrap()["type"],
        "TOOL_CALL_END",
        "{events:#?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped = Instant::now();
    assert_eq!(state.runs.abort(Some("r-stop"), None), 1);
    let rest = tokio::time::timeout(Duration::from_secs(5), sse.read_run())
        .await
        .expect("the run ended within 5 s of the stop");
    assert!(
        stopped.elapsed() < Duration::from_secs(2),
        "{:?}",
        stopped.elapsed()
    );
    let finished = rest.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED", "{rest:#?}");
    assert_eq!(finished["outcome"], json!({"type": "cancelled"}));
    assert!(!rest.iter().any(|e| e["type"] == "TOOL_CALL_RESULT"));
    // The model was not called again.
    assert_eq!(seen.lock().unwrap().len(), 1);
}
