//! What one request, run or client may claim, over real sockets: ids, message counts, events
//! per run, runs in progress, observers, run ids across threads, `Last-Event-ID` past the run,
//! header and body timeouts, and one server per database file.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn run_body(thread: &str, run: &str, text: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}]
    })
}

/// Start a demo run and open its event stream.
async fn start_run(addr: std::net::SocketAddr, thread: &str, run: &str, text: &str) -> SseReader {
    let body = run_body(thread, run, text).to_string();
    open_sse(addr, "POST", "/api/agents/demo", Some(&body)).await
}

#[tokio::test]
async fn ids_and_message_counts_are_bounded_before_a_run_starts() {
    let (addr, state) = start_server(&["--max-messages", "50"]).await;
    // A 1 MiB thread id would be copied into the database and every retained event.
    let big = "t".repeat(1 << 20);
    let (status, body) = post_json(addr, "/api/agents/demo", &run_body(&big, "r1", "chat")).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(json_of(&body)["error"]["code"], "invalid_id");
    let (status, body) = post_json(
        addr,
        "/api/agents/demo",
        &run_body("t1", &"r".repeat(100 * 1024), "chat"),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    for bad in ["a/b", "a b", "../x"] {
        let (status, _) = post_json(addr, "/api/agents/demo", &run_body(bad, "r2", "chat")).await;
        assert_eq!(status, 422, "thread id {bad:?}");
    }
    let messages: Vec<Value> = (0..51)
        .map(|i| json!({"id": format!("m{i}"), "role": "user", "content": "x"}))
        .collect();
    let (status, body) = post_json(
        addr,
        "/api/agents/demo",
        &json!({"threadId": "t3", "runId": "r3", "messages": messages}),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(json_of(&body)["error"]["code"], "too_large");
    // Nothing was recorded for any of them.
    let store = state.runs.store().unwrap();
    store.flush().await;
    assert!(store.threads("", None, 100).await.unwrap().is_empty());
    assert_eq!(state.runs.active_count(), 0);
}

#[tokio::test]
async fn a_run_past_the_event_limit_ends_with_event_limit() {
    let (addr, _) = start_server(&["--demo-delay-ms", "0", "--max-run-events", "200"]).await;
    let mut sse = start_run(addr, "t1", "r1", "long 1000000").await;
    let events = sse.read_run().await;
    assert!(events.len() <= 200, "{} events", events.len());
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{last}");
    assert_eq!(last["code"], "EVENT_LIMIT");
}

#[tokio::test]
async fn runs_in_progress_are_capped_and_the_slot_comes_back() {
    let (addr, state) = start_server(&["--demo-delay-ms", "20", "--max-runs", "2"]).await;
    let mut open = Vec::new();
    for i in 0..2 {
        let sse = start_run(addr, &format!("t{i}"), &format!("r{i}"), "long 100000").await;
        assert_eq!(sse.status(), 200);
        open.push(sse);
    }
    let (status, body) = post_json(addr, "/api/agents/demo", &run_body("t9", "r9", "chat")).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(json_of(&body)["error"]["code"], "too_many_runs");
    // A client that goes away cancels its run: its slot is free again.
    drop(open.pop());
    wait_until(Duration::from_secs(10), "a run ended", || {
        state.runs.active_count() < 2
    })
    .await;
    let mut sse = start_run(addr, "t9", "r9", "chat").await;
    assert_eq!(sse.status(), 200);
    assert_eq!(sse.read_run().await.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn a_run_id_used_on_another_thread_is_refused_and_changes_nothing() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
    let mut sse = start_run(addr, "victim", "r1", "chat").await;
    let victim_events = sse.read_run().await;
    let store = state.runs.store().unwrap().clone();
    store.flush().await;
    let before = store.events_after("r1", 0, 10_000).await.unwrap();
    let input_before = serde_json::to_value(store.run_input("r1").await.unwrap()).unwrap();
    assert_eq!(before.len(), victim_events.len());

    let (status, body) = post_json(
        addr,
        "/api/agents/demo",
        &run_body("attacker", "r1", "long 10"),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    store.flush().await;
    assert_eq!(store.events_after("r1", 0, 10_000).await.unwrap(), before);
    let input_after = serde_json::to_value(store.run_input("r1").await.unwrap()).unwrap();
    assert_eq!(input_after, input_before);
    assert_eq!(store.run("r1").await.unwrap().unwrap().thread_id, "victim");
    assert!(store.thread("attacker").await.unwrap().is_none());
    // Running it again on its own thread is still allowed (a retry).
    let mut sse = start_run(addr, "victim", "r1", "chat").await;
    assert_eq!(sse.status(), 200);
    sse.read_run().await;
}

#[tokio::test]
async fn a_last_event_id_past_the_run_is_400_and_never_a_replay_from_the_start() {
    let (addr, state) = start_server(&["--demo-delay-ms", "5"]).await;
    // A finished run.
    let mut sse = start_run(addr, "t1", "r1", "long 20").await;
    let n = sse.read_run().await.len();
    for id in [
        "18446744073709551615",
        "9223372036854775808",
        &(n + 1).to_string(),
    ] {
        let r = request(
            addr,
            "GET",
            "/api/runs/r1/events",
            &[("Last-Event-ID", id)],
            None,
        )
        .await;
        assert_eq!(r.status, 400, "Last-Event-ID {id}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], "invalid_last_event_id");
    }
    let r = request(
        addr,
        "GET",
        "/api/runs/r1/events",
        &[("Last-Event-ID", "x")],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
    // A run in progress: refused too, and the run goes on and ends.
    let mut live = start_run(addr, "t2", "r2", "long 2000").await;
    live.next_event().await.unwrap();
    let r = request(
        addr,
        "GET",
        "/api/runs/r2/events",
        &[("Last-Event-ID", "18446744073709551615")],
        None,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        live.read_run().await.last().unwrap()["type"],
        "RUN_FINISHED"
    );
    wait_until(Duration::from_secs(5), "the run ended", || {
        !state.runs.is_active("r2")
    })
    .await;
}

#[tokio::test]
async fn observers_per_user_are_capped_and_released_when_they_go() {
    let (addr, _) = start_server(&["--max-observers-per-user", "2"]).await;
    let a = open_sse(addr, "GET", "/api/ag-ui/stream", None).await;
    let b = open_sse(addr, "GET", "/api/ag-ui/stream", None).await;
    assert_eq!((a.status(), b.status()), (200, 200));
    let r = request(addr, "GET", "/api/ag-ui/stream", &[], None).await;
    assert_eq!(r.status, 429, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "too_many_observers");
    drop(a);
    let mut ok = false;
    for _ in 0..100 {
        let c = open_sse(addr, "GET", "/api/ag-ui/stream", None).await;
        if c.status() == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ok, "the closed observer's slot came back");
}

/// Read whatever the server sends until it closes the connection (or `within` passes).
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> (String, bool) {
    let mut buf = Vec::new();
    let deadline = Instant::now() + within;
    let mut tmp = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut tmp)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&buf).into(), true),
            Ok(Ok(n)) => buf.extend_from_slice(&tmp[..n]),
            Err(_) => return (String::from_utf8_lossy(&buf).into(), false),
        }
    }
}

/// A POST of `body` to agent `agent` as raw bytes, announcing `length` bytes (which may differ
/// from the body's, on purpose), with `headers` (each ending in CRLF) added.
fn raw_post(
    addr: std::net::SocketAddr,
    agent: &str,
    length: usize,
    headers: &str,
    body: &str,
) -> Vec<u8> {
    format!(
        "POST /api/agents/{agent} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n{headers}\r\n{body}"
    )
    .into_bytes()
}

/// On raw sockets: the requests are unfinished on purpose (headers that never end, a body
/// announced and never sent, a kept-alive connection left idle), which no HTTP client sends.
#[tokio::test]
async fn slow_headers_and_missing_bodies_are_timed_out() {
    let (addr, _) = start_server(&["--header-timeout", "1", "--body-timeout", "1"]).await;
    // Headers trickling in, never finished.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let (_, closed) = read_until_closed(&mut slow, Duration::from_secs(10)).await;
    assert!(
        closed,
        "a connection that never finishes its headers is closed"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // An idle keep-alive connection after one request.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let (text, closed) = read_until_closed(&mut idle, Duration::from_secs(10)).await;
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(closed, "an idle keep-alive connection is closed");
    // A body announced and never sent.
    let mut nobody = TcpStream::connect(addr).await.unwrap();
    nobody
        .write_all(&raw_post(addr, "demo", 1000, "", "{"))
        .await
        .unwrap();
    let (text, _) = read_until_closed(&mut nobody, Duration::from_secs(10)).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    // The server still serves.
    let (status, _) = get(addr, "/healthz").await;
    assert_eq!(status, 200);
}

/// The accept loop tells HTTP/2 (prior knowledge, no TLS) from HTTP/1.1 by peeking at the
/// first bytes: both are served, a request line split across packets is still HTTP/1.1, and a
/// client that sends nothing, or only the start of the HTTP/2 preface, is closed at the header
/// timeout.
#[tokio::test]
async fn connections_are_told_apart_by_their_first_bytes() {
    let (addr, _) = start_server(&["--header-timeout", "1"]).await;
    // HTTP/2 with prior knowledge, by a real client.
    let h2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let resp = h2
        .get(format!("http://{addr}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_2);
    assert_eq!(resp.status(), 200);
    // HTTP/1.1 whose first packet is one byte of "POST", which could still be the preface.
    let mut split = TcpStream::connect(addr).await.unwrap();
    split.write_all(b"P").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    split
        .write_all(&raw_post(addr, "nobody", 2, "Connection: close\r\n", "{}")[1..])
        .await
        .unwrap();
    let (text, _) = read_until_closed(&mut split, Duration::from_secs(10)).await;
    assert!(text.starts_with("HTTP/1.1 404"), "{text}");
    assert!(text.contains("no agent 'nobody'"), "{text}");
    // Silence, and the start of the preface and then silence: closed at the header timeout.
    for first in [&b""[..], b"PRI * HTTP/2.0\r\n"] {
        let mut quiet = TcpStream::connect(addr).await.unwrap();
        quiet.write_all(first).await.unwrap();
        let started = Instant::now();
        let (text, closed) = read_until_closed(&mut quiet, Duration::from_secs(10)).await;
        assert!(closed, "a connection sending {first:?} is closed");
        assert!(text.is_empty(), "{text}");
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(800) && took < Duration::from_secs(5),
            "{took:?}"
        );
    }
    let (status, _) = get(addr, "/healthz").await;
    assert_eq!(status, 200);
}

#[test]
fn a_second_server_on_the_same_database_refuses_to_start() {
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("agui-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("studio.db");
    let bin = env!("CARGO_BIN_EXE_agui-studio");
    let mut first = Command::new(bin)
        .args(["--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    // Wait for the first to hold the database (its log line says it listens).
    let stderr = first.stdout.take().unwrap();
    let first = Kill(first);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("listening on") {
                let _ = tx.send(());
            }
        }
    });
    let _ = rx.recv_timeout(Duration::from_secs(30));
    let second = Command::new(bin)
        .args(["--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        second.status.code(),
        Some(2),
        "the second server must not start"
    );
    let text = String::from_utf8_lossy(&second.stdout).to_string()
        + &String::from_utf8_lossy(&second.stderr);
    assert!(text.contains("in use by process"), "{text}");
    drop(first);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn runs_in_progress_per_user_are_capped() {
    let (addr, _) = start_server(&["--demo-delay-ms", "20", "--max-runs-per-user", "1"]).await;
    let mut first = start_run(addr, "t1", "r1", "long 100000").await;
    assert_eq!(first.status(), 200);
    first.next_event().await.unwrap();
    // Detached or not, the same user's second run waits for the first.
    let r = request(
        addr,
        "POST",
        "/api/agents/demo",
        &[("X-AGUI-Detach", "true")],
        Some(run_body("t2", "r2", "chat").to_string().as_bytes()),
    )
    .await;
    assert_eq!(r.status, 429, "{}", r.body);
    assert!(r.body.contains("per user"), "{}", r.body);
}
