//! Streams drained as fast as the client can read them: one at a time (events/s) and many at
//! once (aggregate events/s, time to the first event of each run).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Barrier;

use crate::client::{self, drain, drain_on, Drained};

/// Which server a run goes to, and so how it asks for N deltas.
#[derive(Debug, Clone, Copy)]
pub enum Agent {
    /// Our demo agent's `long N` at `POST /api/agents/demo`.
    Demo,
    /// The Python SDK agent's `big N` at `POST /`.
    Python,
    /// The Python agent's `big N` through our proxy at `POST /api/agents/py`.
    Proxy,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl Agent {
    pub fn path(self) -> &'static str {
        match self {
            Agent::Demo => "/api/agents/demo",
            Agent::Python => "/",
            Agent::Proxy => "/api/agents/py",
        }
    }

    /// A RunAgentInput asking for `n` deltas, with fresh thread and run ids.
    pub fn body(self, n: usize) -> Vec<u8> {
        let i = NEXT.fetch_add(1, Ordering::Relaxed);
        let (text, props) = match self {
            Agent::Demo => (format!("long {n}"), json!({"scenario": "long"})),
            Agent::Python | Agent::Proxy => (format!("big {n}"), json!({})),
        };
        json!({
            "threadId": format!("cap-thread-{i}"),
            "runId": format!("cap-run-{i}"),
            "state": {},
            "messages": [{"id": format!("cap-msg-{i}"), "role": "user", "content": text}],
            "tools": [],
            "context": [],
            "forwardedProps": props,
        })
        .to_string()
        .into_bytes()
    }
}

/// Drain one run, failing loudly when it cannot even start.
pub async fn one(addr: SocketAddr, agent: Agent, n: usize) -> Drained {
    drain(addr, agent.path(), &agent.body(n))
        .await
        .unwrap_or_else(|e| panic!("{agent:?} run on {addr}: {e}"))
}

/// One stream at a time on each target in turn, `repeats` rounds (interleaved, so a change in
/// the machine's load touches every target alike): the median events/s of each target.
pub async fn singles(targets: &[(SocketAddr, Agent)], n: usize, repeats: usize) -> Vec<Single> {
    let mut rates = vec![Vec::new(); targets.len()];
    let mut unfinished = vec![0; targets.len()];
    for _ in 0..repeats.max(1) {
        for (i, &(addr, agent)) in targets.iter().enumerate() {
            let d = one(addr, agent, n).await;
            unfinished[i] += usize::from(!d.finished);
            rates[i].push(d.events as f64 / d.total.as_secs_f64());
        }
    }
    rates
        .into_iter()
        .zip(unfinished)
        .map(|(mut r, unfinished)| {
            r.sort_by(f64::total_cmp);
            Single {
                rate: r[r.len() / 2],
                min: r[0],
                max: r[r.len() - 1],
                unfinished,
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy)]
pub struct Single {
    /// Median events/s.
    pub rate: f64,
    pub min: f64,
    pub max: f64,
    pub unfinished: usize,
}

/// `runs` runs of `n` deltas started at once (each on its own connection).
#[derive(Debug, Clone, Copy)]
pub struct Concurrent {
    /// Every event of every run over the wall time from the round's start to the last byte.
    pub rate: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub wall: Duration,
    /// Runs that failed to start or did not end with RUN_FINISHED.
    pub failed: usize,
}

/// How a concurrent round's connections are made, and so what its first-event times count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connect {
    /// Each run connects as it starts; its times count from before its connect (so they include
    /// the client's own queue of a thousand connects).
    AsItStarts,
    /// Every connection is opened before the round, which then starts at once; a run's times
    /// count from its request's write (`CAPACITY_OPEN_FIRST=1`).
    First,
}

pub async fn concurrent(
    addr: SocketAddr,
    agent: Agent,
    runs: usize,
    n: usize,
    connect: Connect,
) -> Concurrent {
    let mut start = Instant::now();
    // With `Connect::First`, every task opens its connection, then all wait for the round.
    let ready = (connect == Connect::First).then(|| Arc::new(Barrier::new(runs + 1)));
    let tasks: Vec<_> = (0..runs)
        .map(|_| {
            let body = agent.body(n);
            let ready = ready.clone();
            tokio::spawn(async move {
                let Some(ready) = ready else {
                    return drain(addr, agent.path(), &body).await;
                };
                let stream = client::connect(addr).await;
                ready.wait().await;
                drain_on(stream?, addr, agent.path(), &body).await
            })
        })
        .collect();
    if let Some(ready) = &ready {
        ready.wait().await;
        start = Instant::now();
    }
    let mut firsts = Vec::new();
    let mut events = 0;
    let mut failed = 0;
    for t in tasks {
        match t.await.expect("a run task") {
            Ok(d) if d.finished => {
                firsts.push(d.first_event);
                events += d.events;
            }
            Ok(d) => {
                failed += 1;
                events += d.events;
            }
            Err(e) => {
                if failed == 0 {
                    eprintln!("  {agent:?}: a run failed: {e}");
                }
                failed += 1;
            }
        }
    }
    let wall = start.elapsed();
    firsts.sort();
    let pct = |p: f64| {
        firsts
            .get(((firsts.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    Concurrent {
        rate: events as f64 / wall.as_secs_f64(),
        p50: pct(0.50),
        p99: pct(0.99),
        wall,
        failed,
    }
}

/// The median (by aggregate rate) of `repeats` concurrent rounds.
pub async fn concurrent_median(
    addr: SocketAddr,
    agent: Agent,
    runs: usize,
    n: usize,
    repeats: usize,
    connect: Connect,
) -> Concurrent {
    let mut all = Vec::new();
    for _ in 0..repeats.max(1) {
        all.push(concurrent(addr, agent, runs, n, connect).await);
    }
    all.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    all[all.len() / 2]
}
