//! What an open connection costs the server's heap, counted by this test binary's own
//! allocator (the server runs in-process): idle observer streams (`GET /api/ag-ui/stream`), the
//! connections a crowd of watchers holds open for hours, and runs waiting on an approval (a
//! run's task, its agent, its log and its client's stream), printed by allocation size.
//!
//! The bound that matters is on large buffers: hyper's HTTP/1 reader keeps the buffer it read
//! the request into for as long as the connection stays open. When the first bytes were read
//! by a protocol sniffer and handed back, that buffer doubled to 16 KB on every connection; the
//! accept loop now peeks instead (`server::listen`).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Counts live heap bytes, and live allocations of at least [`LARGE`] bytes.
struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);
static LARGE_LIVE: AtomicI64 = AtomicI64::new(0);
/// An allocation this size or larger held per connection is a buffer someone forgot to bound.
const LARGE: usize = 12 * 1024;

/// Live allocations by exact size, up to [`BY_SIZE`] bytes (larger ones in the last slot): what
/// a connection holds, told apart by size when a test prints it.
const BY_SIZE: usize = 32 * 1024;
static SIZES: [AtomicI64; BY_SIZE + 1] = [const { AtomicI64::new(0) }; BY_SIZE + 1];

fn count(size: usize, sign: i64) {
    LIVE.fetch_add(sign * size as i64, Relaxed);
    SIZES[size.min(BY_SIZE)].fetch_add(sign, Relaxed);
    if size >= LARGE {
        LARGE_LIVE.fetch_add(sign, Relaxed);
    }
}

/// With `HEAP_TRACE_SIZE=N[,M…]`, allocations of those sizes made while [`TRACING`] is set are
/// remembered with their stacks until freed; [`print_held`] prints a few still held (to find
/// who holds a size a test's table points at).
static TRACING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
type Held = std::collections::HashMap<usize, (usize, std::backtrace::Backtrace)>;
static HELD: std::sync::Mutex<Option<Held>> = std::sync::Mutex::new(None);

thread_local!(static INSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });

/// Runs `f` unless this thread is already inside the tracer (its own allocations).
fn untraced(f: impl FnOnce()) {
    if INSIDE.with(|i| i.replace(true)) {
        return;
    }
    f();
    INSIDE.with(|i| i.set(false));
}

fn traced_sizes() -> &'static [usize] {
    static SIZES: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    SIZES.get_or_init(|| {
        std::env::var("HEAP_TRACE_SIZE")
            .unwrap_or_default()
            .split(',')
            .filter_map(|w| w.parse().ok())
            .collect()
    })
}

fn remember(p: *mut u8, size: usize) {
    if !TRACING.load(Relaxed) || p.is_null() {
        return;
    }
    untraced(|| {
        if traced_sizes().contains(&size) {
            let stack = std::backtrace::Backtrace::force_capture();
            let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
            held.get_or_insert_with(Default::default)
                .insert(p as usize, (size, stack));
            ANY_HELD.store(true, Relaxed);
        }
    });
}

/// Set once something is remembered: before that, a free has nothing to look up.
static ANY_HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn forget(p: *mut u8) {
    if !ANY_HELD.load(Relaxed) {
        return;
    }
    untraced(|| {
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = held.as_mut() {
            h.remove(&(p as usize));
        }
    });
}

/// Prints, for each traced size, how many allocations are still held and the stacks of three.
fn print_held() {
    untraced(|| {
        let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        for &size in traced_sizes() {
            let of_size: Vec<_> = held
                .iter()
                .flatten()
                .filter(|(_, (s, _))| *s == size)
                .collect();
            eprintln!("{} allocations of {size} bytes still held", of_size.len());
            for (_, (_, stack)) in of_size.iter().take(3) {
                eprintln!("held allocation of {size} bytes:\n{stack}");
            }
        }
    });
}

