//! Hostile upstreams over real loopback sockets: a model server and a foreign AG-UI agent,
//! both fakes started by the test, that redirect elsewhere, stream without end, or are sent
//! media URLs that would make them fetch what only they can reach. The studio must not follow
//! redirects (nothing reaches the redirect target, the key least of all), must end an endless
//! stream with `RUN_ERROR UPSTREAM_LIMIT` in bounded time and memory, and must refuse media
//! URLs outside `--llm-image-schemes` with 422 before any stream or upstream request.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{get, open_sse, request, start_server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fakes stream at most: more than any limit under test, so only the studio can stop
/// it early.
const HOSTILE_BYTES: u64 = 300 * 1024 * 1024;
/// The `--max-upstream-bytes` of the tests: small so they are fast.
const LIMIT: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Fakes

/// One request a fake received.
#[derive(Debug, Clone)]
struct Seen {
    /// The request line and headers, as sent.
    head: String,
}

/// A fake HTTP server on loopback: each connection's request is read and recorded, then
/// `answer` writes the response. Stopped when dropped.
struct Fake {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<AtomicUsize>,
    /// Body bytes the answer wrote before the peer went away (for streaming fakes).
    written: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Answer =
    Arc<dyn Fn(TcpStream, Arc<AtomicU64>) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

impl Fake {
    async fn start(answer: Answer) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let (s, c, w) = (seen.clone(), connections.clone(), written.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let (s, w, answer) = (s.clone(), w.clone(), answer.clone());
                tokio::spawn(async move {
                    if let Some(head) = read_request(&mut socket).await {
                        s.lock().unwrap().push(Seen { head });
                        answer(socket, w).await;
                    }
                });
            }
        });
        Fake {
            addr,
            seen,
            connections,
            written,
            task,
        }
    }

    /// A fake that records and answers nothing useful: the redirect target.
    async fn recorder() -> Fake {
        Fake::start(Arc::new(|mut socket, _| {
            Box::pin(async move {
                let _ = socket
                    .write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
            })
        }))
        .await
    }

    /// A fake that answers every request with `status` and `Location: location`.
    async fn redirect(status: &'static str, location: String) -> Fake {
        Fake::start(Arc::new(move |mut socket, _| {
            let head = format!(
                "HTTP/1.1 {status}\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
            Box::pin(async move {
                let _ = socket.write_all(head.as_bytes()).await;
            })
        }))
        .await
    }

    /// A fake that answers with `content_type`, then `opening`, then `frame` repeated until
    /// [`HOSTILE_BYTES`] are written or the peer goes away; the body ends with the connection.
    async fn endless(content_type: &'static str, opening: String, frame: String) -> Fake {
        Fake::start(Arc::new(move |mut socket, written| {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n{opening}"
            );
            // 64 KiB writes: the loop is bounded by HOSTILE_BYTES / 64 KiB iterations.
            let batch = frame.repeat((64 * 1024 / frame.len()).max(1));
            Box::pin(async move {
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                while written.load(Ordering::SeqCst) < HOSTILE_BYTES {
                    if socket.write_all(batch.as_bytes()).await.is_err() {
                        return;
                    }
                    written.fetch_add(batch.len() as u64, Ordering::SeqCst);
                }
            })
        }))
        .await
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Read a request's head and its `Content-Length` body; the head is returned.
async fn read_request(socket: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 16 * 1024];
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        // A request head is small; a peer that sends more is not one of ours.
        if buf.len() > 1024 * 1024 {
            return None;
        }
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let len: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut have = buf.len() - (end + 4);
    while have < len {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        have += n;
    }
    Some(head)
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn input(run: &str, content: Value) -> Value {
    json!({"threadId": format!("t-{run}"), "runId": run,
           "messages": [{"id": format!("u-{run}"), "role": "user", "content": content}]})
}

/// POST a run and read it to its terminal event (which must come within `within`).
async fn run(addr: SocketAddr, agent: &str, body: &Value, within: Duration) -> Vec<Value> {
    let read = async {
        let mut sse = open_sse(
            addr,
            "POST",
            &format!("/api/agents/{agent}"),
            Some(&body.to_string()),
        )
        .await;
        assert_eq!(sse.status(), 200);
        sse.read_run().await
    };
    tokio::time::timeout(within, read)
        .await
        .unwrap_or_else(|_| panic!("the run did not end within {within:?}"))
}

/// The code and message of the run's terminal `RUN_ERROR`.
fn run_error(events: &[Value]) -> (String, String) {
    let last = events.last().unwrap();
    assert_eq!(
        last["type"],
        "RUN_ERROR",
        "{:#?}",
        &events[events.len().saturating_sub(3)..]
    );
    (
        last["code"].as_str().unwrap_or_default().to_string(),
        last["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// This process's resident memory, in bytes (the server runs in it).
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap()
}

/// `/healthz` answers within a second.
async fn healthy(addr: SocketAddr) {
    let (status, _) = tokio::time::timeout(Duration::from_secs(1), get(addr, "/healthz"))
        .await
        .expect("/healthz answered within a second");
    assert_eq!(status, 200);
}

/// An endless stream was cut off near the limit: the fake could not write much more than the
/// limit (plus what socket buffers hold) before the studio closed the connection.
fn assert_cut_early(fake: &Fake) {
    let written = fake.written.load(Ordering::SeqCst);
    assert!(
        written < 64 * 1024 * 1024,
        "the upstream wrote {written} bytes before the studio stopped reading"
    );
}

// ---------------------------------------------------------------------------------------------
// Redirects

#[tokio::test]
async fn a_model_server_redirect_is_not_followed_and_the_key_stays_home() {
    let target = Fake::recorder().await;
    for status in [
        "302 Found",
        "307 Temporary Redirect",
        "308 Permanent Redirect",
    ] {
        let location = format!("http://{}/v1/chat/completions", target.addr);
        let model = Fake::redirect(status, location).await;
        let spec = format!(
            "gpt=http://{}/v1,model=m,key=sk-redirect-secret-42",
            model.addr
        );
        let (addr, _) = start_server(&["--agents", "", "--llm", &spec]).await;
        let events = run(
            addr,
            "gpt",
            &input("r1", json!("hi")),
            Duration::from_secs(20),
        )
        .await;
        let (code, message) = run_error(&events);
        assert_eq!(code, "LLM_HTTP_ERROR", "{status}: {message}");
        let number = &status[..3];
        assert!(
            message.contains(number) && message.contains("redirects are not followed"),
            "{status}: {message}"
        );
        assert!(!message.contains("sk-redirect-secret-42"));
        // The model server itself got the key (it is the configured one) …
        assert_eq!(model.seen().len(), 1);
        assert!(model.seen()[0].head.contains("sk-redirect-secret-42"));
    }
    // … the target of its redirects got nothing at all: no connection, no key, no body.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(target.connections.load(Ordering::SeqCst), 0);
    assert!(target.seen().is_empty());
}

#[tokio::test]
async fn a_foreign_agent_redirect_is_not_followed_and_its_headers_stay_home() {
    let target = Fake::recorder().await;
    for status in ["302 Found", "307 Temporary Redirect"] {
        let foreign = Fake::redirect(status, format!("http://{}/agent", target.addr)).await;
        let spec = format!(
            "f=http://{}/agent,header=X-Api-Key:foreign-secret-7",
            foreign.addr
        );
        let (addr, _) = start_server(&["--agents", "", "--proxy", &spec]).await;
        let events = run(
            addr,
            "f",
            &input("r1", json!("hi")),
            Duration::from_secs(20),
        )
        .await;
        let (code, message) = run_error(&events);
        assert_eq!(code, "FOREIGN_HTTP_ERROR", "{status}: {message}");
        assert!(
            message.contains(&status[..3]) && message.contains("redirects are not followed"),
            "{status}: {message}"
        );
        assert!(foreign.seen()[0].head.contains("foreign-secret-7"));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(target.connections.load(Ordering::SeqCst), 0);
}

// ---------------------------------------------------------------------------------------------
// Bounded upstream streams

/// A Chat Completions chunk of about 1 KB of text.
fn llm_frame() -> String {
    let chunk = json!({"id": "c", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {"content": "x".repeat(1000)}, "finish_reason": null}]});
    format!("data: {chunk}\n\n")
}

/// The attack as reported (a 150 MB model answer) against the defaults: no flag, the run is
/// cut at the default bound (64 MiB).
#[tokio::test]
async fn a_150_mb_model_answer_is_refused_by_the_defaults() {
    let model = Fake::endless("text/event-stream", String::new(), llm_frame()).await;
    let spec = format!("gpt=http://{}/v1,model=m", model.addr);
    let (addr, _) = start_server(&["--agents", "", "--llm", &spec]).await;
    let events = run(
        addr,
        "gpt",
        &input("r1", json!("hi")),
        Duration::from_secs(120),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    let text: usize = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap().len())
        .sum();
    // Cut at the default (64 MiB of upstream bytes), far below the 150 MB sent.
    assert!(text <= 64 << 20, "{text}");
}

#[tokio::test]
async fn an_endless_model_answer_ends_with_upstream_limit() {
    let model = Fake::endless("text/event-stream", String::new(), llm_frame()).await;
    let spec = format!("gpt=http://{}/v1,model=m", model.addr);
    let limit = LIMIT.to_string();
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--llm",
        &spec,
        "--max-upstream-bytes",
        &limit,
    ])
    .await;
    let before = rss();
    let started = Instant::now();
    let events = run(
        addr,
        "gpt",
        &input("r1", json!("hi")),
        Duration::from_secs(60),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    assert!(message.contains("--max-upstream-bytes"), "{message}");
    // What was relayed is at most the limit, and the text message was closed.
    let text: usize = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap().len())
        .sum();
    assert!(text > 0 && (text as u64) <= LIMIT, "{text}");
    assert!(events.iter().any(|e| e["type"] == "TEXT_MESSAGE_END"));
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(rss().saturating_sub(before) < 128 * 1024 * 1024);
    healthy(addr).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_cut_early(&model);
}

