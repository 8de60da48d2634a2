//! Shared helpers for the socket tests: start the app on a loopback port, and an HTTP client
//! over `reqwest` that can send JSON and read a streaming body piece by piece as it arrives —
//! an SSE body frame by frame through the crate's own decoder, comments included.
//!
//! Every exchange is a connection of its own (`Connection: close`, nothing pooled), redirects are
//! not followed and bodies are not decompressed, so a test sees the server's answer as it was
//! sent. Tests that send malformed or unfinished HTTP (slow headers, a body announced and never
//! sent, exact `Host` lines) write their bytes on a raw socket of their own instead.
#![allow(dead_code)]

pub mod caps;
pub mod mcp;
pub mod model;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use agui_studio::protocol::pipeline::{Pipeline, PipelineOptions};
use agui_studio::protocol::sse::{Decoder, SseFrame};
use agui_studio::protocol::types::{Message, RunAgentInput};
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use serde_json::Value;

/// Run `f` on one multi-threaded runtime shared by every test of the binary that uses it, one
/// test at a time. Several servers rendering Leptos pages at once in one process (each test
/// starts its own) hang now and then — about one run in five of tests/access.rs, always on a
/// page load; one test at a time, 0 in 12 runs. A deployed server is one per process, and the
/// hostile suite, which loads pages from servers in processes of their own, never hung.
pub fn run<F: std::future::Future>(f: F) -> F::Output {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    })
    .block_on(f)
}

/// How long any single read in these helpers may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Start the app on 127.0.0.1 with a free port and the given flags (without the program
/// name); the server task ends with the test runtime.
pub async fn start_server(args: &[&str]) -> (SocketAddr, AppState) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // An in-memory database unless the test names one (later flags win).
    let argv = ["agui-studio", "--db", ":memory:"]
        .into_iter()
        .chain(args.iter().copied());
    let cli = Cli::parse_from(argv);
    let state = AppState::new(&cli.serve).await.unwrap();
    let router = app(state.clone());
    // The binary's own accept loop (header and idle timeouts, connection cap).
    let limits = agui_studio::server::listen_limits(&state);
    tokio::spawn(async move {
        agui_studio::server::listen::serve(
            listener,
            router,
            limits,
            std::future::pending::<()>(),
            Duration::from_secs(1),
        )
        .await
        .unwrap()
    });
    (addr, state)
}

/// A whole response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let name = name.to_ascii_lowercase();
    headers
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

/// Any request: `body` is sent as `application/json` unless `extra_headers` name a
/// `Content-Type` of their own (then only theirs).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra_headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> HttpResponse {
    HttpConn::send(addr, method, path, extra_headers, body)
        .await
        .read_to_end()
        .await
}

/// Like [`request`], but with exactly these headers: a body goes without a `Content-Type`
/// unless `headers` give one.
pub async fn request_exact(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> HttpResponse {
    HttpConn::send_exact(addr, method, path, headers, body)
        .await
        .read_to_end()
        .await
}

/// `GET path` → (status, body).
pub async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let r = request(addr, "GET", path, &[], None).await;
    (r.status, r.body)
}

/// `POST path` with a JSON body → (status, body).
pub async fn post_json(addr: SocketAddr, path: &str, body: &Value) -> (u16, String) {
    post_raw(addr, path, &body.to_string()).await
}

/// `POST path` with these exact body bytes, labelled `application/json` → (status, body).
pub async fn post_raw(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let r = request(addr, "POST", path, &[], Some(body.as_bytes())).await;
    (r.status, r.body)
}

/// Parse a response body as JSON (panics with the text if it is not).
pub fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// The client every exchange goes through: no pooled connections (each exchange connects, and a
/// dropped [`HttpConn`] closes its connection), no proxy from the environment, no redirects
/// followed, no decompression (none of reqwest's compression features is on). It holds no
/// runtime of its own: each connection's task runs on the runtime of the test that opened it,
/// so the one client serves `common::run` and every `#[tokio::test]` runtime alike.
fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client")
    })
}

