//! The studio tried as an attacker would: the release-shaped binary (`CARGO_BIN_EXE`) in a
//! process of its own on loopback, hostile peers written here (a foreign AG-UI agent that nests
//! or bombs its state or never stops), and one test per attack of the hardening issue. Each
//! checks that the process stays up, that `/healthz` answers within a second during and after
//! the attack, that its memory (`/proc/PID/status`) stays within a stated budget, and that the
//! refusal is the documented one. Big numbers are scaled down by a flag where the flag makes the
//! same point faster (`--max-run-events`, `--max-upstream-bytes`).

mod common;

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{open_sse, request, HttpConn};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The binary in a process of its own, stopped (by PID) when dropped.
struct Studio {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
}

impl Studio {
    fn start(args: &[&str]) -> Studio {
        let dir = std::env::temp_dir().join(format!(
            "agui-hostile-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self::start_in(dir, args, None)
    }

    /// Start on `dir`'s database; `nofile` limits the process's descriptors (via `prlimit`).
    fn start_in(dir: PathBuf, args: &[&str], nofile: Option<u32>) -> Studio {
        let bin = env!("CARGO_BIN_EXE_agui-studio");
        let db = dir.join("studio.db");
        let mut cmd = match nofile {
            Some(n) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--nofile={n}:{n}")).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args([
            "--addr",
            "127.0.0.1:0",
            "--demo-delay-ms",
            "0",
            "--log",
            "warn,agui_studio::server=info",
            "--db",
        ])
        .arg(&db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(url) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server says where it listens")
            .parse()
            .unwrap();
        Studio { child, addr, dir }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// (VmRSS, VmHWM) in MiB.
    fn memory(&self) -> (u64, u64) {
        let text =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        let field = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
                / 1024
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// The RSS once it has stopped moving (within 4 MiB over a second; at most 10 s), for what
    /// a burst of work leaves behind rather than what it still holds while finishing. Prints
    /// the samples taken.
    async fn settled_memory(&self) -> u64 {
        let mut samples = vec![self.memory().0];
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            samples.push(self.memory().0);
            let last = &samples[samples.len().saturating_sub(5)..];
            let (lo, hi) = (last.iter().min(), last.iter().max());
            if last.len() == 5 && hi.zip(lo).is_some_and(|(h, l)| h - l <= 4) {
                break;
            }
        }
        eprintln!("RSS (MiB) every 250 ms until it settled: {samples:?}");
        *samples.last().unwrap_or(&0)
    }

    /// Reset the peak (VmHWM) to the current RSS, so a later peak is that of what follows.
    fn reset_peak(&self) {
        std::fs::write(format!("/proc/{}/clear_refs", self.pid()), "5").expect("clear_refs");
    }

    /// Stop it and start it again on the same database.
    fn restart(mut self, args: &[&str]) -> Studio {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = std::mem::take(&mut self.dir);
        Self::start_in(dir, args, None)
    }
}

impl Drop for Studio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !self.dir.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Probes `/healthz` every 100 ms until dropped; remembers the slowest answer (a failure counts
/// as 10 s).
struct Prober {
    stop: Arc<AtomicBool>,
    worst_ms: Arc<AtomicU64>,
}

impl Prober {
    fn start(addr: SocketAddr) -> Prober {
        let stop = Arc::new(AtomicBool::new(false));
        let worst_ms = Arc::new(AtomicU64::new(0));
        let (s, w) = (stop.clone(), worst_ms.clone());
        tokio::spawn(async move {
            while !s.load(Ordering::Relaxed) {
                let ms = healthz_ms(addr).await;
                w.fetch_max(ms, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Prober { stop, worst_ms }
    }

    fn worst(&self) -> Duration {
        Duration::from_millis(self.worst_ms.load(Ordering::Relaxed))
    }

    /// `/healthz` answered within a second every time it was asked.
    fn assert_fast(&self) {
        assert!(
            self.worst() < Duration::from_secs(1),
            "/healthz took {:?}",
            self.worst()
        );
    }
}

impl Drop for Prober {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How long `GET /healthz` takes, 10,000 when it fails. On a raw socket: the probe must never
/// panic (a refused or reset connection is a measurement too) and measures the server alone.
async fn healthz_ms(addr: SocketAddr) -> u64 {
    let started = Instant::now();
    let ok = tokio::time::timeout(Duration::from_secs(10), async {
        let mut s = TcpStream::connect(addr).await.ok()?;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .ok()?;
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.ok()?;
        out.starts_with(b"HTTP/1.1 200").then_some(())
    })
    .await;
    match ok {
        Ok(Some(())) => started.elapsed().as_millis() as u64,
        _ => 10_000,
    }
}

/// The server is up and `/healthz` answers within a second.
async fn assert_healthy(s: &mut Studio, what: &str) {
    assert!(s.alive(), "{what}: the process died");
    let ms = healthz_ms(s.addr).await;
    assert!(ms < 1000, "{what}: /healthz took {ms} ms");
}

/// Send these exact request bytes on a connection of their own; the whole answer as text.
/// Raw, as an attacker writes them: a foreign `Origin` with a `text/plain` body, a `Host` that
/// is not the address connected to.
async fn raw(addr: SocketAddr, text: &str) -> String {
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(text.as_bytes()).await.unwrap();
    let mut out = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), c.read_to_string(&mut out)).await;
    out
}

fn run_body(thread: &str, run: &str, text: &str) -> Value {
    json!({"threadId": thread, "runId": run,
           "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}]})
}

async fn post(addr: SocketAddr, body: &[u8], headers: &[(&str, &str)]) -> common::HttpResponse {
    request(addr, "POST", "/api/agents/demo", headers, Some(body)).await
}

// ---- 1. the page ignores --auth-token ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_the_page_needs_the_token_too() {
    let mut s = Studio::start(&["--auth-token", "sesame"]);
    let r = post(
        s.addr,
        run_body("t-secret", "r1", "the secret plan")
            .to_string()
            .as_bytes(),
        &[("Authorization", "Bearer sesame")],
    )
    .await;
    assert_eq!(r.status, 200);
    for path in [
        "/",
        "/?thread=t-secret",
        "/api/threads",
        "/api/threads/t-secret",
    ] {
        let r = request(s.addr, "GET", path, &[], None).await;
        assert_eq!(r.status, 401, "{path}");
        // (The sign-in page may repeat the address it was asked for; never the thread.)
        assert!(!r.body.contains("secret plan"), "{path} leaks: {}", r.body);
    }
    assert_healthy(&mut s, "after").await;
}

// ---- 2. one message kills the process, for good ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_deeply_nested_message_renders_and_survives_a_restart() {
    let mut s = Studio::start(&[]);
    let body = json!({"threadId": "t-deep", "runId": "r-deep", "messages": [
        {"id": "a0", "role": "assistant", "content": ">".repeat(100_000)},
        {"id": "a1", "role": "assistant", "content": "- ".repeat(20_000) + "x"},
        {"id": "u1", "role": "user", "content": "chat"}]});
    let r = post(s.addr, body.to_string().as_bytes(), &[]).await;
    assert_eq!(r.status, 200);
    let page = request(s.addr, "GET", "/?thread=t-deep", &[], None).await;
    assert_eq!(page.status, 200);
    assert_healthy(&mut s, "after rendering the thread").await;
    // The thread stays in the database: the next process renders it too.
    let mut s = s.restart(&[]);
    let page = request(s.addr, "GET", "/?thread=t-deep", &[], None).await;
    assert_eq!(page.status, 200);
    assert_healthy(&mut s, "after a restart").await;
}

/// A foreign AG-UI agent on loopback answering every POST with `events(i)` for i = 0.. until
/// `events` returns None or the connection breaks. Returns its URL and how many bytes it wrote.
async fn evil_agent(
    events: impl Fn(u64) -> Option<String> + Send + Sync + 'static,
) -> (String, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let written = Arc::new(AtomicU64::new(0));
    let events = Arc::new(events);
    let w = written.clone();
    tokio::spawn(async move {
        for _ in 0..16 {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let (events, w) = (events.clone(), w.clone());
            tokio::spawn(async move {
                // Read the request head and body (whatever arrives in a moment).
                let mut buf = vec![0u8; 1 << 16];
                let _ = tokio::time::timeout(Duration::from_millis(300), sock.read(&mut buf)).await;
                let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
                if sock.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let started = Instant::now();
                let mut i = 0;
                while started.elapsed() < Duration::from_secs(60) {
                    let Some(e) = events(i) else { break };
                    let frame = format!("data: {e}\n\n");
                    if sock.write_all(frame.as_bytes()).await.is_err() {
                        return;
                    }
                    w.fetch_add(frame.len() as u64, Ordering::Relaxed);
                    i += 1;
                }
            });
        }
    });
    (url, written)
}

fn started_events(i: u64) -> Option<String> {
    match i {
        0 => Some(r#"{"type":"RUN_STARTED","threadId":"t-evil","runId":"r-evil"}"#.into()),
        _ => None,
    }
}

/// Read a run to its end; returns its last event.
async fn last_event(addr: SocketAddr, body: &Value) -> Value {
    let mut sse = open_sse(addr, "POST", "/api/agents/evil", Some(&body.to_string())).await;
    assert_eq!(sse.status(), 200);
    let events = tokio::time::timeout(Duration::from_secs(60), sse.read_run())
        .await
        .expect("the run ends");
    events.last().cloned().unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_state_nested_deeper_and_deeper_by_a_foreign_agent_ends_the_run() {
    // Each delta adds one level: 48,000 of them would nest the state 48,000 deep.
    let (url, written) = evil_agent(|i| {
        if i == 0 {
            return started_events(0);
        }
        if i > 48_000 {
            return Some(r#"{"type":"RUN_FINISHED","threadId":"t-evil","runId":"r-evil"}"#.into());
        }
        let path = "/a".repeat(i as usize);
        Some(format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"{path}","value":{{}}}}]}}"#
        ))
    })
    .await;
    let spec = format!("evil={url}");
    let mut s = Studio::start(&["--proxy", &spec]);
    let prober = Prober::start(s.addr);
    let last = last_event(s.addr, &run_body("t-evil", "r-evil", "nest")).await;
    assert_eq!(last["type"], "RUN_ERROR", "{last}");
    assert_eq!(last["code"], "STATE_LIMIT", "{last}");
    assert!(
        written.load(Ordering::Relaxed) < 64 << 20,
        "the foreign stream was cut short"
    );
    let state = request(s.addr, "GET", "/api/threads/t-evil", &[], None)
        .await
        .json()["state"]
        .clone();
    assert!(
        state.to_string().len() < 1000,
        "the state stayed small: {state}"
    );
    drop(prober);
    assert_healthy(&mut s, "after the run").await;
}

// ---- 3. small requests pin large memory and disk ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_huge_ids_are_refused_before_anything_is_stored() {
    let mut s = Studio::start(&[]);
    let big_thread = "t".repeat(1 << 20);
    let r = post(
        s.addr,
        run_body(&big_thread, "r1", "long 1000")
            .to_string()
            .as_bytes(),
        &[],
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let big_run = "r".repeat(100 * 1024);
    let r = post(
        s.addr,
        run_body("t1", &big_run, "long 1000").to_string().as_bytes(),
        &[],
    )
    .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let db = std::fs::metadata(s.dir.join("studio.db"))
        .map(|m| m.len())
        .unwrap_or(0);
    let wal = std::fs::metadata(s.dir.join("studio.db-wal"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(db + wal < 8 << 20, "{db} + {wal} bytes on disk");
    assert_healthy(&mut s, "after").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_large_states_bodies_and_page_loads_stay_within_budget() {
    let mut s = Studio::start(&[]);
    let (base, _) = s.memory();
    // 40 runs with almost 4 MiB of state each, on 40 threads.
    let state = json!({"blob": "x".repeat(4 * 1024 * 1024 - 64)});
    for i in 0..40 {
        let mut body = run_body(&format!("t-state-{i}"), &format!("r-state-{i}"), "chat");
        body["state"] = state.clone();
        let r = post(s.addr, body.to_string().as_bytes(), &[]).await;
        assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(300)]);
    }
    let (after_states, _) = s.memory();
    // Six bodies of almost 16 MiB at once (many small messages: the costliest shape to parse).
    let messages: Vec<Value> = (0..9000)
        .map(|i| json!({"id": format!("m{i}"), "role": "user", "content": "y".repeat(1700)}))
        .collect();
    let huge = json!({"threadId": "t-huge", "runId": "r-huge", "messages": messages}).to_string();
    assert!(huge.len() < 16 << 20);
    let mut tasks = Vec::new();
    for i in 0..6 {
        let body = huge
            .replace("r-huge", &format!("r-huge-{i}"))
            .replace("t-huge", &format!("t-huge-{i}"));
        let addr = s.addr;
        tasks.push(tokio::spawn(async move {
            post(addr, body.as_bytes(), &[]).await.status
        }));
    }
    for t in tasks {
        let status = t.await.unwrap();
        assert!(status == 200 || status == 429, "{status}");
    }
    // The responses end before the server has finished with the bodies (the threads' 54,000
    // messages are still being written, and jemalloc hands freed pages back over a second or
    // so): what the bodies leave is read once the server is quiet.
    let after_bodies = s.settled_memory().await;
    let (_, peak) = s.memory();
    // Ten concurrent page loads of a server with all those threads: their peak, not only what
    // they leave (freed memory returns to the system within seconds, see src/main.rs).
    s.reset_peak();
    let prober = Prober::start(s.addr);
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let addr = s.addr;
        tasks.push(tokio::spawn(async move {
            request(addr, "GET", "/", &[], None).await.status
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    let (after_pages, peak2) = s.memory();
    eprintln!(
        "hostile memory (MiB): start {base}; after 40 × 4 MiB states {after_states}; after six 16 MiB \
         bodies {after_bodies} (peak {peak}); after 10 page loads {after_pages} (peak {peak2})"
    );
    prober.assert_fast();
    // Before the hardening: +476 MiB kept after the states, a 1.2 GB peak for the bodies, +567
    // MiB for the page loads. Measured after it (debug build): +97, +586 peak, +0. Measured
    // 2026-11-29 (debug build, jemalloc, once settled): +155-190, +640-680 peak, +45; read at
    // once instead of settled, the bodies' figure was 420-580, mostly pages still in use or
    // about to be handed back.
    assert!(
        after_states < base + 200,
        "40 large states kept {after_states} MiB"
    );
    assert!(peak < base + 700, "six large bodies peaked at {peak} MiB");
    assert!(
        after_bodies < base + 500,
        "six large bodies left {after_bodies} MiB"
    );
    assert!(
        after_pages < after_bodies + 100,
        "page loads kept {after_pages} MiB"
    );
    assert!(
        peak2 < after_bodies + 150,
        "ten page loads peaked at {peak2} MiB (from {after_bodies})"
    );
    assert_healthy(&mut s, "after").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_observers_that_never_read_hold_little() {
    let mut s = Studio::start(&["--max-run-events", "20000"]);
    // Threads with long conversations, and more events than the hub keeps; more threads than
    // a resync snapshots (8), so a resync that took every thread would show.
    for i in 0..16 {
        let r = post(
            s.addr,
            run_body(&format!("t-o{i}"), &format!("r-o{i}"), "long 4000")
                .to_string()
                .as_bytes(),
            &[],
        )
        .await;
        assert_eq!(r.status, 200);
    }
    let (base, _) = s.memory();
    let mut conns = Vec::new();
    for _ in 0..40 {
        let c = HttpConn::send(
            s.addr,
            "GET",
            "/api/ag-ui/stream",
            &[("Last-Event-ID", "1")],
            None,
        )
        .await;
        assert_eq!(c.status, 200);
        conns.push(c);
    }
    // A 41st... 64th are allowed; past the per-user limit they are refused.
    let mut refused = 0;
    for _ in 0..40 {
        let r = HttpConn::send(s.addr, "GET", "/api/ag-ui/stream", &[], None).await;
        if r.status == 429 {
            refused += 1;
        }
        conns.push(r);
    }
    assert!(refused > 0, "observers per user are capped");
    let (held, _) = s.memory();
    eprintln!("hostile memory (MiB): 40 silent observers: {base} → {held}");
    assert!(
        held < base + 150,
        "silent observers hold {held} MiB (from {base})"
    );
    drop(conns);
    assert_healthy(&mut s, "after").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_one_client_cannot_start_runs_without_end() {
    // Paced so that none of them ends while the 200 are started.
    let mut s = Studio::start(&["--max-run-events", "50000", "--demo-delay-ms", "50"]);
    let mut statuses = std::collections::BTreeMap::new();
    let mut conns = Vec::new();
    for i in 0..200 {
        let body = run_body(&format!("t-d{i}"), &format!("r-d{i}"), "long 1000000").to_string();
        let c = HttpConn::send(
            s.addr,
            "POST",
            "/api/agents/demo",
            &[("X-AGUI-Detach", "true")],
            Some(body.as_bytes()),
        )
        .await;
        *statuses.entry(c.status).or_insert(0) += 1;
        conns.push(c);
    }
    drop(conns);
    eprintln!("hostile: 200 detached long runs from one client: {statuses:?}");
    assert_eq!(statuses.get(&200), Some(&32), "{statuses:?}");
    assert_eq!(statuses.get(&429), Some(&168), "{statuses:?}");
    let r = request(s.addr, "POST", "/api/ag-ui/abort", &[], Some(b"{}")).await;
    assert!(r.status < 300, "{}", r.body);
    // A single run stops at the event limit (`long 10000000` stored ~1.4 GB).
    let s2 = Studio::start(&["--max-run-events", "50000"]);
    let mut sse = open_sse(
        s2.addr,
        "POST",
        "/api/agents/demo",
        Some(&run_body("t-l", "r-l", "long 10000000").to_string()),
    )
    .await;
    let events = tokio::time::timeout(Duration::from_secs(60), sse.read_run())
        .await
        .expect("the run ends");
    assert!(events.len() <= 50_000);
    assert_eq!(events.last().unwrap()["code"], "EVENT_LIMIT");
    assert_healthy(&mut s, "after").await;
}

// ---- 4. the history merge ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_merging_long_histories_does_not_starve_the_server() {
    let mut s = Studio::start(&["--max-messages", "100000", "--body-limit", "67108864"]);
    let many = |prefix: &str, n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"id": format!("{prefix}{i}"), "role": "user", "content": "z"}))
            .collect()
    };
    for t in 0..2 {
        let body = json!({"threadId": format!("t-m{t}"), "runId": format!("r-m{t}"), "messages": many("h", 40_000)});
        assert_eq!(
            post(s.addr, body.to_string().as_bytes(), &[]).await.status,
            200
        );
    }
    let prober = Prober::start(s.addr);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..2 {
        let body = json!({"threadId": format!("t-m{t}"), "runId": format!("r-m{t}-2"), "messages": many("n", 40_000)}).to_string();
        let addr = s.addr;
        tasks.push(tokio::spawn(async move {
            post(addr, body.as_bytes(), &[]).await.status
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    eprintln!(
        "hostile: two 40k-into-40k merges took {:?}; /healthz worst {:?}",
        started.elapsed(),
        prober.worst()
    );
    prober.assert_fast();
    let thread = request(s.addr, "GET", "/api/threads/t-m0", &[], None)
        .await
        .json();
    assert!(thread["messages"].as_array().unwrap().len() >= 80_000);
    assert_healthy(&mut s, "after").await;
}

// ---- 5. no timeouts ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_slow_clients_cannot_exhaust_connections() {
    let dir = std::env::temp_dir().join(format!("agui-hostile-fd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = Studio::start_in(
        dir,
        &["--header-timeout", "2", "--body-timeout", "2"],
        Some(1024),
    );
    let prober = Prober::start(s.addr);
    // Raw sockets: headers that never end and bodies that never come, which no HTTP client
    // sends.
    let mut held = Vec::new();
    for i in 0..700 {
        let Ok(mut c) = TcpStream::connect(s.addr).await else {
            continue;
        };
        let text = if i < 500 {
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".to_string()
        } else {
            "POST /api/agents/demo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{".to_string()
        };
        let _ = c.write_all(text.as_bytes()).await;
        held.push(c);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_healthy(&mut s, "with 700 slow connections open").await;
    // Within the timeouts (plus slack) the server has closed them all.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut closed = 0;
    for c in &mut held {
        let mut b = [0u8; 512];
        match tokio::time::timeout(Duration::from_millis(20), c.read(&mut b)).await {
            Ok(Ok(0)) | Ok(Err(_)) => closed += 1,
            Ok(Ok(_)) => {
                // A 408 answer, then the close.
                if matches!(
                    tokio::time::timeout(Duration::from_millis(200), c.read(&mut b)).await,
                    Ok(Ok(0)) | Ok(Err(_))
                ) {
                    closed += 1;
                }
            }
            Err(_) => {}
        }
    }
    eprintln!(
        "hostile: slow connections closed by the server: {closed} of {}; /healthz worst {:?}",
        held.len(),
        prober.worst()
    );
    assert_eq!(closed, held.len());
    prober.assert_fast();
    assert_healthy(&mut s, "after").await;
}

/// A burst of clients larger than the standard library's listen backlog (128) is queued by
/// the kernel, not dropped: with the server stopped (SIGSTOP, so it accepts nothing), 600
/// connection attempts all complete within 700 ms under the default `--listen-backlog`. With
/// `--listen-backlog 128` most of them are dropped and would be retried a second later — the
/// one-second `/healthz` the slow-clients test above once saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_burst_of_clients_is_queued_not_dropped() {
    /// Connection attempts to the stopped server at `pid` that completed within 700 ms.
    async fn burst(addr: SocketAddr, pid: u32, n: usize) -> usize {
        struct Resume(i32);
        impl Drop for Resume {
            fn drop(&mut self) {
                unsafe { libc::kill(self.0, libc::SIGCONT) };
            }
        }
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
        let _resume = Resume(pid as i32);
        let tries: Vec<_> = (0..n)
            .map(|_| {
                tokio::spawn(async move {
                    tokio::time::timeout(Duration::from_millis(700), TcpStream::connect(addr))
                        .await
                        .ok()
                        .and_then(|r| r.ok())
                })
            })
            .collect();
        let mut held = Vec::new();
        for t in tries {
            held.extend(t.await.unwrap());
        }
        held.len()
    }
    // The kernel caps every backlog at `net.core.somaxconn` (4,096 on this machine kind; 128
    // on kernels before 5.4): below 600 the default cannot queue the burst either.
    let somaxconn: usize = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    if somaxconn < 600 {
        eprintln!("hostile: net.core.somaxconn is {somaxconn}: a burst of 600 cannot be queued here; not checked");
        return;
    }
    let small = Studio::start(&["--listen-backlog", "128"]);
    let with_small = burst(small.addr, small.child.id(), 600).await;
    // (Not asked for /healthz: its own connection attempt may be among those dropped.)
    drop(small);
    let mut s = Studio::start(&[]);
    let with_default = burst(s.addr, s.child.id(), 600).await;
    eprintln!(
        "hostile: 600 connections to a server that accepts nothing: {with_default} queued \
         (default backlog), {with_small} with --listen-backlog 128"
    );
    assert!(with_small < 600, "the check can tell a short queue");
    assert_eq!(with_default, 600);
    assert_healthy(&mut s, "after a burst").await;
}

/// Let this test process open up to `n` descriptors (best effort: up to its hard limit).
fn raise_open_files(n: libc::rlim_t) {
    // SAFETY: plain system calls on a local struct.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < n {
            lim.rlim_cur = lim.rlim_max.min(n);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// The kernel's send buffer size (`ss`'s `tb`, bytes) of the server's end of each loopback
/// connection to `server`, by the client's port.
fn server_send_buffers(server: SocketAddr) -> std::collections::HashMap<u16, u64> {
    let out = Command::new("ss")
        .args(["-tmnH", "state", "established"])
        .arg(format!("( sport = :{} )", server.port()))
        .output()
        .expect("ss (iproute2) runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut sizes = std::collections::HashMap::new();
    let mut peer = None;
    for line in text.lines() {
        if let Some(mem) = line.trim().strip_prefix("skmem:(") {
            let tb = mem
                .split(',')
                .find_map(|f| f.strip_prefix("tb")?.parse().ok());
            if let (Some(port), Some(tb)) = (peer.take(), tb) {
                sizes.insert(port, tb);
            }
        } else {
            // `Recv-Q Send-Q local peer`: the peer is the client.
            peer = line
                .split_whitespace()
                .nth(3)
                .and_then(|a| a.rsplit(':').next()?.parse().ok());
        }
    }
    sizes
}

/// Many clients reading slower than the server writes must not take the kernel's TCP memory
/// past its pressure threshold: connections accepted while a crowd (1,024+) is connected get
/// `--crowd-send-buffer` (which Linux doubles), those of a calm server the kernel's tuning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_crowds_connections_get_bounded_send_buffers() {
    raise_open_files(4096);
    let mut s = Studio::start(&[
        "--max-connections",
        "3000",
        "--header-timeout",
        "60",
        "--crowd-send-buffer",
        "49152",
    ]);
    let bounded = 2 * 49152;
    // Connections whose headers never end: open as long as the test holds them.
    let open = |addr| async move {
        let mut c = TcpStream::connect(addr).await.expect("connects");
        c.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .await
            .unwrap();
        c
    };
    let calm = open(s.addr).await;
    let mut crowd = Vec::new();
    for _ in 0..1100 {
        crowd.push(open(s.addr).await);
    }
    let late = open(s.addr).await;
    let (calm_port, late_port) = (
        calm.local_addr().unwrap().port(),
        late.local_addr().unwrap().port(),
    );
    // The server accepts at its own pace: wait until it has the last one (≤ 10 s).
    let mut sizes = server_send_buffers(s.addr);
    for _ in 0..100 {
        if sizes.get(&late_port) == Some(&bounded) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        sizes = server_send_buffers(s.addr);
    }
    let in_crowd = crowd
        .iter()
        .filter(|c| sizes.get(&c.local_addr().unwrap().port()) == Some(&bounded))
        .count();
    eprintln!(
        "hostile: send buffers: calm {:?}, the last of 1,102 {:?}; {in_crowd} of the 1,100 bounded",
        sizes.get(&calm_port),
        sizes.get(&late_port)
    );
    assert!(sizes.len() > 1000, "ss saw {} connections", sizes.len());
    assert_eq!(sizes.get(&late_port), Some(&bounded));
    assert!(sizes.get(&calm_port).is_some_and(|&tb| tb != bounded));
    // Those accepted once 1,024 were open: about the last 77 of the 1,100.
    assert!((50..=200).contains(&in_crowd), "{in_crowd} bounded");
    drop((calm, crowd, late));
    assert_healthy(&mut s, "after the crowd").await;
}

// ---- 6. cross-site and DNS rebinding ----
// ---- 6. cross-site and DNS rebinding ----

/// The attack as reported: more slow connections (1,100) than the process has descriptors
/// (1,024). Before the hardening the server stopped accepting for good ("Too many open files").
/// Now the connection cap (64 below the descriptor limit) holds: the process stays up, a new
/// client waits for a slot at most about the header timeout, and once the slow ones are timed
/// out everything answers at once again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_more_slow_clients_than_descriptors_wait_their_turn() {
    // This test process holds the 1,100 client sockets: give it room (best effort).
    raise_open_files(4096);
    let dir = std::env::temp_dir().join(format!("agui-hostile-fd2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = Studio::start_in(
        dir,
        &["--header-timeout", "2", "--body-timeout", "2"],
        Some(1024),
    );
    // Raw sockets, as above: headers that never end.
    let mut held = Vec::new();
    for _ in 0..1100 {
        let Ok(mut c) = TcpStream::connect(s.addr).await else {
            continue;
        };
        let _ = c
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .await;
        held.push(c);
    }
    assert!(held.len() >= 1000, "only {} connections opened", held.len());
    let during = healthz_ms(s.addr).await;
    assert!(
        s.alive(),
        "the process died under {} connections",
        held.len()
    );
    assert!(
        during < 2000 + 2000,
        "/healthz took {during} ms with {} slow connections open (header timeout 2 s)",
        held.len()
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    eprintln!(
        "hostile: {} slow connections against 1,024 descriptors: /healthz during {during} ms",
        held.len()
    );
    drop(held);
    assert_healthy(&mut s, "after the slow connections were timed out").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_cross_site_requests_and_foreign_hosts_are_refused() {
    let mut s = Studio::start(&[]);
    let r = request(
        s.addr,
        "POST",
        "/api/agents/demo",
        &[],
        Some(run_body("t-c", "r-c", "chat").to_string().as_bytes()),
    )
    .await;
    assert_eq!(r.status, 200);
    // A "simple request" from another site: text/plain, no preflight.
    let body = run_body("t-x", "r-x", "chat").to_string();
    let out = raw(
        s.addr,
        &format!(
            "POST /api/agents/demo HTTP/1.1\r\nHost: {}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            s.addr,
            body.len()
        ),
    )
    .await;
    assert!(
        out.starts_with("HTTP/1.1 403") || out.starts_with("HTTP/1.1 415"),
        "{out}"
    );
    let out = raw(s.addr, &format!("POST /api/ag-ui/abort HTTP/1.1\r\nHost: {}\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}", s.addr)).await;
    assert!(out.starts_with("HTTP/1.1 403"), "{out}");
    // DNS rebinding: the page is asked for under another name.
    let out = raw(
        s.addr,
        "GET /api/threads HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(out.starts_with("HTTP/1.1 421"), "{out}");
    assert!(!out.contains("t-c"));
    let threads = request(s.addr, "GET", "/api/threads", &[], None)
        .await
        .json();
    assert_eq!(
        threads["threads"].as_array().unwrap().len(),
        1,
        "nothing started: {threads}"
    );
    assert_healthy(&mut s, "after").await;
}

// ---- 7. a run id reused on another thread ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_reused_run_id_cannot_take_over_a_stored_run() {
    let mut s = Studio::start(&[]);
    let r = post(
        s.addr,
        run_body("victim", "r-shared", "chat")
            .to_string()
            .as_bytes(),
        &[],
    )
    .await;
    assert_eq!(r.status, 200);
    let before = request(s.addr, "GET", "/api/runs/r-shared/events", &[], None)
        .await
        .body;
    let r = post(
        s.addr,
        run_body("attacker", "r-shared", "long 10")
            .to_string()
            .as_bytes(),
        &[],
    )
    .await;
    assert_eq!(r.status, 409, "{}", r.body);
    let after = request(s.addr, "GET", "/api/runs/r-shared/events", &[], None)
        .await
        .body;
    assert_eq!(before, after);
    let run = request(s.addr, "GET", "/api/runs/r-shared", &[], None)
        .await
        .json();
    assert_eq!(run["run"]["threadId"], "victim", "{run}");
    assert_healthy(&mut s, "after").await;
}

// ---- 8. upstreams bounded per line only ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_copy_bomb_and_an_endless_foreign_stream_are_bounded() {
    // 40 copies of the root into itself: 2^40 times the state if applied.
    let (bomb_url, _) = evil_agent(|i| match i {
        0 => started_events(0),
        1 => Some(
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}"#
                .into(),
        ),
        2 => {
            let ops: Vec<String> = (0..40)
                .map(|k| format!(r#"{{"op":"copy","from":"","path":"/c{k}"}}"#))
                .collect();
            Some(format!(
                r#"{{"type":"STATE_DELTA","delta":[{}]}}"#,
                ops.join(",")
            ))
        }
        3 => Some(r#"{"type":"RUN_FINISHED","threadId":"t-evil","runId":"r-evil"}"#.into()),
        _ => None,
    })
    .await;
    // An endless stream of text deltas (180 MB and more), in the same thread (the agent answers
    // in t-evil whatever it is asked: a stream does not switch threads).
    let (flood_url, written) = evil_agent(|i| match i {
        0 => started_events(0),
        1 => Some(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.into()),
        i if i < 3_000_000 => Some(format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{}"}}"#,
            "w".repeat(60)
        )),
        _ => None,
    })
    .await;
    let (bomb, flood) = (format!("bomb={bomb_url}"), format!("flood={flood_url}"));
    let mut s = Studio::start(&[
        "--proxy",
        &bomb,
        "--proxy",
        &flood,
        "--max-upstream-bytes",
        "16777216",
    ]);
    let (base, _) = s.memory();
    let prober = Prober::start(s.addr);
    let mut sse = open_sse(
        s.addr,
        "POST",
        "/api/agents/bomb",
        Some(&run_body("t-evil", "r-evil", "x").to_string()),
    )
    .await;
    let events = tokio::time::timeout(Duration::from_secs(30), sse.read_run())
        .await
        .expect("the run ends");
    let last = events.last().unwrap();
    assert_eq!(last["code"], "STATE_LIMIT", "{last}");
    let state = request(s.addr, "GET", "/api/threads/t-evil", &[], None)
        .await
        .json()["state"]
        .clone();
    assert_eq!(
        state,
        json!({"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}),
        "the state is as before the bomb"
    );
    let mut sse = open_sse(
        s.addr,
        "POST",
        "/api/agents/flood",
        Some(&run_body("t-evil", "r-evil2", "x").to_string()),
    )
    .await;
    let events = tokio::time::timeout(Duration::from_secs(60), sse.read_run())
        .await
        .expect("the run ends");
    let last = events.last().unwrap();
    assert_eq!(last["code"], "UPSTREAM_LIMIT", "{last}");
    let (_, peak) = s.memory();
    eprintln!(
        "hostile: copy bomb and flood ({} MB written by the flood): RSS {base} MiB → peak {peak} MiB",
        written.load(Ordering::Relaxed) >> 20
    );
    assert!(peak < base + 300, "peak {peak} MiB from {base}");
    prober.assert_fast();
    assert_healthy(&mut s, "after").await;
}

// ---- 9. Last-Event-ID: 18446744073709551615 ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_huge_last_event_id_is_refused_and_the_run_is_not_stuck() {
    let mut s = Studio::start(&["--demo-delay-ms", "2"]);
    let mut live = open_sse(
        s.addr,
        "POST",
        "/api/agents/demo",
        Some(&run_body("t-l", "r-l", "long 3000").to_string()),
    )
    .await;
    live.next_event().await.unwrap();
    for _ in 0..3 {
        let r = request(
            s.addr,
            "GET",
            "/api/runs/r-l/events",
            &[("Last-Event-ID", "18446744073709551615")],
            None,
        )
        .await;
        assert_eq!(r.status, 400, "{}", r.body);
    }
    let events = tokio::time::timeout(Duration::from_secs(60), live.read_run())
        .await
        .expect("the run ends");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let r = request(
        s.addr,
        "GET",
        "/api/runs/r-l/events",
        &[("Last-Event-ID", "18446744073709551615")],
        None,
    )
    .await;
    assert_eq!(r.status, 400);
    let run = request(s.addr, "GET", "/api/runs/r-l", &[], None)
        .await
        .json();
    assert_eq!(run["run"]["status"], "finished", "{run}");
    assert_healthy(&mut s, "after").await;
}
