//! The accept loop: hyper's connection builder with the bounds `axum::serve` does not set — a
//! time limit on each request's headers (which is also how long an idle keep-alive connection
//! may wait for its next request), a cap on open connections that stays below the process's
//! file-descriptor limit (further clients wait in the kernel's listen queue, and the server
//! keeps room for its database and upstream connections), and graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Descriptors kept free for everything that is not a client connection (the database, the
/// LLM and proxy upstreams, log files).
const SPARE_DESCRIPTORS: usize = 64;

/// How the accept loop bounds connections.
#[derive(Debug, Clone)]
pub struct ListenLimits {
    pub header_timeout: Duration,
    pub max_connections: usize,
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
    super::trim::spawn(&permits, max);
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.header_timeout))
        .keep_alive_timeout(limits.header_timeout);
    let builder = Arc::new(builder);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        // Take a connection slot first: at the cap, clients wait in the listen queue rather
        // than costing a descriptor each.
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut shutdown => break,
        };
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
        let service = TowerToHyperService::new(router.clone());
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
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