/// An error with its causes (reqwest's own message alone names only the URL).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// One HTTP/1.1 exchange on its own connection (`Connection: close`); the body is read as it
/// arrives.
pub struct HttpConn {
    response: reqwest::Response,
    what: String,
    ended: bool,
    /// Why the body ended early, when it did (the connection closed or reset mid-body).
    pub body_error: Option<String>,
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl HttpConn {
    /// Connect, send the request and read the status line and headers. A body goes as
    /// `application/json` unless `extra_headers` name a `Content-Type` of their own.
    pub async fn send(
        addr: SocketAddr,
        method: &str,
        path: &str,
        extra_headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> HttpConn {
        let typed = extra_headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        let mut headers = extra_headers.to_vec();
        if body.is_some() && !typed {
            headers.push(("Content-Type", "application/json"));
        }
        Self::send_exact(addr, method, path, &headers, body).await
    }

    /// Like [`send`](Self::send), but with exactly these headers (besides `Connection: close`,
    /// and `Content-Length` with a body): no `Content-Type` is added.
    pub async fn send_exact(
        addr: SocketAddr,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> HttpConn {
        let what = format!("{method} {path}");
        let url = reqwest::Url::parse(&format!("http://{addr}{path}"))
            .unwrap_or_else(|e| panic!("{what}: not a URL path ({e})"));
        let sent = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        assert_eq!(
            sent, path,
            "{what}: the client would send another path; write such a request on a raw socket"
        );
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .unwrap_or_else(|e| panic!("{what}: not a method ({e})"));
        let mut req = client()
            .request(method, url)
            .header(reqwest::header::CONNECTION, "close");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            // Also for an empty body, as a hand-written request would say.
            req = req
                .header(reqwest::header::CONTENT_LENGTH, b.len())
                .body(b.to_vec());
        }
        let response = tokio::time::timeout(TIMEOUT, req.send())
            .await
            .unwrap_or_else(|_| panic!("{what}: no response head within {TIMEOUT:?}"))
            .unwrap_or_else(|e| panic!("{what}: {}", error_chain(&e)));
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        HttpConn {
            status: response.status().as_u16(),
            headers,
            response,
            what,
            ended: false,
            body_error: None,
        }
    }

    /// The next piece of the body as it arrives (de-chunked); None at its end, or when the
    /// connection closed mid-body (a truncated stream ends there; see `body_error`). Panics
    /// after [`TIMEOUT`] of silence.
    pub async fn next_body_bytes(&mut self) -> Option<Vec<u8>> {
        while !self.ended {
            let next = tokio::time::timeout(TIMEOUT, self.response.chunk())
                .await
                .unwrap_or_else(|_| panic!("{}: no body bytes within {TIMEOUT:?}", self.what));
            match next {
                Ok(Some(bytes)) if bytes.is_empty() => {}
                Ok(Some(bytes)) => return Some(bytes.to_vec()),
                Ok(None) => self.ended = true,
                Err(e) => {
                    self.ended = true;
                    self.body_error = Some(error_chain(&e));
                }
            }
        }
        None
    }

    /// The rest of the body, and the response as a whole.
    pub async fn read_to_end(mut self) -> HttpResponse {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_body_bytes().await {
            bytes.extend_from_slice(&chunk);
        }
        HttpResponse {
            status: self.status,
            headers: self.headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }
}

/// What an SSE body yields: a comment line (text after `:` and one space) or a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    Comment(String),
    Frame(SseFrame),
}

/// A streaming SSE response read incrementally with the crate's own decoder.
pub struct SseReader {
    conn: HttpConn,
    decoder: Decoder,
    line: Vec<u8>,
    queue: VecDeque<SseItem>,
    ended: bool,
    /// Every body byte seen so far, as text.
    pub raw: String,
}

/// Open an SSE response: `body` is JSON sent with the request (for `POST`).
pub async fn open_sse(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> SseReader {
    let conn = HttpConn::send(
        addr,
        method,
        path,
        &[("Accept", "text/event-stream")],
        body.map(str::as_bytes),
    )
    .await;
    SseReader {
        conn,
        decoder: Decoder::new(),
        line: Vec::new(),
        queue: VecDeque::new(),
        ended: false,
        raw: String::new(),
    }
}

impl SseReader {
    pub fn status(&self) -> u16 {
        self.conn.status
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.conn.headers, name)
    }

    /// The next comment or frame; None when the body ended. Panics after [`TIMEOUT`] of
    /// silence.
    pub async fn next_item(&mut self) -> Option<SseItem> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            if self.ended {
                return None;
            }
            match self.conn.next_body_bytes().await {
                Some(bytes) => self.feed(&bytes),
                None => {
                    self.ended = true;
                    let rest = std::mem::take(&mut self.line);
                    if !rest.is_empty() {
                        self.feed_line(&rest);
                    }
                    let frames = self.decoder.finish().expect("valid SSE");
                    self.queue.extend(frames.into_iter().map(SseItem::Frame));
                }
            }
        }
    }