#[tokio::test]
async fn a_model_answer_of_too_many_chunks_ends_with_upstream_limit() {
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": "a"}}]});
    let model = Fake::endless(
        "text/event-stream",
        String::new(),
        format!("data: {chunk}\n\n"),
    )
    .await;
    let spec = format!("gpt=http://{}/v1", model.addr);
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--llm",
        &spec,
        "--max-upstream-events",
        "100",
    ])
    .await;
    let events = run(
        addr,
        "gpt",
        &input("r1", json!("hi")),
        Duration::from_secs(30),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    assert!(message.contains("--max-upstream-events"), "{message}");
    let deltas = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .count();
    assert_eq!(deltas, 100);
    healthy(addr).await;
}

#[tokio::test]
async fn a_whole_json_answer_past_the_byte_limit_ends_with_upstream_limit() {
    // Some servers answer `stream: true` with one JSON completion; that body is bounded too.
    let answer = json!({"object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": "y".repeat(2 * LIMIT as usize)},
        "finish_reason": "stop"}]})
    .to_string();
    let model = Fake::start(Arc::new(move |mut socket, _| {
        let out = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        );
        Box::pin(async move {
            let _ = socket.write_all(out.as_bytes()).await;
        })
    }))
    .await;
    let spec = format!("gpt=http://{}/v1", model.addr);
    let limit = LIMIT.to_string();
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--llm",
        &spec,
        "--max-upstream-bytes",
        &limit,
    ])
    .await;
    let events = run(
        addr,
        "gpt",
        &input("r1", json!("hi")),
        Duration::from_secs(30),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    assert!(!events.iter().any(|e| e["type"] == "TEXT_MESSAGE_CONTENT"));
}

