//! The proxy over the protobuf binding, against a real foreign agent that speaks it: a small
//! node server whose events are encoded by the official `@ag-ui/encoder` (`encodeBinary`, i.e.
//! `@ag-ui/proto` frames) — `tests/foreign/proto_agent.mjs`. With `--proxy ID=URL,transport=proto`
//! the proxy asks for protobuf, decodes the frames through the same pipeline as SSE, stores the
//! run, and relays it (over SSE or protobuf, as our client asks); a foreign agent that answers SSE
//! instead is read as SSE; hostile frames end the run with a clear code. Skipped, saying so, only
//! when there is no node.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use agui_studio::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use agui_studio::protocol::proto::{decode_payload, FrameDecoder, MEDIA_TYPE};
use agui_studio::protocol::types::RunAgentInput;
use common::{
    assistant_text, get, json_of, open_sse, read_through_pipeline, run, start_printing_port,
    start_server, HttpConn, PortProcess,
};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `node` (or `AGUI_TEST_NODE`), if it runs.
fn node() -> Option<PathBuf> {
    let node =
        std::env::var_os("AGUI_TEST_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let ok = Command::new(&node)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(node)
}

fn start_agent(node: &PathBuf) -> PortProcess {
    let encoder = root().join("end2end/node_modules/@ag-ui/encoder");
    assert!(
        encoder.exists(),
        "{} is missing: run `scripts/studio.sh setup` (npm ci in end2end/)",
        encoder.display()
    );
    let mut cmd = Command::new(node);
    cmd.arg(root().join("tests/foreign/proto_agent.mjs"));
    start_printing_port(cmd, "the node protobuf agent")
}

fn input(run_id: &str, text: &str) -> Value {
    json!({
        "threadId": format!("t-{run_id}"), "runId": run_id,
        "messages": [{"id": format!("u-{run_id}"), "role": "user", "content": text}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {}
    })
}

/// What the foreign agent answered run `run_id` with.
async fn foreign_content_type(agent: SocketAddr, run_id: &str) -> String {
    let (status, body) = get(agent, &format!("/seen/{run_id}")).await;
    assert_eq!(status, 200, "{body}");
    json_of(&body)["contentType"].as_str().unwrap().to_string()
}

/// Our stored run, replayed over SSE.
async fn stored(addr: SocketAddr, run_id: &str) -> Vec<Value> {
    let (status, body) = get(addr, &format!("/api/runs/{run_id}/events")).await;
    assert_eq!(status, 200, "{body}");
    body.split("\n\n")
        .filter_map(|f| f.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn check_conversation(p: &Pipeline, label: &str) {
    assert_eq!(
        p.outcome(),
        StreamOutcome::Completed,
        "{label}: {:?}",
        p.error()
    );
    assert_eq!(assistant_text(p), "Héllo from protobuf ✓", "{label}");
    assert_eq!(
        p.conversation.state,
        json!({"plan": ["look", "answer"], "cursor": null, "n": 3, "done": true}),
        "{label}"
    );
}

#[test]
fn the_proxy_reads_a_foreign_agent_over_protobuf() {
    let Some(node) = node() else {
        eprintln!("SKIPPED proto_proxy: no `node` on PATH (set AGUI_TEST_NODE to a node binary)");
        return;
    };
    let agent = start_agent(&node);
    let spec = format!("foreign=http://{}/,transport=proto", agent.addr);
    let sse_spec = format!("plain=http://{}/", agent.addr);
    run(async {
        let (addr, _state) = start_server(&["--proxy", &spec, "--proxy", &sse_spec]).await;

        // Relayed to our client over SSE.
        let body = input("px-1", "hi");
        let mut sse = open_sse(addr, "POST", "/api/agents/foreign", Some(&body.to_string())).await;
        assert_eq!(sse.status(), 200);
        let (events, p) = read_through_pipeline(&mut sse, &body).await;
        check_conversation(&p, "protobuf in, SSE out");
        assert_eq!(foreign_content_type(agent.addr, "px-1").await, MEDIA_TYPE);
        let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
        for t in [
            "REASONING_MESSAGE_CONTENT",
            "TOOL_CALL_RESULT",
            "STATE_DELTA",
            "ACTIVITY_DELTA",
            "CUSTOM",
            "RAW",
        ] {
            assert!(types.contains(&t), "{t} relayed: {types:?}");
        }
        let last = events.last().unwrap();
        assert_eq!(last["type"], "RUN_FINISHED");
        assert_eq!(last["result"], json!({"answer": 42}));
        assert_eq!(last["usage"][0]["totalTokens"], 12);
        assert_eq!(
            stored(addr, "px-1").await,
            events,
            "the run is stored as relayed"
        );

        // Relayed to our client over protobuf too.
        let body = input("px-2", "hi");
        let text = body.to_string();
        let mut conn = HttpConn::send(
            addr,
            "POST",
            "/api/agents/foreign",
            &[("Accept", MEDIA_TYPE)],
            Some(text.as_bytes()),
        )
        .await;
        assert_eq!(conn.status, 200);
        let parsed: RunAgentInput = serde_json::from_value(body.clone()).unwrap();
        let mut p = Pipeline::for_input(&parsed, PipelineOptions::default());
        let mut d = FrameDecoder::new();
        while let Some(chunk) = conn.next_body_bytes().await {
            for payload in d.push(&chunk).unwrap() {
                p.push_value(None, decode_payload(&payload).unwrap());
            }
        }
        d.finish().unwrap();
        p.finish();
        check_conversation(&p, "protobuf in, protobuf out");

        // Without transport=proto the same agent is asked for (and answers) SSE.
        let body = input("px-3", "hi");
        let mut sse = open_sse(addr, "POST", "/api/agents/plain", Some(&body.to_string())).await;
        let (_, p) = read_through_pipeline(&mut sse, &body).await;
        check_conversation(&p, "SSE");
        assert_eq!(
            foreign_content_type(agent.addr, "px-3").await,
            "text/event-stream"
        );

        // Asked for protobuf, a server that only has SSE answers SSE: read as SSE.
        let body = input("px-4", "sse only");
        let mut sse = open_sse(addr, "POST", "/api/agents/foreign", Some(&body.to_string())).await;
        let (_, p) = read_through_pipeline(&mut sse, &body).await;
        check_conversation(&p, "fallback to SSE");
        assert_eq!(
            foreign_content_type(agent.addr, "px-4").await,
            "text/event-stream"
        );
    });
}

#[test]
fn hostile_foreign_frames_end_the_run_with_a_clear_code() {
    let Some(node) = node() else {
        eprintln!("SKIPPED proto_proxy: no `node` on PATH (set AGUI_TEST_NODE to a node binary)");
        return;
    };
    let agent = start_agent(&node);
    let spec = format!("foreign=http://{}/,transport=proto", agent.addr);
    run(async {
        let (addr, _state) = start_server(&["--proxy", &spec]).await;
        for (variant, code, needle) in [
            ("huge", "UPSTREAM_LIMIT", "over the limit"),
            (
                "cut",
                "FOREIGN_STREAM_TRUNCATED",
                "ended inside a protobuf frame",
            ),
            (
                "garbage",
                "FOREIGN_PROTOCOL_ERROR",
                "invalid protobuf event",
            ),
        ] {
            let run_id = format!("px-{variant}");
            let body = input(&run_id, variant);
            let mut sse =
                open_sse(addr, "POST", "/api/agents/foreign", Some(&body.to_string())).await;
            let (events, _) = read_through_pipeline(&mut sse, &body).await;
            let last = events.last().unwrap();
            assert_eq!(last["type"], "RUN_ERROR", "{variant}: {events:?}");
            assert_eq!(last["code"], code, "{variant}: {last}");
            let message = last["message"].as_str().unwrap();
            assert!(message.contains(needle), "{variant}: {message}");
            assert_eq!(foreign_content_type(agent.addr, &run_id).await, MEDIA_TYPE);
        }
    });
}