    /// Like [`next_item`](Self::next_item) but gives up after `wait`: `Err(())` on timeout.
    pub async fn next_item_within(&mut self, wait: Duration) -> Result<Option<SseItem>, ()> {
        tokio::time::timeout(wait, self.next_item())
            .await
            .map_err(|_| ())
    }

    /// The next frame, skipping comments.
    pub async fn next_frame(&mut self) -> Option<SseFrame> {
        loop {
            match self.next_item().await? {
                SseItem::Frame(f) => return Some(f),
                SseItem::Comment(_) => {}
            }
        }
    }

    /// The next frame's data as JSON, skipping comments.
    pub async fn next_event(&mut self) -> Option<Value> {
        let f = self.next_frame().await?;
        Some(json_of(&f.data))
    }

    /// The next comment, skipping frames.
    pub async fn next_comment(&mut self) -> Option<String> {
        loop {
            match self.next_item().await? {
                SseItem::Comment(c) => return Some(c),
                SseItem::Frame(_) => {}
            }
        }
    }

    /// Events up to and including the first `RUN_FINISHED` or `RUN_ERROR`.
    pub async fn read_run(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(e) = self.next_event().await {
            let end = matches!(e["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR"));
            out.push(e);
            if end {
                return out;
            }
        }
        panic!("the stream ended before the run did: {out:?}");
    }

    /// Every remaining frame until the body ends.
    pub async fn frames_to_end(&mut self) -> Vec<SseFrame> {
        let mut out = Vec::new();
        while let Some(f) = self.next_frame().await {
            out.push(f);
        }
        out
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.raw.push_str(&String::from_utf8_lossy(bytes));
        self.line.extend_from_slice(bytes);
        // Our server ends lines with LF only; comments are recognised per line, everything
        // else goes through the real decoder (which skips comments itself).
        while let Some(pos) = self.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.line.drain(..=pos).collect();
            self.feed_line(&line);
        }
    }

    fn feed_line(&mut self, line: &[u8]) {
        if let Some(rest) = line.strip_prefix(b":") {
            let text = String::from_utf8_lossy(rest);
            let text = text.trim_end_matches(['\n', '\r']);
            let text = text.strip_prefix(' ').unwrap_or(text);
            self.queue.push_back(SseItem::Comment(text.to_string()));
            return;
        }
        let frames = self.decoder.push(line).expect("valid SSE");
        self.queue.extend(frames.into_iter().map(SseItem::Frame));
    }
}

/// Wait until `cond` holds, polling every 10 ms; panics with `what` after `within`.
pub async fn wait_until(within: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !cond() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Read a run's response to its end through our client pipeline, starting from the request
/// `body` (its messages and state): every event as JSON, and the pipeline after `finish`.
/// Every event must carry an SSE id.
pub async fn read_through_pipeline(sse: &mut SseReader, body: &Value) -> (Vec<Value>, Pipeline) {
    let input: RunAgentInput = serde_json::from_value(body.clone()).unwrap();
    let mut p = Pipeline::for_input(&input, PipelineOptions::default());
    let mut events = Vec::new();
    for f in sse.frames_to_end().await {
        assert!(f.id.is_some(), "every event carries an SSE id");
        let v: Value = serde_json::from_str(&f.data).unwrap();
        events.push(v.clone());
        p.push_value(None, v);
    }
    p.finish();
    (events, p)
}

/// The text of the conversation's assistant messages, concatenated in order.
pub fn assistant_text(p: &Pipeline) -> String {
    p.conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.content.clone(),
            _ => None,
        })
        .collect()
}

/// A helper process a test starts (a foreign agent), listening on 127.0.0.1; killed by its PID
/// (through the handle) when dropped, so a failing test does not leave it running.
pub struct PortProcess {
    pub child: std::process::Child,
    pub addr: SocketAddr,
}

impl Drop for PortProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawn `cmd` (stdout captured, stderr inherited) and wait, at most 30 s, for the line
/// `PORT <n>` it prints first once it listens; `what` names it in failures.
pub fn start_printing_port(mut cmd: std::process::Command, what: &str) -> PortProcess {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    // From here on a panic kills the child.
    let mut process = PortProcess {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
    };
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what} printed its port within 30 s"));
    let port: u16 = line
        .strip_prefix("PORT ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("{what} did not print its port: {line:?}"));
    process.addr.set_port(port);
    process
}
