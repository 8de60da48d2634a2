//! End-to-end throughput of the server: the app runs in-process on a loopback port, and a
//! `reqwest` client (one connection per run, nothing pooled) posts `long` runs of the demo agent
//! and drains the SSE stream as it arrives through the crate's own SSE decoder. Reports time to
//! first byte (the response head), time to the first complete event (RUN_STARTED), events, bytes
//! and events/second for one stream at a time (3 runs, best and median), then the aggregate rate
//! of 4 concurrent streams.
//!
//! Prints figures only; it asserts just that every run completed (its last event is
//! RUN_FINISHED). Run with `cargo bench --features ssr --bench server`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use agui_studio::protocol::sse::Decoder;
use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use reqwest::header::{ACCEPT, CONNECTION, CONTENT_TYPE};
use serde_json::{json, Value};

const SINGLE_N: usize = 100_000;
const SINGLE_REPEATS: usize = 3;
const CONCURRENT: usize = 4;
const CONCURRENT_N: usize = 25_000;

/// What one streamed run measured.
#[derive(Debug, Clone)]
struct RunStats {
    /// From the start of the connect to the first response byte: the response head, as the
    /// client hands it over once read.
    ttfb: Duration,
    /// From the start of the connect to the first complete SSE event.
    first_event: Duration,
    /// From the start of the connect to the end of the stream.
    total: Duration,
    /// `data:` frames decoded.
    events: usize,
    /// Body bytes after transfer decoding (the SSE text).
    bytes: usize,
    first_type: String,
    last_type: String,
}

impl RunStats {
    fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.total.as_secs_f64()
    }
}

fn event_type(data: &str) -> String {
    serde_json::from_str::<Value>(data)
        .ok()
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| format!("<unparsable: {}>", &data[..data.len().min(80)]))
}

/// The client of every run: a connection of its own per run (nothing pooled), no proxy from the
/// environment, no redirects, no decompression (none of reqwest's compression features is on).
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .tcp_nodelay(true)
        .build()
        .expect("an HTTP client")
}

/// POST one `long n` run and drain its SSE stream.
async fn run_long(client: reqwest::Client, addr: SocketAddr, tag: String, n: usize) -> RunStats {
    let body = json!({
        "threadId": format!("bench-{tag}"),
        "runId": format!("run-{tag}"),
        "messages": [{"id": "u", "role": "user", "content": format!("long {n}")}],
        "forwardedProps": {"scenario": "long"},
    })
    .to_string();

    let start = Instant::now();
    let mut response = client
        .post(format!("http://{addr}/api/agents/demo"))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .header(CONNECTION, "close")
        .body(body)
        .send()
        .await
        .expect("send");
    let ttfb = start.elapsed();
    assert_eq!(
        response.status(),
        200,
        "response head: {:?}",
        response.headers()
    );

    let mut first_event = None;
    let mut decoder = Decoder::new();
    let mut events = 0usize;
    let mut bytes = 0usize;
    let mut first_type = String::new();
    let mut last_data = String::new();

    // Body bytes into the SSE decoder, counting frames; only the first and the last frame's
    // JSON is parsed, so the client's cost stays small next to the server's.
    while let Some(body) = response.chunk().await.expect("read the body") {
        bytes += body.len();
        for frame in decoder.push(&body).expect("SSE decode") {
            if frame.data.is_empty() {
                continue;
            }
            events += 1;
            if first_event.is_none() {
                first_event = Some(start.elapsed());
                first_type = event_type(&frame.data);
            }
            last_data = frame.data;
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
        ttfb,
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
        let client = client();
        let warm = run_long(client.clone(), addr, "warmup".into(), 1_000).await;
        check_completed("warmup", &warm);

        println!("server: POST /api/agents/demo `long {SINGLE_N}`, one stream at a time");
        let mut runs = Vec::new();
        for i in 0..SINGLE_REPEATS {
            let s = run_long(client.clone(), addr, format!("single-{i}"), SINGLE_N).await;
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
            .map(|i| {
                tokio::spawn(run_long(
                    client.clone(),
                    addr,
                    format!("concurrent-{i}"),
                    CONCURRENT_N,
                ))
            })
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
        // With the one-server-per-file lock (`<db>.lock`), which is empty.
        for x in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{db_arg}{x}"));
        }
    });
}