#[tokio::test]
async fn an_endless_foreign_stream_ends_with_upstream_limit() {
    let opening = [
        json!({"type": "RUN_STARTED", "threadId": "t-r1", "runId": "r1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
    ]
    .iter()
    .map(|e| format!("data: {e}\n\n"))
    .collect::<String>();
    let frame = format!(
        "data: {}\n\n",
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "z".repeat(1000)})
    );
    let foreign = Fake::endless("text/event-stream", opening, frame).await;
    let spec = format!("f=http://{}/agent", foreign.addr);
    let limit = LIMIT.to_string();
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--proxy",
        &spec,
        "--max-upstream-bytes",
        &limit,
    ])
    .await;
    let before = rss();
    let started = Instant::now();
    let events = run(
        addr,
        "f",
        &input("r1", json!("hi")),
        Duration::from_secs(60),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    assert!(message.contains("--max-upstream-bytes"), "{message}");
    let text: usize = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap().len())
        .sum();
    assert!(text > 0 && (text as u64) <= LIMIT, "{text}");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(rss().saturating_sub(before) < 128 * 1024 * 1024);
    healthy(addr).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_cut_early(&foreign);
}

#[tokio::test]
async fn a_foreign_stream_of_too_many_events_ends_with_upstream_limit() {
    let opening = format!(
        "data: {}\n\n",
        json!({"type": "RUN_STARTED", "threadId": "t-r1", "runId": "r1"})
    );
    let frame = format!(
        "data: {}\n\n",
        json!({"type": "CUSTOM", "name": "tick", "value": 1})
    );
    let foreign = Fake::endless("text/event-stream", opening, frame).await;
    let spec = format!("f=http://{}/agent", foreign.addr);
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--proxy",
        &spec,
        "--max-upstream-events",
        "50",
    ])
    .await;
    let events = run(
        addr,
        "f",
        &input("r1", json!("hi")),
        Duration::from_secs(30),
    )
    .await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "UPSTREAM_LIMIT", "{message}");
    assert!(message.contains("--max-upstream-events"), "{message}");
    assert!(events.iter().filter(|e| e["type"] == "CUSTOM").count() < 50);
    healthy(addr).await;
}

