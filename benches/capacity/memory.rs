//! Many open streams held by one server: idle observers (`GET /api/ag-ui/stream`) with runs
//! fanned out to all of them in turn, and runs waiting, stream open, on an in-stream approval. The
//! server's resident memory is read before, while they are open, and a while after they closed.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;

use crate::client::{request, Scan};
use crate::procs::{Proc, Studio};
use crate::throughput::{one, Agent};

/// Connections being set up at once (the rest wait), so the listen queue never overflows.
const RAMP: usize = 200;
/// Bound on any wait of this module (connecting everyone, a fan-out).
const PATIENCE: Duration = Duration::from_secs(300);

/// Resident memory at the three moments, in bytes; `after` is read later by the caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rss {
    pub before: u64,
    pub during: u64,
    pub after: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Observers {
    /// Observer streams held open.
    pub count: usize,
    pub rss: Rss,
    /// RSS right after the fan-out (every observer has received the run).
    pub after_fanout: u64,
    /// Time to open every observer stream (up to its `: connected` comment).
    pub connect: Duration,
    /// From the POST of a run to the last observer seeing its RUN_FINISHED, and to the median
    /// one: the medians over the runs.
    pub fanout: Duration,
    pub fanout_p50: Duration,
    /// Each run's time to its last observer, in order.
    pub fanouts: Vec<Duration>,
    /// The server's CPU time (user + system) from the POST to the last observer's end (the
    /// median over the runs): a figure that moves less than the wall time with what else the
    /// machine does.
    pub fanout_cpu: Duration,
    /// Observers that received fewer than the runs' events (an observer that fell behind gets
    /// a resync comment and snapshots instead).
    pub short: usize,
    pub resyncs: u64,
    /// Events a run itself streamed to its own client.
    pub run_events: u64,
}

