//! End-to-end throughput of the server: the app runs in-process on a loopback port, and a raw
//! HTTP/1.1 client (tokio TcpStream, chunked transfer decoding by hand) posts `long` runs of the
//! demo agent and drains the SSE stream. Reports time to first byte, time to the first complete
//! event (RUN_STARTED), events, bytes and events/second for one stream at a time (3 runs, best
//! and median), then the aggregate rate of 4 concurrent streams.
//!
//! Prints figures only; it asserts just that every run completed (its last event is
//! RUN_FINISHED). Run with `cargo bench --features ssr --bench server`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use agui_studio::protocol::sse::Decoder;
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SINGLE_N: usize = 100_000;
const SINGLE_REPEATS: usize = 3;
const CONCURRENT: usize = 4;
const CONCURRENT_N: usize = 25_000;

/// What one streamed run measured.
#[derive(Debug, Clone)]
struct RunStats {
    /// From the start of the connect to the first response byte.
    ttfb: Duration,
    /// From the start of the connect to the first complete SSE event.
    first_event: Duration,
    /// From the start of the connect to the end of the stream.
    total: Duration,
    /// `data:` frames decoded.
    events: usize,
    /// Body bytes after chunked decoding (the SSE text).
    bytes: usize,
    first_type: String,
    last_type: String,
}

impl RunStats {
    fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.total.as_secs_f64()
    }
}

/// Incremental decoder of `Transfer-Encoding: chunked`.
struct Dechunker {
    buf: Vec<u8>,
    pos: usize,
    state: ChunkState,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ChunkState {
    Size,
    Data(usize),
    DataEnd,
    Done,
}

impl Dechunker {
    fn new() -> Self {
        Dechunker {
            buf: Vec::new(),
            pos: 0,
            state: ChunkState::Size,
        }
    }

    fn done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Feed wire bytes; calls `out` with each run of decoded body bytes.
    fn push(&mut self, bytes: &[u8], mut out: impl FnMut(&[u8])) {
        self.buf.extend_from_slice(bytes);
        loop {
            let rest = &self.buf[self.pos..];
            match self.state {
                ChunkState::Done => break,
                ChunkState::Size => {
                    let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
                        break;
                    };
                    let line = std::str::from_utf8(&rest[..eol]).expect("chunk size line");
                    let hex = line.split(';').next().unwrap().trim();
                    let size = usize::from_str_radix(hex, 16).expect("chunk size");
                    self.pos += eol + 2;
                    // Trailers after the last chunk are not read: the stream is over.
                    self.state = if size == 0 {
                        ChunkState::Done
                    } else {
                        ChunkState::Data(size)
                    };
                }
                ChunkState::Data(n) => {
                    if rest.is_empty() {
                        break;
                    }
                    let take = n.min(rest.len());
                    out(&rest[..take]);
                    self.pos += take;
                    self.state = if take == n {
                        ChunkState::DataEnd
                    } else {
                        ChunkState::Data(n - take)
                    };
                }
                ChunkState::DataEnd => {
                    if rest.len() < 2 {
                        break;
                    }
                    assert_eq!(&rest[..2], b"\r\n", "chunk data not followed by CRLF");
                    self.pos += 2;
                    self.state = ChunkState::Size;
                }
            }
        }
        // Drop what has been consumed once it is the larger part of the buffer.
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
    }
}

fn event_type(data: &str) -> String {
    serde_json::from_str::<Value>(data)
        .ok()
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| format!("<unparsable: {}>", &data[..data.len().min(80)]))
}