// ---------------------------------------------------------------------------------------------
// Media URLs sent to a model

/// A model server that answers every request with a short, complete answer.
async fn polite_model() -> Fake {
    let body = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
    .iter()
    .map(|c| format!("data: {c}\n\n"))
    .collect::<String>()
        + "data: [DONE]\n\n";
    Fake::start(Arc::new(move |mut socket, _| {
        let out = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        Box::pin(async move {
            let _ = socket.write_all(out.as_bytes()).await;
        })
    }))
    .await
}

fn with_image(run: &str, url: &str) -> Value {
    input(
        run,
        json!([{"type": "text", "text": "What is this?"},
               {"type": "image", "source": {"type": "url", "value": url}}]),
    )
}

#[tokio::test]
async fn image_urls_outside_the_allowed_schemes_are_refused_before_the_stream() {
    let model = polite_model().await;
    let spec = format!("gpt=http://{}/v1", model.addr);
    let (addr, _) = start_server(&["--agents", "", "--llm", &spec]).await;
    for (i, (url, scheme)) in [
        ("http://169.254.169.254/latest/meta-data/iam/", "http"),
        ("file:///etc/passwd", "file"),
    ]
    .into_iter()
    .enumerate()
    {
        let body = with_image(&format!("bad{i}"), url).to_string();
        let r = request(addr, "POST", "/api/agents/gpt", &[], Some(body.as_bytes())).await;
        assert_eq!(r.status, 422, "{url}: {}", r.body);
        let message = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains(&format!("scheme '{scheme}'")) && message.contains("part 1 (image)"),
            "{message}"
        );
        // Refused before anything was stored: the thread does not exist.
        let (status, _) = get(addr, &format!("/api/threads/t-bad{i}")).await;
        assert_eq!(status, 404);
    }
    assert!(model.seen().is_empty(), "the model server was never asked");
    // `https:` and `data:` URLs are forwarded.
    for (i, url) in [
        "https://example.com/cat.jpg",
        "data:image/png;base64,iVBORw0KGgo=",
    ]
    .into_iter()
    .enumerate()
    {
        let events = run(
            addr,
            "gpt",
            &with_image(&format!("ok{i}"), url),
            Duration::from_secs(20),
        )
        .await;
        assert_eq!(
            events.last().unwrap()["type"],
            "RUN_FINISHED",
            "{url}: {events:#?}"
        );
    }
    assert_eq!(model.seen().len(), 2);
}

