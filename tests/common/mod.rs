//! Shared helpers for the socket tests: start the app on a loopback port, and a minimal
//! HTTP/1.1 client (no dependencies beyond tokio) that can send JSON and read a streaming SSE
//! body — `Content-Length`, chunked or read-to-close — frame by frame, comments included.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use agui_studio::protocol::pipeline::{Pipeline, PipelineOptions};
use agui_studio::protocol::sse::{Decoder, SseFrame};
use agui_studio::protocol::types::{Message, RunAgentInput};
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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
    let limits = agui_studio::server::listen::ListenLimits {
        header_timeout: state.config.header_timeout,
        max_connections: state.config.max_connections,
    };
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

/// Any request: `body` is sent as `application/json` when given.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra_headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> HttpResponse {
    let mut conn = HttpConn::send(addr, method, path, extra_headers, body).await;
    let mut bytes = Vec::new();
    while let Some(chunk) = conn.next_body_bytes().await {
        bytes.extend_from_slice(&chunk);
    }
    HttpResponse {
        status: conn.status,
        headers: conn.headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
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

/// How the response body is delimited.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
    Done,
}

/// One HTTP/1.1 exchange on its own connection (`Connection: close`).
pub struct HttpConn {
    stream: TcpStream,
    buf: Vec<u8>,
    framing: Framing,
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl HttpConn {
    /// Connect, send the request and read the status line and headers.
    pub async fn send(
        addr: SocketAddr,
        method: &str,
        path: &str,
        extra_headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> HttpConn {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in extra_headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(b) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        if let Some(b) = body {
            stream.write_all(b).await.unwrap();
        }
        let mut conn = HttpConn {
            stream,
            buf: Vec::new(),
            framing: Framing::UntilClose,
            status: 0,
            headers: Vec::new(),
        };
        conn.read_head().await;
        conn
    }

    async fn fill(&mut self) -> bool {
        let mut tmp = [0u8; 16 * 1024];
        let n = tokio::time::timeout(TIMEOUT, self.stream.read(&mut tmp))
            .await
            .expect("the server answered in time")
            .unwrap_or(0);
        self.buf.extend_from_slice(&tmp[..n]);
        n > 0
    }

    async fn read_head(&mut self) {
        let end = loop {
            if let Some(p) = find(&self.buf, b"\r\n\r\n") {
                break p;
            }
            assert!(self.fill().await, "connection closed before the headers");
        };
        let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
        self.buf.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        self.status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line: {status_line}"));
        self.headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = header(&self.headers, "transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let length = header(&self.headers, "content-length").and_then(|v| v.parse().ok());
        self.framing = match (chunked, length) {
            (true, _) => Framing::Chunked,
            (false, Some(n)) => Framing::Length(n),
            (false, None) => Framing::UntilClose,
        };
    }

    /// The next piece of the (de-chunked) body; None at its end.
    pub async fn next_body_bytes(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.framing {
                Framing::Done => return None,
                Framing::Length(0) => {
                    self.framing = Framing::Done;
                    return None;
                }
                Framing::Length(rem) => {
                    if self.buf.is_empty() && !self.fill().await {
                        self.framing = Framing::Done;
                        return None;
                    }
                    let take = rem.min(self.buf.len());
                    self.framing = Framing::Length(rem - take);
                    return Some(self.buf.drain(..take).collect());
                }
                Framing::UntilClose => {
                    if self.buf.is_empty() && !self.fill().await {
                        self.framing = Framing::Done;
                        return None;
                    }
                    return Some(std::mem::take(&mut self.buf));
                }
                Framing::Chunked => {
                    if let Some(pos) = find(&self.buf, b"\r\n") {
                        let line = String::from_utf8_lossy(&self.buf[..pos]).into_owned();
                        let size_text = line.split(';').next().unwrap_or("").trim();
                        let size = usize::from_str_radix(size_text, 16)
                            .unwrap_or_else(|_| panic!("bad chunk size line: {line:?}"));
                        if size == 0 {
                            self.framing = Framing::Done;
                            return None;
                        }
                        let need = pos + 2 + size + 2;
                        if self.buf.len() >= need {
                            let data = self.buf[pos + 2..pos + 2 + size].to_vec();
                            self.buf.drain(..need);
                            return Some(data);
                        }
                    }
                    if !self.fill().await {
                        // Closed mid-body: a truncated stream ends here.
                        self.framing = Framing::Done;
                        return None;
                    }
                }
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
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