/// Wait until `counter` reaches `n` (polling), or panic with `what` after [`PATIENCE`] or as
/// soon as one of `tasks` has ended early (its panic, printed above, says why).
async fn wait_for<T>(counter: &AtomicUsize, n: usize, what: &str, tasks: &[JoinHandle<T>]) {
    let deadline = Instant::now() + PATIENCE;
    while counter.load(Ordering::Relaxed) < n {
        let have = counter.load(Ordering::Relaxed);
        assert!(
            !tasks.iter().any(JoinHandle::is_finished),
            "{what}: a connection failed with {have} of {n} made (see the message above)"
        );
        assert!(
            Instant::now() < deadline,
            "{what}: only {have} of {n} after {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `n` idle observers of the server at `addr` (process `server`), then `repeats` `long
/// fanout_n` runs one after another, each watched by them all (the figures are the medians over
/// the runs); closes them all at the end (the caller reads `rss.after` once the wait is over).
pub async fn observers(
    addr: SocketAddr,
    server: &Proc,
    n: usize,
    fanout_n: usize,
    repeats: usize,
) -> Observers {
    let repeats = repeats.max(1);
    let mut out = Observers {
        count: n,
        rss: Rss {
            before: server.rss(),
            ..Rss::default()
        },
        ..Observers::default()
    };
    let ramp = Arc::new(Semaphore::new(RAMP));
    let connected = Arc::new(AtomicUsize::new(0));
    // RUN_FINISHED seen, by every observer together.
    let done = Arc::new(AtomicUsize::new(0));
    let (close, closed) = watch::channel(false);
    let start = Instant::now();
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let (ramp, connected, done) = (ramp.clone(), connected.clone(), done.clone());
            let mut closed = closed.clone();
            tokio::spawn(async move {
                let mut permit = Some(ramp.acquire_owned().await.expect("the ramp"));
                let mut resp = request(addr, "GET", "/api/ag-ui/stream", b"")
                    .await
                    .unwrap_or_else(|e| panic!("observer {i} of {n} could not connect: {e}"));
                assert_eq!(resp.status, 200, "observer {i} of {n}: HTTP {}", resp.status);
                let mut scan = Scan::new(&[b": connected", b"RUN_FINISHED", b": resync"]);
                // When each run's RUN_FINISHED arrived (at most `repeats` kept).
                let mut finished_at = Vec::with_capacity(repeats);
                loop {
                    tokio::select! {
                        piece = resp.next_body() => {
                            let Some(piece) = piece.unwrap_or_else(|e| panic!("observer {i}: {e}")) else {
                                panic!("observer {i}: the server ended the stream");
                            };
                            let (was_connected, was_finished) = (scan.seen(0) > 0, scan.seen(1));
                            scan.feed(piece);
                            if !was_connected && scan.seen(0) > 0 {
                                connected.fetch_add(1, Ordering::Relaxed);
                                permit.take();
                            }
                            for _ in was_finished..scan.seen(1) {
                                if finished_at.len() < repeats {
                                    finished_at.push(Instant::now());
                                }
                                done.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        _ = closed.changed() => break,
                    }
                }
                (finished_at, scan.events, scan.seen(2))
            })
        })
        .collect();
    wait_for(&connected, n, "observers connected", &tasks).await;
    out.connect = start.elapsed();
    // Let the server settle (buffers, allocator) before reading its memory.
    tokio::time::sleep(Duration::from_secs(2)).await;
    out.rss.during = server.rss();

    let (mut starts, mut cpus) = (Vec::new(), Vec::new());
    let mut all_events = 0;
    for k in 0..repeats {
        let t0 = Instant::now();
        let cpu0 = server.cpu();
        let run = tokio::spawn(one(addr, Agent::Demo, fanout_n));
        wait_for(
            &done,
            n * (k + 1),
            "observers that saw the run finish",
            &tasks,
        )
        .await;
        cpus.push(server.cpu().saturating_sub(cpu0));
        let run = run.await.expect("the fanned-out run");
        assert!(run.finished, "the fanned-out run did not finish");
        out.run_events = run.events;
        all_events += run.events;
        starts.push(t0);
    }
    out.after_fanout = server.rss();

    close.send(true).expect("observers listening");
    // Per run: every observer's time from the POST to its RUN_FINISHED.
    let mut times = vec![Vec::new(); repeats];
    for t in tasks {
        let (finished_at, events, resyncs) = t.await.expect("an observer task");
        for (k, at) in finished_at.into_iter().enumerate() {
            times[k].push(at - starts[k]);
        }
        out.short += usize::from(events < all_events);
        out.resyncs += resyncs;
    }
    // Each run's last observer and median observer, then the median run of each.
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let mut lasts = Vec::new();
    let mut p50s = Vec::new();
    for mut t in times {
        t.sort();
        lasts.push(t[t.len() - 1]);
        p50s.push(t[t.len() / 2]);
    }
    out.fanouts = lasts.clone();
    out.fanout = median(lasts);
    out.fanout_p50 = median(p50s);
    out.fanout_cpu = median(cpus);
    out
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Approvals {
    pub rss: Rss,
    /// Time to start every run and see its approval request (TOOL_CALL_END) arrive.
    pub setup: Duration,
}

/// `n` runs of the demo's `approval` scenario, each held open on its waiting tool call, then
/// all closed. A client that leaves cancels its run (the runs are not started with `detach`),
/// so the "after" is a server whose runs have all ended.
pub async fn approvals(studio: &Studio, n: usize) -> Approvals {
    let addr = studio.addr;
    let before = studio.proc.rss();
    let ramp = Arc::new(Semaphore::new(RAMP));
    let waiting = Arc::new(AtomicUsize::new(0));
    let (close, closed) = watch::channel(false);
    let start = Instant::now();
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let (ramp, waiting) = (ramp.clone(), waiting.clone());
            let mut closed = closed.clone();
            tokio::spawn(async move {
                let permit = ramp.acquire_owned().await.expect("the ramp");
                let body = json!({
                    "threadId": format!("cap-approval-{i}"),
                    "runId": format!("cap-approval-run-{i}"),
                    "state": {}, "tools": [], "context": [],
                    "messages": [{"id": "u", "role": "user", "content": "approval"}],
                    "forwardedProps": {"scenario": "approval"},
                });
                let mut resp = request(
                    addr,
                    "POST",
                    "/api/agents/demo",
                    body.to_string().as_bytes(),
                )
                .await
                .unwrap_or_else(|e| panic!("approval run {i} of {n} could not connect: {e}"));
                assert_eq!(
                    resp.status, 200,
                    "approval run {i} of {n}: HTTP {}",
                    resp.status
                );
                let mut scan = Scan::new(&[b"TOOL_CALL_END", b"RUN_ERROR"]);
                while scan.seen(0) == 0 {
                    let piece = resp
                        .next_body()
                        .await
                        .unwrap_or_else(|e| panic!("approval run {i}: {e}"));
                    let Some(piece) = piece else {
                        panic!("approval run {i}: the stream ended before the approval request")
                    };
                    scan.feed(piece);
                    assert_eq!(
                        scan.seen(1),
                        0,
                        "approval run {i}: RUN_ERROR before the approval request"
                    );
                }
                waiting.fetch_add(1, Ordering::Relaxed);
                drop(permit);
                let _ = closed.changed().await;
                drop(resp);
            })
        })
        .collect();
    wait_for(&waiting, n, "runs waiting on their approval", &tasks).await;
    let setup = start.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let during = studio.proc.rss();
    close.send(true).expect("runs listening");
    for t in tasks {
        t.await.expect("an approval task");
    }
    Approvals {
        rss: Rss {
            before,
            during,
            after: 0,
        },
        setup,
    }
}
