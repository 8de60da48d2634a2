//! Two consumer MUSTs of AG-UI 1.1 on interrupts, held by the server over real sockets:
//!
//! - one `resume` answers every open interrupt: a run that ends with two interrupts is resumed
//!   only by a `resume` answering both, each once; one left out, an unknown id or an id twice is
//!   refused with 422 and a JSON body before any stream, and the thread is left as it was. The
//!   open interrupts are known after a restart too (read from the database);
//! - an expired interrupt cannot be answered: the run starts and ends in `RUN_ERROR`
//!   (`INTERRUPT_EXPIRED`), and the agent never sees the answer.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use common::{open_sse, request, start_server};
use serde_json::{json, Value};

fn first_run(thread: &str, run: &str, text: &str) -> Value {
    json!({"threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "tools": [], "context": [], "forwardedProps": {"scenario": "interrupt"}})
}

fn resume(thread: &str, run: &str, entries: Value) -> Value {
    json!({"threadId": thread, "runId": run, "messages": [], "resume": entries,
        "forwardedProps": {"scenario": "interrupt"}})
}

fn answer(id: &str) -> Value {
    json!({"interruptId": id, "status": "resolved",
        "payload": {"approved": true, "date": "2030-01-02"}})
}

async fn run_events(addr: SocketAddr, body: &Value) -> Vec<Value> {
    let mut sse = open_sse(addr, "POST", "/api/agents/demo", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200, "{body}");
    sse.read_run().await
}

/// The interrupts a run ended on (it must end on some).
async fn interrupted(addr: SocketAddr, body: &Value) -> Vec<String> {
    let events = run_events(addr, body).await;
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED");
    assert_eq!(last["outcome"]["type"], "interrupt", "{last}");
    last["outcome"]["interrupts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

/// A resume refused before any stream: 422 with a JSON error saying why.
async fn refused(addr: SocketAddr, body: &Value, why: &str) {
    let b = body.to_string();
    let r = request(addr, "POST", "/api/agents/demo", &[], Some(b.as_bytes())).await;
    assert_eq!(r.status, 422, "{body}: {}", r.body);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let message = r.json()["error"]["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| r.body.clone());
    assert!(message.contains(why), "{why} in {message}");
}

/// The refused resumes, then the one that answers both: it resumes the run.
async fn only_a_whole_resume_goes(addr: SocketAddr, thread: &str, ids: &[String]) {
    assert_eq!(ids.len(), 2);
    let (a, b) = (ids[0].as_str(), ids[1].as_str());
    refused(
        addr,
        &resume(thread, &format!("{thread}-x1"), json!([answer(a)])),
        "unanswered",
    )
    .await;
    refused(
        addr,
        &resume(
            thread,
            &format!("{thread}-x2"),
            json!([answer(a), answer(b), answer("int-nope")]),
        ),
        "not open",
    )
    .await;
    refused(
        addr,
        &resume(
            thread,
            &format!("{thread}-x3"),
            json!([answer(a), answer(a), answer(b)]),
        ),
        "twice",
    )
    .await;
    refused(
        addr,
        &resume(thread, &format!("{thread}-x4"), json!([])),
        "unanswered",
    )
    .await;
    let events = run_events(
        addr,
        &resume(
            thread,
            &format!("{thread}-ok"),
            json!([answer(b), answer(a)]),
        ),
    )
    .await;
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED", "{last}");
    assert!(
        last.get("outcome").is_none_or(|o| o["type"] == "success"),
        "{last}"
    );
    assert!(events.iter().any(|e| e["type"] == "TOOL_CALL_RESULT"));
    let text: String = events.iter().filter_map(|e| e["delta"].as_str()).collect();
    assert!(text.contains("2030-01-02"), "{text}");
    // Answered: nothing is open any more.
    refused(
        addr,
        &resume(
            thread,
            &format!("{thread}-again"),
            json!([answer(a), answer(b)]),
        ),
        "not open",
    )
    .await;
}

#[test]
fn one_resume_must_answer_every_open_interrupt() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let ids = interrupted(addr, &first_run("t-two", "r-two", "interrupt twice")).await;
        assert_ne!(ids[0], ids[1], "interrupt ids are unique");
        only_a_whole_resume_goes(addr, "t-two", &ids).await;
        // A resume on a thread that waits on nothing.
        refused(
            addr,
            &resume("t-none", "r-none", json!([answer("int-x")])),
            "not open",
        )
        .await;
    });
}

struct TempDb(PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for x in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{}{x}", self.0.display()));
        }
    }
}

fn serve(db: &str) -> (tokio::runtime::Runtime, SocketAddr) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (addr, _) = rt.block_on(start_server(&["--demo-delay-ms", "0", "--db", db]));
    (rt, addr)
}

#[test]
fn the_open_interrupts_are_known_after_a_restart() {
    let db =
        TempDb(std::env::temp_dir().join(format!("agui-interrupts-{}.db", std::process::id())));
    let path = db.0.display().to_string();
    let client = tokio::runtime::Runtime::new().unwrap();
    let (server, addr) = serve(&path);
    let ids = client.block_on(interrupted(
        addr,
        &first_run("t-rs", "r-rs", "interrupt twice"),
    ));
    server.shutdown_timeout(Duration::from_millis(500));
    let (server, addr) = serve(&path);
    client.block_on(only_a_whole_resume_goes(addr, "t-rs", &ids));
    server.shutdown_timeout(Duration::from_millis(500));
}

#[test]
fn an_expired_interrupt_ends_the_run_in_run_error() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        // Expired at once.
        let body = first_run("t-exp", "r-exp", "interrupt twice expires 0");
        let events = run_events(addr, &body).await;
        let outcome = &events.last().unwrap()["outcome"];
        let ids: Vec<&str> = outcome["interrupts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                assert!(i["expiresAt"].is_string(), "{i}");
                i["id"].as_str().unwrap()
            })
            .collect();
        // The shape is checked first: a partial answer is still a bad request.
        refused(
            addr,
            &resume("t-exp", "r-exp-x", json!([answer(ids[0])])),
            "unanswered",
        )
        .await;
        let events = run_events(
            addr,
            &resume("t-exp", "r-exp-2", json!([answer(ids[0]), answer(ids[1])])),
        )
        .await;
        let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
        assert_eq!(types, ["RUN_STARTED", "RUN_ERROR"], "{events:?}");
        let error = events.last().unwrap();
        assert_eq!(error["code"], "INTERRUPT_EXPIRED");
        assert!(
            error["message"].as_str().unwrap().contains("expired"),
            "{error}"
        );

        // Not yet expired: answered as usual.
        let ids = interrupted(
            addr,
            &first_run("t-live", "r-live", "interrupt twice expires 600"),
        )
        .await;
        let events = run_events(
            addr,
            &resume(
                "t-live",
                "r-live-2",
                json!([answer(&ids[0]), answer(&ids[1])]),
            ),
        )
        .await;
        assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
        assert!(events.iter().any(|e| e["type"] == "TOOL_CALL_RESULT"));
    });
}