/// POST one `long n` run and drain its SSE stream.
async fn run_long(addr: SocketAddr, tag: String, n: usize) -> RunStats {
    let body = json!({
        "threadId": format!("bench-{tag}"),
        "runId": format!("run-{tag}"),
        "messages": [{"id": "u", "role": "user", "content": format!("long {n}")}],
        "forwardedProps": {"scenario": "long"},
    })
    .to_string();
    let request = format!(
        "POST /api/agents/demo HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );

    let start = Instant::now();
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).unwrap();
    stream.write_all(request.as_bytes()).await.expect("send");

    let mut read_buf = vec![0u8; 64 * 1024];
    let mut ttfb = None;
    let mut first_event = None;
    let mut head = Vec::new();
    let mut chunked = None;
    let mut dechunker = Dechunker::new();
    let mut decoder = Decoder::new();
    let mut events = 0usize;
    let mut bytes = 0usize;
    let mut first_type = String::new();
    let mut last_data = String::new();

    // Body bytes into the SSE decoder, counting frames; only the first and the last frame's
    // JSON is parsed, so the client's cost stays small next to the server's.
    let mut feed = |body: &[u8],
                    events: &mut usize,
                    bytes: &mut usize,
                    first_event: &mut Option<Duration>,
                    first_type: &mut String,
                    last_data: &mut String| {
        *bytes += body.len();
        for frame in decoder.push(body).expect("SSE decode") {
            if frame.data.is_empty() {
                continue;
            }
            *events += 1;
            if first_event.is_none() {
                *first_event = Some(start.elapsed());
                *first_type = event_type(&frame.data);
            }
            *last_data = frame.data;
        }
    };

    loop {
        let k = stream.read(&mut read_buf).await.expect("read");
        if k == 0 {
            break;
        }
        if ttfb.is_none() {
            ttfb = Some(start.elapsed());
        }
        let mut data = &read_buf[..k];
        if chunked.is_none() {
            head.extend_from_slice(data);
            let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            let text = String::from_utf8_lossy(&head[..end]).to_lowercase();
            let status = text.get(9..12).unwrap_or("");
            assert_eq!(status, "200", "response head:\n{text}");
            chunked = Some(text.contains("transfer-encoding: chunked"));
            let rest = head.split_off(end + 4);
            let is_chunked = chunked.unwrap();
            let mut sink = |b: &[u8]| {
                feed(
                    b,
                    &mut events,
                    &mut bytes,
                    &mut first_event,
                    &mut first_type,
                    &mut last_data,
                )
            };
            if is_chunked {
                dechunker.push(&rest, &mut sink);
            } else {
                sink(&rest);
            }
            data = &[];
        }
        if data.is_empty() {
            continue;
        }
        let mut sink = |b: &[u8]| {
            feed(
                b,
                &mut events,
                &mut bytes,
                &mut first_event,
                &mut first_type,
                &mut last_data,
            )
        };
        if chunked == Some(true) {
            dechunker.push(data, &mut sink);
            if dechunker.done() {
                break;
            }
        } else {
            sink(data);
        }
    }
    for frame in decoder.finish().expect("SSE decode at end") {
        if !frame.data.is_empty() {
            events += 1;
            last_data = frame.data;
        }
    }
    let total = start.elapsed();
    RunStats {
        ttfb: ttfb.expect("no response"),
        first_event: first_event.expect("no event"),
        total,
        events,
        bytes,
        first_type,
        last_type: event_type(&last_data),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn print_run(label: &str, s: &RunStats) {
    println!(
        "  {label}: {} events, {} bytes, total {}, {:.0} events/s, first byte {}, first event ({}) {}",
        s.events,
        s.bytes,
        ms(s.total),
        s.events_per_sec(),
        ms(s.ttfb),
        s.first_type,
        ms(s.first_event),
    );
}

fn check_completed(label: &str, s: &RunStats) {
    assert_eq!(
        s.last_type, "RUN_FINISHED",
        "{label}: the stream did not end with RUN_FINISHED"
    );
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no options.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // A real database file (WAL), as served by default: every event is persisted.
        let db = std::env::temp_dir().join(format!("agui-bench-{}.db", std::process::id()));
        let db_arg = db.to_string_lossy().into_owned();
        let cli = Cli::parse_from(["agui-studio", "--demo-delay-ms", "0", "--db", &db_arg]);
        let state = AppState::new(&cli.serve).await.unwrap();
        tokio::spawn(async move { axum::serve(listener, app(state)).await.unwrap() });

        // Warm up: connections, allocator, the first run's lazy initialisation.
        let warm = run_long(addr, "warmup".into(), 1_000).await;
        check_completed("warmup", &warm);

        println!("server: POST /api/agents/demo `long {SINGLE_N}`, one stream at a time");
        let mut runs = Vec::new();
        for i in 0..SINGLE_REPEATS {
            let s = run_long(addr, format!("single-{i}"), SINGLE_N).await;
            check_completed(&format!("run {}", i + 1), &s);
            print_run(&format!("run {}", i + 1), &s);
            runs.push(s);
        }
        let mut by_total = runs.clone();
        by_total.sort_by_key(|s| s.total);
        print_run("best  ", &by_total[0]);
        print_run("median", &by_total[by_total.len() / 2]);
        let mut firsts: Vec<Duration> = runs.iter().map(|s| s.first_event).collect();
        firsts.sort();
        println!(
            "  time to first event: best {}, median {}",
            ms(firsts[0]),
            ms(firsts[firsts.len() / 2])
        );

        println!("server: {CONCURRENT} concurrent streams of `long {CONCURRENT_N}`");
        let start = Instant::now();
        let handles: Vec<_> = (0..CONCURRENT)
            .map(|i| tokio::spawn(run_long(addr, format!("concurrent-{i}"), CONCURRENT_N)))
            .collect();
        let mut all = Vec::new();
        for h in handles {
            all.push(h.await.unwrap());
        }
        let wall = start.elapsed();
        for (i, s) in all.iter().enumerate() {
            check_completed(&format!("stream {}", i + 1), s);
            print_run(&format!("stream {}", i + 1), s);
        }
        let events: usize = all.iter().map(|s| s.events).sum();
        let bytes: usize = all.iter().map(|s| s.bytes).sum();
        println!(
            "  aggregate: {events} events, {bytes} bytes in {}, {:.0} events/s, {:.1} MB/s",
            ms(wall),
            events as f64 / wall.as_secs_f64(),
            bytes as f64 / wall.as_secs_f64() / 1e6
        );
        let size: u64 = ["", "-wal", "-shm"]
            .iter()
            .filter_map(|x| std::fs::metadata(format!("{db_arg}{x}")).ok())
            .map(|m| m.len())
            .sum();
        println!(
            "  database (WAL) after the runs: {:.1} MB",
            size as f64 / 1e6
        );
        for x in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{db_arg}{x}"));
        }
    });
}
