//! Streams that survive disconnects and threads that survive restarts, over real sockets.
//!
//! The main test cuts run streams at random byte offsets (mid-frame included), resumes each with
//! `GET /api/runs/{id}/events` + `Last-Event-ID`, possibly several times per run, and restarts the
//! server (a crash: its runtime is dropped with whatever it had queued) between rounds, all on one
//! SQLite file. After resuming, the events must be exactly 1..=N with no gap and no duplicate, and
//! the conversation the client builds must equal that of an uninterrupted run of the same
//! scenario. The seed is printed; `AGUI_RESUME_SEED=<n>` replays a failing case.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use agui_studio::protocol::pipeline::{Pipeline, StreamOutcome};
use agui_studio::protocol::sse::{Decoder, SseFrame};
use agui_studio::protocol::types::RunAgentInput;
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use common::{request, HttpConn};
use serde_json::{json, Value};
use tokio::runtime::Runtime;

/// Scenarios run in every round: text, tools, state, reasoning, activities, subagents.
const SCENARIOS: [&str; 6] = [
    "long 1500",
    "backend_tool what is 12*7",
    "agentic_ui",
    "reasoning",
    "activities",
    "subagents",
];
const ROUNDS: usize = 4;
/// Resumed runs per scenario and round.
const RUNS_PER_SCENARIO: usize = 3;

/// A server in a runtime of its own, so that dropping the runtime kills it mid-flight.
struct Server {
    addr: SocketAddr,
    rt: Option<Runtime>,
}

impl Server {
    fn start(db: &str, delay_ms: &str) -> Server {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let addr = rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let cli = Cli::parse_from(["agui-studio", "--demo-delay-ms", delay_ms, "--db", db]);
            let state = AppState::new(&cli.serve).await.unwrap();
            tokio::spawn(async move { axum::serve(listener, app(state)).await.unwrap() });
            addr
        });
        Server { addr, rt: Some(rt) }
    }

    /// Stop abruptly: every task (runs, the database writer, connections) is dropped.
    fn crash(mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_millis(200));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_millis(200));
        }
    }
}

/// A small deterministic generator (xorshift64*), so a seed reproduces a run of the test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

struct TempDb(PathBuf);

impl TempDb {
    fn new(name: &str) -> TempDb {
        let p = std::env::temp_dir().join(format!("agui-{name}-{}.db", std::process::id()));
        let t = TempDb(p);
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

fn input(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
    })
}

/// What a client collected from one run: the frames in order and the bytes they came in.
#[derive(Default)]
struct Collected {
    frames: Vec<SseFrame>,
    bytes: u64,
    cuts: usize,
}