#[tokio::test]
async fn the_allowed_image_schemes_are_configurable() {
    let model = polite_model().await;
    let spec = format!("gpt=http://{}/v1", model.addr);
    let (addr, _) = start_server(&[
        "--agents",
        "",
        "--llm",
        &spec,
        "--llm-image-schemes",
        "https",
    ])
    .await;
    let body = with_image("d", "data:image/png;base64,iVBORw0KGgo=").to_string();
    let r = request(addr, "POST", "/api/agents/gpt", &[], Some(body.as_bytes())).await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("scheme 'data'"), "{}", r.body);
    let events = run(
        addr,
        "gpt",
        &with_image("h", "https://example.com/x.png"),
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn a_thread_history_with_a_refused_url_ends_the_model_run_with_invalid_input() {
    // Another agent of the thread took the URL (only the model's requests are checked); a
    // client that then sends only its new message still must not get it to the model.
    let model = polite_model().await;
    let spec = format!("gpt=http://{}/v1", model.addr);
    let (addr, _) = start_server(&["--demo-delay-ms", "0", "--llm", &spec]).await;
    let first = with_image("h1", "http://169.254.169.254/latest/meta-data/");
    let events = run(addr, "demo", &first, Duration::from_secs(20)).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let second = json!({"threadId": "t-h1", "runId": "h2",
        "messages": [{"id": "u-h2", "role": "user", "content": "and now?"}]});
    let events = run(addr, "gpt", &second, Duration::from_secs(20)).await;
    let (code, message) = run_error(&events);
    assert_eq!(code, "INVALID_INPUT", "{message}");
    assert!(
        message.contains("message 'u-h1', part 1 (image)") && message.contains("scheme 'http'"),
        "{message}"
    );
    assert!(model.seen().is_empty(), "the model server was never asked");
}

#[tokio::test]
async fn an_endless_line_ends_the_run_with_upstream_limit() {
    // One `data:` line that never ends: the decoder's line limit (10 MiB) is the bound here,
    // well below the default byte limit.
    let endless_line = || Fake::endless("text/event-stream", "data: ".into(), "x".repeat(65536));
    let model = endless_line().await;
    let foreign = endless_line().await;
    let llm = format!("gpt=http://{}/v1", model.addr);
    let proxy = format!("f=http://{}/agent", foreign.addr);
    let (addr, _) = start_server(&["--agents", "", "--llm", &llm, "--proxy", &proxy]).await;
    for agent in ["gpt", "f"] {
        let events = run(
            addr,
            agent,
            &input(agent, json!("hi")),
            Duration::from_secs(60),
        )
        .await;
        let (code, message) = run_error(&events);
        assert_eq!(code, "UPSTREAM_LIMIT", "{agent}: {message}");
        assert!(message.contains("line"), "{agent}: {message}");
    }
    healthy(addr).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_cut_early(&model);
    assert_cut_early(&foreign);
}
