//! What an open connection costs the server's heap, counted by this test binary's own
//! allocator (the server runs in-process): idle observer streams (`GET /api/ag-ui/stream`), the
//! connections a crowd of watchers holds open for hours.
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

fn count(size: usize, sign: i64) {
    LIVE.fetch_add(sign * size as i64, Relaxed);
    if size >= LARGE {
        LARGE_LIVE.fetch_add(sign, Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size(), 1);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(l.size(), -1);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count(l.size(), -1);
        count(n, 1);
        unsafe { System.realloc(p, l, n) }
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
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(common::TIMEOUT)).unwrap();
    s.write_all(format!("GET /api/ag-ui/stream HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .unwrap();
    let (mut got, mut buf, deadline) = (Vec::new(), [0u8; 1024], Instant::now() + common::TIMEOUT);
    while !String::from_utf8_lossy(&got).contains(": connected") {
        assert!(Instant::now() < deadline, "no `: connected` in time");
        let k = s.read(&mut buf).unwrap();
        assert!(k > 0, "closed: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..k]);
    }
    s
}
