//! The accept loop: hyper's connection builder with the bounds `axum::serve` does not set — a
//! time limit on each request's headers (which is also how long an idle keep-alive connection
//! may wait for its next request), a cap on open connections that stays below the process's
//! file-descriptor limit (further clients wait in the kernel's listen queue, and the server
//! keeps room for its database and upstream connections), and graceful shutdown.
//!
//! HTTP/1.1 and HTTP/2 without TLS (prior knowledge) are told apart by peeking at the first
//! bytes ([`speaks_h2`]) rather than by hyper-util's `auto` builder, which reads them and hands
//! them back first: hyper's HTTP/1 reader then found its 8 KB buffer short of a full 8 KB free
//! and doubled it, so every connection held a 16 KB read buffer for as long as it stayed open
//! (measured with a counting allocator: 16,384 of the 30,865 bytes an idle observer stream held).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Descriptors kept free for everything that is not a client connection (the database, the
/// LLM and proxy upstreams, log files).
const SPARE_DESCRIPTORS: usize = 64;

/// What a client speaking HTTP/2 without TLS sends first.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Pauses between two peeks while the bytes so far are a strict prefix of [`H2_PREFACE`] (a
/// request line split across packets): peeking again at once would spin. The pause doubles up
/// to the longest, so a client that sends `P` and stalls costs a few dozen peeks before the
/// header timeout, not one every 2 ms.
const PEEK_PAUSE: Duration = Duration::from_millis(2);
const PEEK_PAUSE_MAX: Duration = Duration::from_millis(200);

/// `--listen-backlog` by default. `TcpListener::bind` asks for 128 (the standard library's
/// value): 700 clients connecting at once overflowed that queue while the accept loop caught
/// up, and each dropped connection attempt cost its client a one-second retransmission (the
/// kernel's `ListenOverflows` counter rose by one or two per burst; `tests/hostile.rs` saw
/// `/healthz` take 1.007 s).
pub const DEFAULT_BACKLOG: u32 = 4096;

/// `--crowd-send-buffer` by default: what a socket holds for a client that reads slower than
/// the server writes, while a crowd is connected. Left to the kernel's tuning, ten thousand
/// observers of a 2,000-event run (260 KB each) took its TCP memory past this machine kind's
/// pressure threshold (`net.ipv4.tcp_mem`) in two runs of three, where it dropped packets at
/// full receive queues (1,104 and 4,426) and each drop cost a retransmission timeout; bounded,
/// none in any run (README, "The ninth session").
pub const DEFAULT_CROWD_SEND_BUFFER: usize = 64 * 1024;

/// A listener on `addr` with room for `backlog` connections not yet accepted (at least 1).
pub fn bind(addr: std::net::SocketAddr, backlog: u32) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As `TcpListener::bind` does: a restarted server may listen again at once.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog.max(1))
}

/// How the accept loop bounds connections.
#[derive(Debug, Clone)]
pub struct ListenLimits {
    pub header_timeout: Duration,
    pub max_connections: usize,
    /// The send buffer of connections accepted while a crowd is connected (see
    /// [`DEFAULT_CROWD_SEND_BUFFER`]); None leaves every socket to the kernel.
    pub crowd_send_buffer: Option<usize>,
    /// Run when a crowd of connections has left, before memory is trimmed (see `trim`).
    pub release: Option<super::trim::Release>,
}

/// The connection cap actually used: the configured one, lowered to leave
/// [`SPARE_DESCRIPTORS`] below the soft `RLIMIT_NOFILE`.
pub fn effective_max_connections(configured: usize) -> usize {
    match open_files_limit() {
        Some(limit) => configured
            .min(limit.saturating_sub(SPARE_DESCRIPTORS).max(limit / 2))
            .max(1),
        None => configured.max(1),
    }
}

/// The soft limit on open files, from `/proc/self/limits` (Linux); None elsewhere.
fn open_files_limit() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Serve `router` on `listener` until `shutdown` resolves, then let open connections finish
/// (up to `drain`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ListenLimits,
    shutdown: impl Future<Output = ()>,
    drain: Duration,
) -> std::io::Result<()> {
    let max = effective_max_connections(limits.max_connections);
    let permits = Arc::new(Semaphore::new(max));
    super::trim::spawn(&permits, max, limits.release.clone());
    let mut h1 = http1::Builder::new();
    h1.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let mut h2 = http2::Builder::new(TokioExecutor::new());
    h2.timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.header_timeout))
        .keep_alive_timeout(limits.header_timeout);
    let builders = Arc::new((h1, h2));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        // Take a connection slot first: at the cap, clients wait in the listen queue rather
        // than costing a descriptor each.
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut shutdown => break,
        };
        super::trim::crowd(max - permits.available_permits());
        let (stream, _peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: wait a little
                    // rather than spinning, and keep serving.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        if let Some(bytes) = limits.crowd_send_buffer.filter(|_| super::trim::crowded()) {
            // Best effort: a socket left to the kernel still works.
            // (The kernel takes an int, and caps it at `net.core.wmem_max` itself.)
            let bytes = bytes.min(i32::MAX as usize);
            let _ = socket2::SockRef::from(&stream).set_send_buffer_size(bytes);
        }
        let service = TowerToHyperService::new(router.clone());
        let (builders, watcher) = (builders.clone(), graceful.watcher());
        let header_timeout = limits.header_timeout;
        let permits = permits.clone();
        tokio::spawn(async move {
            serve_one(stream, service, &builders, watcher, header_timeout).await;
            drop(permit);
            super::trim::crowd(max - permits.available_permits());
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(drain) => {
            tracing::warn!("connections still open after {} s; stopping anyway", drain.as_secs());
        }
    }
    Ok(())
}

/// One connection, in the HTTP version its first bytes speak. A client that sends nothing
/// telling within `header_timeout` is dropped, as hyper drops one whose headers are late.
async fn serve_one(
    stream: TcpStream,
    service: TowerToHyperService<Router>,
    builders: &(http1::Builder, http2::Builder<TokioExecutor>),
    watcher: Watcher,
    header_timeout: Duration,
) {
    // Boxed, and dropped before the connection is served: inline, its timer and peek would
    // make every open connection's task larger for as long as the connection lasts.
    let sniffed = Box::pin(tokio::time::timeout(header_timeout, speaks_h2(&stream))).await;
    let Ok(Ok(h2)) = sniffed else {
        return;
    };
    let io = TokioIo::new(stream);
    // Each protocol's connection boxed: inline, every HTTP/1.1 connection's task would be as
    // large as an HTTP/2 connection's state.
    let _ = if h2 {
        Box::pin(watcher.watch(builders.1.serve_connection(io, service))).await
    } else {
        Box::pin(watcher.watch(builders.0.serve_connection(io, service))).await
    };
}

/// Whether the client's first bytes are the HTTP/2 preface, peeked without consuming them. Any
/// other first bytes (or none: the client closed) mean HTTP/1.1, decided at the first byte
/// that differs, so an HTTP/1.1 request waits for no more than it sends.
async fn speaks_h2(stream: &TcpStream) -> std::io::Result<bool> {
    let mut seen = [0u8; H2_PREFACE.len()];
    let mut pause = PEEK_PAUSE;
    loop {
        let n = stream.peek(&mut seen).await?;
        if n == 0 || seen[..n] != H2_PREFACE[..n] {
            return Ok(false);
        }
        if n == H2_PREFACE.len() {
            return Ok(true);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(PEEK_PAUSE_MAX);
    }
}
