//! Each claim of `GET /api/agents`' `AgentCapabilities` checked against what the server does,
//! over real sockets: the published document first, then the behaviour behind every flag it
//! sets true (and, where a flag is false and testable, that the behaviour is absent).
//!
//! - `transport`: SSE streaming, protobuf when `Accept` asks for it, a cut run resumed with
//!   `Last-Event-ID`, no WebSocket upgrade;
//! - `state`: the demo's snapshots and deltas, state carried from run to run of a thread, and
//!   across a restart on the same database file (`custom["agui-studio:durableThreads"]`);
//! - `tools`, `reasoning`, `multiAgent`, `multimodal`, `humanInTheLoop` against the demo
//!   scenarios that exercise them.
//!
//! The LLM agent's and the proxy's are in `tests/capabilities_foreign.rs`.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use agui_studio::protocol::proto::{decode_payload, frame::FrameDecoder};
use common::caps::{body, caps_of, events, has, types, DURABLE};
use common::{open_sse, request, start_server, HttpConn};
use serde_json::{json, Value};

#[test]
fn transport_claims_hold() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "1"]).await;
        let t = caps_of(addr, "demo").await["transport"].clone();
        assert_eq!(
            t,
            json!({"streaming": true, "websocket": false, "httpBinary": true,
                "pushNotifications": false, "resumable": true})
        );

        // streaming: an SSE answer, event by event.
        let mut sse = open_sse(
            addr,
            "POST",
            "/api/agents/demo",
            Some(&body("t-s", "r-s", "chat").to_string()),
        )
        .await;
        assert!(sse
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream")));
        let run = sse.read_run().await;
        assert!(run.len() > 3 && has(&run, "TEXT_MESSAGE_CONTENT"));

        // httpBinary: protobuf frames under the exact media type, decoding to the run.
        let proto = "application/vnd.ag-ui.event+proto";
        let b = body("t-p", "r-p", "chat").to_string();
        let mut conn = HttpConn::send(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Accept", proto)],
            Some(b.as_bytes()),
        )
        .await;
        assert_eq!(conn.status, 200);
        let content_type = conn.headers.iter().find(|(k, _)| k == "content-type");
        assert_eq!(content_type.map(|(_, v)| v.as_str()), Some(proto));
        let mut frames = FrameDecoder::new();
        let mut decoded: Vec<Value> = Vec::new();
        while let Some(chunk) = conn.next_body_bytes().await {
            for p in frames.push(&chunk).unwrap() {
                decoded.push(decode_payload(&p).unwrap());
            }
        }
        assert_eq!(decoded.first().unwrap()["type"], "RUN_STARTED");
        assert_eq!(decoded.last().unwrap()["type"], "RUN_FINISHED");

        // resumable: a run cut after three events goes on from the fourth.
        let b = body("t-r", "r-r", "long 300").to_string();
        let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&b)).await;
        let mut last = 0;
        for _ in 0..3 {
            let f = sse.next_frame().await.unwrap();
            last = f.id.unwrap().parse::<u64>().unwrap();
        }
        drop(sse);
        let mut resumed = HttpConn::send(
            addr,
            "GET",
            "/api/runs/r-r/events",
            &[("Last-Event-ID", &last.to_string())],
            None,
        )
        .await;
        assert_eq!(resumed.status, 200);
        let mut decoder = agui_studio::protocol::sse::Decoder::new();
        let mut got = Vec::new();
        while let Some(chunk) = resumed.next_body_bytes().await {
            got.extend(decoder.push(&chunk).unwrap());
        }
        assert_eq!(got[0].id.as_deref(), Some((last + 1).to_string().as_str()));
        assert!(got.last().unwrap().data.contains("\"RUN_FINISHED\""));

        // websocket: false — an upgrade request is not switched.
        let r = request(
            addr,
            "GET",
            "/api/agents/demo",
            &[
                ("Upgrade", "websocket"),
                ("Sec-WebSocket-Version", "13"),
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ],
            None,
        )
        .await;
        assert_ne!(r.status, 101);
    });
}

struct TempDb(PathBuf);