impl Collected {
    fn last_id(&self) -> u64 {
        self.frames
            .last()
            .and_then(|f| f.id.as_deref())
            .map_or(0, |id| id.parse().unwrap())
    }
    fn ended(&self) -> bool {
        self.frames.last().is_some_and(|f| {
            f.data.starts_with(r#"{"type":"RUN_FINISHED""#)
                || f.data.starts_with(r#"{"type":"RUN_ERROR""#)
        })
    }
}

/// Read a response body into `into`, stopping after `cut` bytes (None: to the end). Frames are
/// kept only once complete, as any SSE client does; a cut mid-frame loses that partial frame.
async fn read_body(conn: &mut HttpConn, cut: Option<u64>, into: &mut Collected) -> bool {
    let mut decoder = Decoder::new();
    let mut read = 0u64;
    while let Some(chunk) = conn.next_body_bytes().await {
        let chunk = match cut {
            Some(c) if read + chunk.len() as u64 >= c => {
                let keep = (c - read) as usize;
                into.frames.extend(decoder.push(&chunk[..keep]).unwrap());
                into.bytes += keep as u64;
                into.cuts += 1;
                return false;
            }
            _ => chunk,
        };
        read += chunk.len() as u64;
        into.bytes += chunk.len() as u64;
        into.frames.extend(decoder.push(&chunk).unwrap());
    }
    true
}

/// One run, cut at random points and resumed until its terminal event.
async fn cut_and_resume(
    addr: SocketAddr,
    body: &Value,
    run_id: &str,
    rng: &mut Rng,
    typical_bytes: u64,
) -> Collected {
    let mut got = Collected::default();
    let body = body.to_string();
    let mut conn = HttpConn::send(
        addr,
        "POST",
        "/api/agents/demo",
        &[("X-AGUI-Detach", "true")],
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(conn.status, 200);
    assert_eq!(
        conn.headers
            .iter()
            .find(|(k, _)| k == "x-agui-run-events")
            .map(|(_, v)| v.as_str()),
        Some(format!("/api/runs/{run_id}/events").as_str())
    );
    let mut cut = Some(1 + rng.below(typical_bytes));
    read_body(&mut conn, cut, &mut got).await;
    drop(conn);
    let mut attempts = 0;
    while !got.ended() {
        attempts += 1;
        assert!(attempts < 50, "run {run_id} never ended");
        // Now and then a reconnect comes back at once, now and then after the run went on.
        if rng.below(3) == 0 {
            tokio::time::sleep(Duration::from_millis(rng.below(30))).await;
        }
        let last = got.last_id().to_string();
        let mut conn = HttpConn::send(
            addr,
            "GET",
            &format!("/api/runs/{run_id}/events"),
            &[("Last-Event-ID", &last)],
            None,
        )
        .await;
        assert_eq!(conn.status, 200, "resume of {run_id} after {last}");
        cut = if rng.below(2) == 0 {
            Some(1 + rng.below(typical_bytes / 2 + 1))
        } else {
            None
        };
        read_body(&mut conn, cut, &mut got).await;
    }
    got
}

/// The conversation a client builds from `frames`, with run-specific ids and times removed.
fn conversation(input: &Value, frames: &[SseFrame]) -> (Value, Value, StreamOutcome) {
    let input: RunAgentInput = serde_json::from_value(input.clone()).unwrap();
    let mut p = Pipeline::for_input(&input, Default::default());
    for f in frames {
        p.push_value(None, serde_json::from_str(&f.data).unwrap());
    }
    p.finish();
    assert!(p.warnings.is_empty(), "warnings: {:?}", p.warnings);
    let messages = normalise(
        serde_json::to_value(&p.conversation.messages).unwrap(),
        &input.run_id,
    );
    let state = normalise(p.conversation.state.clone(), &input.run_id);
    (messages, state, p.outcome())
}

fn normalise(v: Value, run_id: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace(run_id, "RUN")),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| normalise(x, run_id)).collect()),
        // The demo's opaque reasoning value encodes the run id.
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(k, _)| k != "timestamp")
                .map(|(k, x)| match k.as_str() {
                    "encryptedValue" => (k, Value::String("OPAQUE".into())),
                    _ => (k, normalise(x, run_id)),
                })
                .collect(),
        ),
        other => other,
    }
}

/// The ids must be exactly 1..=N.
fn assert_contiguous(run_id: &str, frames: &[SseFrame]) {
    for (i, f) in frames.iter().enumerate() {
        let id: u64 = f.id.as_deref().unwrap().parse().unwrap();
        assert_eq!(
            id,
            i as u64 + 1,
            "run {run_id}: event {} has id {id}",
            i + 1
        );
    }
}