/// The live allocation counts by size, to subtract one from another.
fn sizes() -> Vec<i64> {
    SIZES.iter().map(|c| c.load(Relaxed)).collect()
}

/// Prints the sizes that grew most in bytes between `before` and now, per one of `n` things.
fn print_growth(before: &[i64], n: i64) {
    let now = sizes();
    let mut grown: Vec<(usize, i64)> = (0..=BY_SIZE)
        .map(|size| (size, now[size] - before[size]))
        .filter(|(_, d)| *d >= n / 2)
        .collect();
    grown.sort_by_key(|(size, d)| -(*size as i64) * d);
    for (size, d) in grown.into_iter().take(20) {
        let label = if size == BY_SIZE {
            format!("{BY_SIZE}+")
        } else {
            size.to_string()
        };
        eprintln!("  {label:>7} bytes x {:.2} each", d as f64 / n as f64);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size(), 1);
        let p = unsafe { System.alloc(l) };
        remember(p, l.size());
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(l.size(), -1);
        forget(p);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(l.size(), -1);
        count(n, 1);
        forget(p);
        let q = unsafe { System.realloc(p, l, n) };
        remember(q, n);
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Connections opened; enough that one-off allocations (a map growing once) are noise.
const CONNECTIONS: usize = 200;

#[test]
fn an_idle_observer_stream_holds_no_large_buffer() {
    common::run(async {
        let cap = CONNECTIONS.to_string();
        let (addr, _state) = common::start_server(&[
            "--max-observers-per-user",
            &cap,
            "--max-connections",
            "1000",
            "--keep-alive",
            "1",
        ])
        .await;
        // One observer first, so what is counted is a connection, not the first one's setup.
        let warm = tokio::task::spawn_blocking(move || observe(addr))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (live0, large0) = (LIVE.load(Relaxed), LARGE_LIVE.load(Relaxed));
        let held = tokio::task::spawn_blocking(move || {
            (1..CONNECTIONS).map(|_| observe(addr)).collect::<Vec<_>>()
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let n = (CONNECTIONS - 1) as i64;
        let per = (LIVE.load(Relaxed) - live0) / n;
        let large = LARGE_LIVE.load(Relaxed) - large0;
        eprintln!(
            "an idle observer stream: {per} bytes of heap; allocations of {LARGE} bytes or \
             more: {large} for {n} connections"
        );
        assert!(
            large < n / 10,
            "{large} allocations of {LARGE}+ bytes held by {n} idle connections"
        );
        // Today about 21 KB in a debug build (hyper's 8 KB read and 8 KB write buffers, the
        // connection's task, the stream's state); 31 KB with the doubled read buffer.
        assert!(per < 28 * 1024, "an idle observer stream holds {per} bytes");
        // Closed, they leave nothing behind: every byte they held is freed (the server notices a
        // closed stream at its next keep-alive at the latest; this one sends one each second).
        drop(held);
        let deadline = Instant::now() + Duration::from_secs(10);
        let left = loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let left = (LIVE.load(Relaxed) - live0) / n;
            if left < 256 || Instant::now() > deadline {
                break left;
            }
        };
        eprintln!("after they closed: {left} bytes per connection still held");
        assert!(left < 256, "closed observer streams left {left} bytes each");
        drop(warm);
    });
}

/// Opens an observer stream on a raw socket and returns it once `: connected` arrived.
fn observe(addr: std::net::SocketAddr) -> std::net::TcpStream {
    let request = format!("GET /api/ag-ui/stream HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    send_and_read_until(addr, &request, ": connected")
}

/// Sends `request` on a new raw socket and reads until `marker` has arrived; returns the socket.
fn send_and_read_until(
    addr: std::net::SocketAddr,
    request: &str,
    marker: &str,
) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(common::TIMEOUT)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let (mut got, mut buf, deadline) = (Vec::new(), [0u8; 4096], Instant::now() + common::TIMEOUT);
    while !String::from_utf8_lossy(&got).contains(marker) {
        assert!(Instant::now() < deadline, "no `{marker}` in time");
        let k = s.read(&mut buf).unwrap();
        assert!(k > 0, "closed: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..k]);
    }
    s
}

/// Runs held open while they wait on an approval: the demo's `approval` scenario, read until its
/// `request_approval` call has ended, then left waiting (the client never answers).
const RUNS: usize = 200;

#[test]
fn a_run_waiting_on_an_approval_holds_little() {
    common::run(async {
        let cap = (RUNS + 50).to_string();
        let (addr, state) = common::start_server(&[
            "--max-connections",
            "1000",
            "--max-runs",
            &cap,
            "--max-runs-per-user",
            &cap,
            "--keep-alive",
            "1",
        ])
        .await;
        let warm = tokio::task::spawn_blocking(move || wait_on_approval(addr, 0))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (live0, sizes0) = (LIVE.load(Relaxed), sizes());
        traced_sizes();
        TRACING.store(true, Relaxed);
        // Twenty clients at once, each opening its share in turn (the scenario takes its time
        // to reach the approval).
        let held = tokio::task::spawn_blocking(move || {
            std::thread::scope(|scope| {
                let clients: Vec<_> = (0..20)
                    .map(|c| {
                        scope.spawn(move || {
                            (1..RUNS)
                                .filter(|i| i % 20 == c)
                                .map(|i| wait_on_approval(addr, i))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                clients
                    .into_iter()
                    .flat_map(|c| c.join().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        TRACING.store(false, Relaxed);
        let n = (RUNS - 1) as i64;
        let per = (LIVE.load(Relaxed) - live0) / n;
        eprintln!("a run waiting on an approval: {per} bytes of heap; by size:");
        print_growth(&sizes0, n);
        print_held();
        // About 30.8 KB in a debug build today: hyper's two 8 KB buffers, its kept response
        // headers (624 B: six headers with no CORS layer, 1,248 B with eight), the connection's
        // task, the run's task and its parked state (the agent's step is gone while it waits:
        // `RunContext::park`), the thread's conversation, the response's stream, and (shared,
        // a few KB a run here) the observer hub's window of the newest 4,096 events. 47 KB
        // while a waiting run kept its logged events in memory and its future was as large as
        // the demo agent's largest scenario; 37 KB while the run's task held the room of its
        // start and end (2.2 KB) and the conversation the spare room of its vectors (1 KB);
        // 32.6 KB before it parked (its context, input and agent's step in memory).
        assert!(per < 32 * 1024, "a waiting run holds {per} bytes");
        // Their clients leave, which cancels their runs (none was started with `detach`): what
        // is left is shared (the observer hub's window of recent events) or the threads'.
        drop(held);
        let deadline = Instant::now() + Duration::from_secs(10);
        while state.runs.active_count() > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let left = (LIVE.load(Relaxed) - live0) / n;
        assert_eq!(state.runs.active_count(), 1, "runs left in progress");
        eprintln!(
            "after their clients left (their runs cancelled): {left} bytes of heap each; by size:"
        );
        print_growth(&sizes0, n);
        assert!(left < 16 * 1024, "an ended run left {left} bytes");
        drop(warm);
    });
}

/// Starts run `i` of the `approval` scenario on a raw socket and returns the socket once the
/// `request_approval` call has ended.
fn wait_on_approval(addr: std::net::SocketAddr, i: usize) -> std::net::TcpStream {
    let body = format!(
        r#"{{"threadId":"heap-t-{i}","runId":"heap-r-{i}","messages":[{{"id":"heap-u-{i}","role":"user","content":"approval"}}],"tools":[],"context":[],"state":{{}},"forwardedProps":{{}}}}"#
    );
    let request = format!(
        "POST /api/agents/demo HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    send_and_read_until(addr, &request, "TOOL_CALL_END")
}