impl TempDb {
    fn new(name: &str) -> TempDb {
        let t = TempDb(
            std::env::temp_dir().join(format!("agui-caps-{name}-{}.db", std::process::id())),
        );
        t.clean();
        t
    }
    fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
    fn clean(&self) {
        for x in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{}{x}", self.path()));
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.clean();
    }
}

/// A server on its own runtime: dropping the runtime stops it.
fn serve(args: &[&str]) -> (tokio::runtime::Runtime, SocketAddr) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (addr, _) = rt.block_on(start_server(args));
    (rt, addr)
}

#[test]
fn state_claims_hold_across_runs_and_restarts() {
    let db = TempDb::new("state");
    let client = tokio::runtime::Runtime::new().unwrap();
    let (server, addr) = serve(&["--demo-delay-ms", "0", "--db", &db.path()]);
    let caps = client.block_on(caps_of(addr, "demo"));
    let state = &caps["state"];
    assert_eq!(
        (state["snapshots"].clone(), state["deltas"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(state["persistentState"], true);
    assert_eq!(caps["custom"][DURABLE], true, "a database file");

    // snapshots and deltas: the plan scenario sends both.
    let run = client.block_on(events(
        addr,
        "demo",
        &body("t-plan", "r-plan", "agentic_ui"),
    ));
    assert!(
        has(&run, "STATE_SNAPSHOT") && has(&run, "STATE_DELTA"),
        "{:?}",
        types(&run)
    );

    // persistentState: the second run sends no state, and the agent builds on the first's
    // (a delta on the recipe instead of a new one).
    let first = client.block_on(events(addr, "demo", &body("t-st", "r-st1", "shared_state")));
    assert!(has(&first, "STATE_SNAPSHOT"));
    let mut second = body("t-st", "r-st2", "shared_state");
    second.as_object_mut().unwrap().remove("state");
    let second = client.block_on(events(addr, "demo", &second));
    assert!(
        has(&second, "STATE_DELTA") && !has(&second, "STATE_SNAPSHOT"),
        "{:?}",
        types(&second)
    );

    // Across a restart on the same file: the thread's state is still there.
    server.shutdown_timeout(Duration::from_millis(500));
    let (server, addr) = serve(&["--demo-delay-ms", "0", "--db", &db.path()]);
    let third = client.block_on(events(addr, "demo", &body("t-st", "r-st3", "shared_state")));
    assert!(
        has(&third, "STATE_DELTA") && !has(&third, "STATE_SNAPSHOT"),
        "{:?}",
        types(&third)
    );
    server.shutdown_timeout(Duration::from_millis(500));

    // An in-memory database says its threads do not survive a restart.
    let (server, addr) = serve(&["--demo-delay-ms", "0"]);
    assert_eq!(
        client.block_on(caps_of(addr, "demo"))["custom"][DURABLE],
        false
    );
    server.shutdown_timeout(Duration::from_millis(500));
}

#[test]
fn tool_reasoning_subagent_and_media_claims_hold() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let caps = caps_of(addr, "demo").await;

        // tools: the backend tool called is one of the declared items, answered server-side.
        let items: Vec<&str> = caps["tools"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let run = events(
            addr,
            "demo",
            &body("t-bt", "r-bt", "backend_tool what is 12*7"),
        )
        .await;
        let call = run.iter().find(|e| e["type"] == "TOOL_CALL_START").unwrap();
        assert!(
            items.contains(&call["toolCallName"].as_str().unwrap()),
            "{items:?}"
        );
        assert!(has(&run, "TOOL_CALL_RESULT"));
        assert_eq!(caps["tools"]["parallelCalls"], false);

        // tools.clientProvided: the app's tool is the one called, and left to the app.
        assert_eq!(caps["tools"]["clientProvided"], true);
        let mut b = body("t-fe", "r-fe", "hitl");
        b["tools"] = json!([{"name": "app_tool", "description": "the app's", "parameters": {"type": "object"}}]);
        let run = events(addr, "demo", &b).await;
        let call = run.iter().find(|e| e["type"] == "TOOL_CALL_START").unwrap();
        assert_eq!(call["toolCallName"], "app_tool");
        assert!(!has(&run, "TOOL_CALL_RESULT"));

        // reasoning: streamed (several deltas) and one encrypted value.
        assert_eq!(
            caps["reasoning"],
            json!({"supported": true, "streaming": true, "encrypted": true})
        );
        let run = events(addr, "demo", &body("t-re", "r-re", "reasoning")).await;
        let deltas = run
            .iter()
            .filter(|e| e["type"] == "REASONING_MESSAGE_CONTENT")
            .count();
        assert!(deltas > 1, "{:?}", types(&run));
        assert!(has(&run, "REASONING_ENCRYPTED_VALUE"));

        // multiAgent: the subagents that run are the declared ones.
        let declared: Vec<&str> = caps["multiAgent"]["subagents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        let run = events(addr, "demo", &body("t-sa", "r-sa", "subagents")).await;
        let started: Vec<&str> = run
            .iter()
            .filter(|e| e["type"] == "SUBAGENT_STARTED")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert!(
            !started.is_empty() && started.iter().all(|n| declared.contains(n)),
            "{started:?}"
        );

        // multimodal.input: every declared kind is taken and read.
        let input = &caps["multimodal"]["input"];
        let parts = [
            ("image", "image", "image/png"),
            ("audio", "audio", "audio/wav"),
            ("video", "video", "video/mp4"),
            ("pdf", "document", "application/pdf"),
            ("file", "document", "application/zip"),
        ];
        let mut content = vec![json!({"type": "text", "text": "multimodal"})];
        for (kind, part, mime) in parts {
            assert_eq!(input[kind], true, "{kind}");
            content.push(json!({"type": part, "source": {"type": "data", "value": "AAAA", "mimeType": mime}}));
        }
        let b = json!({"threadId": "t-mm", "runId": "r-mm",
            "messages": [{"id": "u-mm", "role": "user", "content": content}]});
        let run = events(addr, "demo", &b).await;
        let text: String = run
            .iter()
            .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
            .filter_map(|e| e["delta"].as_str())
            .collect();
        for (_, _, mime) in parts {
            assert!(text.contains(mime), "{mime} in {text}");
        }
    });
}

#[test]
fn human_in_the_loop_claims_hold() {
    common::run(async {
        let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
        let hitl = caps_of(addr, "demo").await["humanInTheLoop"].clone();
        for k in ["supported", "approvals", "interrupts", "approveWithEdits"] {
            assert_eq!(hitl[k], true, "{k}");
        }

        // approvals: the run waits, stream open, for the answer.
        let b = body("t-ap", "r-ap", "approval").to_string();
        let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&b)).await;
        common::wait_until(Duration::from_secs(5), "the agent waits", || {
            !state.runs.pending_waits().is_empty()
        })
        .await;
        let call = state.runs.pending_waits()[0].0.clone();
        let (s, _) = common::post_json(
            addr,
            "/api/ag-ui/tool-result",
            &json!({"toolCallId": call, "approved": true}),
        )
        .await;
        assert_eq!(s, 200);
        assert_eq!(sse.read_run().await.last().unwrap()["type"], "RUN_FINISHED");

        // interrupts, and approveWithEdits: the edited arguments are what runs.
        let run = events(addr, "demo", &body("t-in", "r-in1", "interrupt")).await;
        let outcome = &run.last().unwrap()["outcome"];
        assert_eq!(outcome["type"], "interrupt");
        let id = outcome["interrupts"][0]["id"].as_str().unwrap().to_string();
        let mut next = body("t-in", "r-in2", "interrupt");
        next["messages"] = json!([]);
        next["resume"] = json!([{"interruptId": id, "status": "resolved",
            "payload": {"approved": true, "editedArgs": {"paths": ["/tmp/demo/only.log"]}}}]);
        let run = events(addr, "demo", &next).await;
        let result = run
            .iter()
            .find(|e| e["type"] == "TOOL_CALL_RESULT")
            .unwrap();
        assert!(
            result["content"]
                .as_str()
                .unwrap()
                .contains("/tmp/demo/only.log"),
            "{result}"
        );
        assert!(
            !result["content"].as_str().unwrap().contains("a.log"),
            "{result}"
        );
    });
}