#[test]
fn random_cuts_and_restarts_lose_nothing() {
    let seed = std::env::var("AGUI_RESUME_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("resume test seed: {seed} (AGUI_RESUME_SEED={seed} to replay)");
    let mut rng = Rng(seed);
    let client = Runtime::new().unwrap();

    // The uninterrupted runs to compare with.
    let reference_db = TempDb::new("resume-ref");
    let reference = Server::start(&reference_db.path(), "1");
    let mut expected = Vec::new();
    for (i, text) in SCENARIOS.iter().enumerate() {
        let body = input(&format!("ref-{i}"), &format!("ref-run-{i}"), text);
        let mut got = Collected::default();
        client.block_on(async {
            let s = body.to_string();
            let mut conn = HttpConn::send(
                reference.addr,
                "POST",
                "/api/agents/demo",
                &[],
                Some(s.as_bytes()),
            )
            .await;
            read_body(&mut conn, None, &mut got).await;
        });
        assert_contiguous("reference", &got.frames);
        let conv = conversation(&body, &got.frames);
        assert_eq!(conv.2, StreamOutcome::Completed, "{text}");
        expected.push((got.frames.len(), got.bytes, conv));
    }
    reference.crash();

    let db = TempDb::new("resume");
    let mut runs = 0;
    let mut cuts = 0;
    let (mut want_events, mut got_events) = (0usize, 0usize);
    let mut finished_runs: Vec<(String, Vec<SseFrame>)> = Vec::new();
    for round in 0..ROUNDS {
        let server = Server::start(&db.path(), "1");
        // Runs that ended before the restart replay from the database after any id.
        client.block_on(async {
            for (run_id, frames) in &finished_runs {
                let from = rng.below(frames.len() as u64);
                let mut conn = HttpConn::send(
                    server.addr,
                    "GET",
                    &format!("/api/runs/{run_id}/events"),
                    &[("Last-Event-ID", &from.to_string())],
                    None,
                )
                .await;
                assert_eq!(conn.status, 200);
                let mut got = Collected::default();
                read_body(&mut conn, None, &mut got).await;
                let want: Vec<&str> = frames[from as usize..]
                    .iter()
                    .map(|f| f.data.as_str())
                    .collect();
                let have: Vec<&str> = got.frames.iter().map(|f| f.data.as_str()).collect();
                assert_eq!(
                    have, want,
                    "replay of {run_id} after {from}, after a restart"
                );
            }
        });
        for (i, text) in SCENARIOS.iter().enumerate() {
            for k in 0..RUNS_PER_SCENARIO {
                let run_id = format!("run-{round}-{i}-{k}");
                let body = input(&format!("t-{round}-{i}-{k}"), &run_id, text);
                let (n, bytes, want) = &expected[i];
                let got = client.block_on(cut_and_resume(
                    server.addr,
                    &body,
                    &run_id,
                    &mut rng,
                    *bytes,
                ));
                want_events += n;
                got_events += got.frames.len();
                assert_contiguous(&run_id, &got.frames);
                assert_eq!(got.frames.len(), *n, "{run_id} ({text}): event count");
                let have = conversation(&body, &got.frames);
                assert_eq!(&have, want, "{run_id} ({text}): conversation differs");
                runs += 1;
                cuts += got.cuts;
                finished_runs.push((run_id, got.frames));
            }
        }
        // A run still going when the server dies: after the restart its replay ends with
        // RUN_ERROR SERVER_RESTARTED and its thread lists it as interrupted.
        let doomed = format!("doomed-{round}");
        let body = input(&format!("t-doomed-{round}"), &doomed, "long 100000");
        let seen = client.block_on(async {
            let s = body.to_string();
            let mut conn = HttpConn::send(
                server.addr,
                "POST",
                "/api/agents/demo",
                &[("X-AGUI-Detach", "true")],
                Some(s.as_bytes()),
            )
            .await;
            let mut got = Collected::default();
            // Crash soon after the client has seen its first events.
            read_body(&mut conn, Some(200 + rng.below(4000)), &mut got).await;
            got.frames
        });
        assert!(!seen.is_empty(), "{doomed}: no event before the crash");
        server.crash();
        let server = Server::start(&db.path(), "1");
        client.block_on(async {
            let mut conn = HttpConn::send(
                server.addr,
                "GET",
                &format!("/api/runs/{doomed}/events"),
                &[],
                None,
            )
            .await;
            assert_eq!(conn.status, 200);
            let mut got = Collected::default();
            read_body(&mut conn, None, &mut got).await;
            assert_contiguous(&doomed, &got.frames);
            // Whatever a client saw before the crash was committed: the replay starts with it.
            assert!(got.frames.len() > seen.len(), "{doomed}: replay too short");
            for (a, b) in seen.iter().zip(&got.frames) {
                assert_eq!(a.data, b.data, "{doomed}: event {:?} changed", a.id);
            }
            let last: Value = serde_json::from_str(&got.frames.last().unwrap().data).unwrap();
            assert_eq!(last["type"], "RUN_ERROR");
            assert_eq!(last["code"], "SERVER_RESTARTED");
            let t = request(
                server.addr,
                "GET",
                &format!("/api/threads/t-doomed-{round}"),
                &[],
                None,
            )
            .await;
            assert_eq!(t.status, 200);
            assert_eq!(t.json()["runs"][0]["status"], "interrupted");
        });
        server.crash();
    }
    println!(
        "resume: {runs} runs, {ROUNDS} server crashes/restarts, {cuts} connections cut at random \
         byte offsets; events expected {want_events}, received {got_events} (lost: {}, \
         duplicated: 0 — ids checked contiguous)",
        want_events - got_events
    );
}

#[tokio::test]
async fn threads_are_listed_and_keep_their_history() {
    let (addr, _) = common::start_server(&["--demo-delay-ms", "0"]).await;
    let first = input("hist", "hist-1", "chat");
    let r = request(
        addr,
        "POST",
        "/api/agents/demo",
        &[],
        Some(first.to_string().as_bytes()),
    )
    .await;
    assert_eq!(r.status, 200);
    // The second run sends only its new message: the server gives the agent the history.
    let second = input("hist", "hist-2", "backend_tool 2+2");
    let r = request(
        addr,
        "POST",
        "/api/agents/demo",
        &[],
        Some(second.to_string().as_bytes()),
    )
    .await;
    assert_eq!(r.status, 200);
    let t = request(addr, "GET", "/api/threads/hist", &[], None).await;
    assert_eq!(t.status, 200);
    let v = t.json();
    let roles: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles.first(), Some(&"user"));
    assert_eq!(
        roles.iter().filter(|r| **r == "user").count(),
        2,
        "{roles:?}"
    );
    assert!(roles.contains(&"tool"), "{roles:?}");
    assert_eq!(v["title"], "chat");
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    assert_eq!(v["runs"][0]["status"], "finished");
    assert_eq!(v["runs"][1]["eventsUrl"], "/api/runs/hist-2/events");
    let list = request(addr, "GET", "/api/threads", &[], None).await.json();
    assert_eq!(list["threads"][0]["id"], "hist");
    assert_eq!(
        list["threads"][0]["messageCount"],
        v["messages"].as_array().unwrap().len()
    );
    // Unknown things are 404 with a JSON body.
    // A run and the input its agent ran with: the history the client did not send included.
    let r = request(addr, "GET", "/api/runs/hist-2", &[], None).await;
    assert_eq!(r.status, 200);
    let d = r.json();
    assert_eq!(d["run"]["runId"], "hist-2");
    assert_eq!(d["run"]["status"], "finished");
    assert_eq!(d["input"]["messages"][0]["id"], "u-hist-1");
    assert_eq!(
        d["input"]["messages"].as_array().unwrap().last().unwrap()["id"],
        "u-hist-2"
    );
    assert_eq!(
        request(addr, "GET", "/api/runs/nope", &[], None)
            .await
            .status,
        404
    );
    let r = request(addr, "GET", "/api/threads/nope", &[], None).await;
    assert_eq!(r.status, 404);
    assert!(r.json()["error"].is_object() || r.json()["error"].is_string());
    let r = request(addr, "GET", "/api/runs/nope/events", &[], None).await;
    assert_eq!(r.status, 404);
    let r = request(
        addr,
        "GET",
        "/api/runs/hist-1/events",
        &[("Last-Event-ID", "x")],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
    let r = request(
        addr,
        "GET",
        "/api/runs/hist-1/events",
        &[("Last-Event-ID", "99999")],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn disconnect_cancels_unless_detached_and_cancel_stops_a_detached_run() {
    let (addr, state) = common::start_server(&["--demo-delay-ms", "5"]).await;
    // Attached (the default): the client leaving cancels the run.
    let body = input("c1", "attached", "long 100000").to_string();
    let mut conn =
        HttpConn::send(addr, "POST", "/api/agents/demo", &[], Some(body.as_bytes())).await;
    conn.next_body_bytes().await.unwrap();
    drop(conn);
    common::wait_until(
        Duration::from_secs(5),
        "the attached run is cancelled",
        || !state.runs.is_active("attached"),
    )
    .await;
    // Detached: it goes on without its client, until cancelled.
    let body = input("c2", "detached", "long 100000").to_string();
    let mut conn = HttpConn::send(
        addr,
        "POST",
        "/api/agents/demo",
        &[("X-AGUI-Detach", "true")],
        Some(body.as_bytes()),
    )
    .await;
    conn.next_body_bytes().await.unwrap();
    drop(conn);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        state.runs.is_active("detached"),
        "a detached run outlives its client"
    );
    let r = request(addr, "POST", "/api/runs/detached/cancel", &[], None).await;
    assert_eq!(r.status, 202);
    common::wait_until(
        Duration::from_secs(5),
        "the detached run is cancelled",
        || !state.runs.is_active("detached"),
    )
    .await;
    // Its replay ends with RUN_FINISHED outcome cancelled.
    let mut conn = HttpConn::send(addr, "GET", "/api/runs/detached/events", &[], None).await;
    let mut got = Collected::default();
    read_body(&mut conn, None, &mut got).await;
    assert_contiguous("detached", &got.frames);
    let last: Value = serde_json::from_str(&got.frames.last().unwrap().data).unwrap();
    assert_eq!(last["type"], "RUN_FINISHED");
    assert_eq!(last["outcome"]["type"], "cancelled", "{last}");
    let r = request(addr, "POST", "/api/runs/detached/cancel", &[], None).await;
    assert_eq!(r.status, 404);
}

/// Read frames (comments are not frames) until `n` have arrived.
async fn frames(conn: &mut HttpConn, decoder: &mut Decoder, n: usize) -> Vec<SseFrame> {
    let mut out = Vec::new();
    while out.len() < n {
        let chunk = conn.next_body_bytes().await.expect("more of the stream");
        out.extend(decoder.push(&chunk).unwrap());
    }
    out
}

#[tokio::test]
async fn observers_resume_with_last_event_id() {
    let (addr, state) = common::start_server(&["--demo-delay-ms", "2"]).await;
    let mut conn = HttpConn::send(addr, "GET", "/api/ag-ui/stream", &[], None).await;
    let message = json!({"content": "long 3000", "threadId": "obs"}).to_string();
    let (status, _) = common::post_raw(addr, "/api/ag-ui/message", &message).await;
    assert_eq!(status, 202);
    let mut decoder = Decoder::new();
    let first = frames(&mut conn, &mut decoder, 50).await;
    drop(conn);
    let last: u64 = first
        .last()
        .unwrap()
        .id
        .as_deref()
        .unwrap()
        .parse()
        .unwrap();
    let mut ids: Vec<u64> = first
        .iter()
        .map(|f| f.id.as_deref().unwrap().parse().unwrap())
        .collect();
    // Reconnect with the last id: the rest of the run, from the very next event.
    let mut conn = HttpConn::send(
        addr,
        "GET",
        "/api/ag-ui/stream",
        &[("Last-Event-ID", &last.to_string())],
        None,
    )
    .await;
    let mut decoder = Decoder::new();
    loop {
        let chunk = conn.next_body_bytes().await.expect("the stream goes on");
        let got = decoder.push(&chunk).unwrap();
        let done = got
            .iter()
            .any(|f| f.data.starts_with(r#"{"type":"RUN_FINISHED""#));
        ids.extend(
            got.iter()
                .map(|f| f.id.as_deref().unwrap().parse::<u64>().unwrap()),
        );
        if done {
            break;
        }
    }
    for w in ids.windows(2) {
        assert_eq!(
            w[1],
            w[0] + 1,
            "observer ids jump or repeat around {}",
            w[0]
        );
    }
    common::wait_until(Duration::from_secs(5), "the run ended", || {
        state.runs.active_count() == 0
    })
    .await;
    // An id older than what the server holds (or from before a restart): snapshots instead.
    let mut conn = HttpConn::send(
        addr,
        "GET",
        "/api/ag-ui/stream",
        &[("Last-Event-ID", "1")],
        None,
    )
    .await;
    let mut text = String::new();
    while !text.contains("MESSAGES_SNAPSHOT") {
        let chunk = conn.next_body_bytes().await.expect("a resync");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains(": resync"), "{text}");
}

/// POST a run of the demo agent and read its whole stream (or, with `detach_after`, that many
/// bytes of a detached run, then hang up).
async fn run_demo(addr: SocketAddr, body: &Value, detach_after: Option<u64>) {
    let s = body.to_string();
    let headers: &[(&str, &str)] = if detach_after.is_some() {
        &[("X-AGUI-Detach", "true")]
    } else {
        &[]
    };
    let mut conn = HttpConn::send(
        addr,
        "POST",
        "/api/agents/demo",
        headers,
        Some(s.as_bytes()),
    )
    .await;
    assert_eq!(conn.status, 200);
    let mut got = Collected::default();
    read_body(&mut conn, detach_after, &mut got).await;
}

async fn hints_of(addr: SocketAddr, thread: &str) -> Vec<Value> {
    let t = request(addr, "GET", &format!("/api/threads/{thread}"), &[], None).await;
    assert_eq!(t.status, 200);
    t.json()["renderHints"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn render_hints_stay_with_their_thread_across_runs_and_restarts() {
    let db = TempDb::new("hints");
    let client = Runtime::new().unwrap();
    let server = Server::start(&db.path(), "0");
    client.block_on(run_demo(
        server.addr,
        &input("th", "h1", "render_hints"),
        None,
    ));
    let first = client.block_on(hints_of(server.addr, "th"));
    let components: Vec<&str> = first
        .iter()
        .map(|h| h["component"].as_str().unwrap())
        .collect();
    assert_eq!(components, ["chart", "table", "card"]);
    for h in &first {
        assert_eq!(h["runId"], "h1");
        // After the user's message, before the assistant's answer is complete.
        assert!(h["position"].as_u64().unwrap() >= 1, "{h}");
    }
    // A run left going when the server dies: the earlier hints survive its recovery.
    client.block_on(run_demo(
        server.addr,
        &input("th", "h2", "long 100000"),
        Some(2000),
    ));
    server.crash();
    let server = Server::start(&db.path(), "0");
    assert_eq!(client.block_on(hints_of(server.addr, "th")), first);
    // Later runs (sending only their new message) keep them and add their own after them.
    client.block_on(run_demo(server.addr, &input("th", "h3", "chat"), None));
    assert_eq!(client.block_on(hints_of(server.addr, "th")), first);
    client.block_on(run_demo(
        server.addr,
        &input("th", "h4", "render_hints"),
        None,
    ));
    let all = client.block_on(hints_of(server.addr, "th"));
    assert_eq!(all.len(), 6);
    assert_eq!(all[..3], first[..]);
    let t = client.block_on(request(server.addr, "GET", "/api/threads/th", &[], None));
    let messages = t.json()["messages"].as_array().unwrap().len() as u64;
    for h in &all[3..] {
        assert_eq!(h["runId"], "h4");
        let p = h["position"].as_u64().unwrap();
        assert!(
            p > first[2]["position"].as_u64().unwrap() && p <= messages,
            "{h}"
        );
    }
}
