//! The floor: a server that does nothing but write bytes, measured with the same client as the
//! real servers. It answers every POST at once with a run of the size asked for, pre-encoded in
//! our wire form (same `id:`/`data:` lines, same JSON keys and sizes; encoded once per size), in
//! 64 KB writes; an observer (`GET /api/ag-ui/stream`) gets `: connected`, then every run in one
//! piece. No parsing beyond finding N, no state, no storage: what is left is the kernel's
//! loopback, the scheduler and the benchmark's own client sharing the machine with the server. A
//! goal beyond the floor's figure cannot be met on this machine by any server.
//!
//! It runs in a child process, the benchmark's own binary started again with [`SERVE_ENV`] set,
//! so that it has a process and a runtime of its own like the servers it stands beside.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;

use crate::procs::{free_port, wait_listening, Proc};

/// Set (to the address to listen on) in the environment of the child that serves the floor.
pub const SERVE_ENV: &str = "CAPACITY_FLOOR_ADDR";

/// Longest request head or body read (a bound; the benchmark's requests are far smaller).
const MAX_REQUEST: usize = 64 * 1024;
/// Bytes per write of a run's body.
const WRITE: usize = 64 * 1024;
/// Run sizes whose bodies are kept.
const MAX_SIZES: usize = 16;
/// Runs an observer may be behind before it is dropped (the benchmark sends one at a time).
const OBSERVER_LAG: usize = 16;

/// The floor server, listening on a loopback port.
pub struct Floor {
    pub proc: Proc,
    pub addr: SocketAddr,
}

impl Floor {
    pub fn start() -> Floor {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let exe = std::env::current_exe().expect("the benchmark's own path");
        let mut cmd = Command::new(exe);
        cmd.env(SERVE_ENV, addr.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let proc = Proc::spawn(cmd, "the floor server");
        wait_listening(addr, "the floor server");
        Floor { proc, addr }
    }
}

/// The child's main: serve until killed.
pub fn serve(addr: &str) {
    let addr: SocketAddr = addr.parse().expect("a socket address");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async move {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket.bind(addr).expect("bind the floor's port");
        let listener: TcpListener = socket.listen(4096).expect("listen");
        let (runs, _) = broadcast::channel::<Arc<Vec<u8>>>(OBSERVER_LAG);
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let runs = runs.clone();
            tokio::spawn(async move {
                let _ = connection(stream, runs).await;
            });
        }
    });
}

async fn connection(
    mut stream: TcpStream,
    runs: broadcast::Sender<Arc<Vec<u8>>>,
) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut req = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(i) = req.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if req.len() > MAX_REQUEST || stream.read_buf(&mut req).await? == 0 {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&req[..head_end]).to_ascii_lowercase();
    const OK: &[u8] =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if head.starts_with("get ") {
        let mut rx = runs.subscribe();
        stream.write_all(OK).await?;
        stream.write_all(b": connected\n\n").await?;
        while let Ok(run) = rx.recv().await {
            stream.write_all(&run).await?;
        }
        return Ok(());
    }
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST);
    while req.len() < head_end + length {
        if stream.read_buf(&mut req).await? == 0 {
            return Ok(());
        }
    }
    let body = body_of(deltas_asked(&req[head_end..head_end + length]));
    if runs.receiver_count() > 0 {
        let _ = runs.send(body.clone());
    }
    stream.write_all(OK).await?;
    for piece in body.chunks(WRITE) {
        stream.write_all(piece).await?;
    }
    stream.shutdown().await
}

/// N of the `long N` / `big N` the request's text asks for (1,000 when it names none).
fn deltas_asked(body: &[u8]) -> usize {
    let text = String::from_utf8_lossy(body);
    ["long ", "big "]
        .iter()
        .find_map(|w| {
            let at = text.find(w)? + w.len();
            let digits: String = text[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .unwrap_or(1_000)
        .min(10_000_000)
}

/// The body of a run of `n` deltas, encoded once per size asked for (the floor spends no CPU
/// on encoding while it is measured; the benchmark asks for a handful of sizes).
fn body_of(n: usize) -> Arc<Vec<u8>> {
    static BODIES: Mutex<Option<HashMap<usize, Arc<Vec<u8>>>>> = Mutex::new(None);
    let mut bodies = BODIES.lock().expect("the bodies' lock");
    let bodies = bodies.get_or_insert_with(HashMap::new);
    if bodies.len() >= MAX_SIZES && !bodies.contains_key(&n) {
        bodies.clear();
    }
    bodies
        .entry(n)
        .or_insert_with(|| Arc::new(run_body(n)))
        .clone()
}

/// A run of `n` deltas as our server writes it over SSE.
fn run_body(n: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    const AT: u64 = 1_795_872_777_307;
    let mut s = String::with_capacity(130 * (n + 4));
    let mut seq = 0;
    let mut event = |s: &mut String, json: &str| {
        seq += 1;
        let _ = write!(s, "id: {seq}\ndata: {json}\n\n");
    };
    event(
        &mut s,
        &format!(
            r#"{{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1","timestamp":{AT}}}"#
        ),
    );
    event(
        &mut s,
        &format!(
            r#"{{"type":"TEXT_MESSAGE_START","messageId":"msg-r-1","role":"assistant","timestamp":{AT}}}"#
        ),
    );
    for i in 0..n {
        event(
            &mut s,
            &format!(
                r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-r-1","delta":"{i} ","timestamp":{AT}}}"#
            ),
        );
    }
    event(
        &mut s,
        &format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"msg-r-1","timestamp":{AT}}}"#),
    );
    event(
        &mut s,
        &format!(r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":{AT}}}"#),
    );
    s.into_bytes()
}
