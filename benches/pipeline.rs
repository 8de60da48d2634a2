//! Throughput of the protocol core: encoding events to SSE, and decoding + the full client
//! pipeline (translation, enforcement, chunks, verification, reducer) on the same stream, at
//! 100,000 and 1,000,000 `TEXT_MESSAGE_CONTENT` events to show the cost is linear; then the
//! enforcement and typed parse of one event of each of six shapes (what a foreign stream's
//! events take past the JSON parse). Prints figures; it asserts nothing about speed.

use std::time::{Duration, Instant};

use agui_studio::protocol::enforce::enforce;
use agui_studio::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use agui_studio::protocol::sse;
use agui_studio::protocol::{Event, EventKind, TextRole};
use serde_json::{json, Value};

fn events(n: usize) -> Vec<Event> {
    let mut v = Vec::with_capacity(n + 4);
    v.push(Event::from(EventKind::RunStarted {
        thread_id: "bench-thread".into(),
        run_id: "bench-run".into(),
        parent_run_id: None,
        input: None,
        protocol_version: Some("1.1".into()),
    }));
    v.push(Event::from(EventKind::TextMessageStart {
        message_id: "m1".into(),
        role: Some(TextRole::Assistant),
        name: None,
    }));
    for i in 0..n {
        v.push(Event::from(EventKind::TextMessageContent {
            message_id: "m1".into(),
            delta: format!("token {i} "),
        }));
    }
    v.push(Event::from(EventKind::TextMessageEnd {
        message_id: "m1".into(),
    }));
    v.push(Event::from(EventKind::RunFinished {
        thread_id: "bench-thread".into(),
        run_id: "bench-run".into(),
        result: None,
        outcome: None,
        usage: None,
    }));
    v
}

fn encode(events: &[Event]) -> Vec<u8> {
    let mut out = String::with_capacity(events.len() * 80);
    for (i, e) in events.iter().enumerate() {
        out.push_str(&sse::encode_event(&e.to_json(), Some(&i.to_string()), None));
    }
    out.into_bytes()
}

fn decode_and_reduce(bytes: &[u8]) -> (StreamOutcome, usize) {
    let mut p = Pipeline::new(PipelineOptions::default());
    let mut delivered = 0;
    // Network-sized reads, split at arbitrary points.
    for chunk in bytes.chunks(16 * 1024) {
        delivered += p.push_bytes(chunk).len();
    }
    delivered += p.finish().len();
    (p.outcome(), delivered)
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        last = Some(r);
    }
    (best, last.unwrap())
}

/// Nanoseconds per event of `enforce` and of `Event::from_value` (each given a copy of the
/// value, whose making is counted in both), best of five rounds of 200,000.
fn parse_costs() {
    let shapes: [(&str, Value); 6] = [
        (
            "text delta",
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-1", "delta": "hello there "}),
        ),
        (
            "args delta",
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": "{\"a\":"}),
        ),
        (
            "message start",
            json!({"type": "TEXT_MESSAGE_START", "messageId": "msg-1", "role": "assistant"}),
        ),
        (
            "run start",
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        ),
        (
            "state delta",
            json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]}),
        ),
        (
            "snapshot of 2",
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"role": "user", "id": "u", "content": "hi"},
            {"role": "assistant", "id": "a", "content": "hello", "toolCalls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}),
        ),
    ];
    const N: u32 = 200_000;
    for (name, value) in shapes {
        let mut warnings = Vec::new();
        let (e, _) = best_of(5, || {
            for _ in 0..N {
                std::hint::black_box(enforce(value.clone(), &mut warnings).is_ok());
            }
        });
        let (p, _) = best_of(5, || {
            for _ in 0..N {
                std::hint::black_box(Event::from_value(value.clone()).is_ok());
            }
        });
        println!(
            "{name:>14}: enforce {:>5.0} ns, parse {:>5.0} ns (each with the value's copy)",
            e.as_nanos() as f64 / N as f64,
            p.as_nanos() as f64 / N as f64,
        );
    }
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    println!("agui-studio pipeline benchmark (best of 3 runs each)");
    let mut per_event = Vec::new();
    for n in [100_000usize, 1_000_000] {
        let evs = events(n);
        let total = evs.len();
        let (enc, bytes) = best_of(3, || encode(&evs));
        let (dec, (outcome, delivered)) = best_of(3, || decode_and_reduce(&bytes));
        assert_eq!(outcome, StreamOutcome::Completed);
        assert_eq!(delivered, total);
        let rate = |d: Duration| total as f64 / d.as_secs_f64();
        println!(
            "{n:>9} content events: encode {:>12.0} events/s ({:>7.1} ms, {:.1} MB of SSE); \
             decode+reduce {:>12.0} events/s ({:>7.1} ms, {:.0} ns/event)",
            rate(enc),
            enc.as_secs_f64() * 1e3,
            bytes.len() as f64 / 1e6,
            rate(dec),
            dec.as_secs_f64() * 1e3,
            dec.as_nanos() as f64 / total as f64,
        );
        per_event.push(dec.as_nanos() as f64 / total as f64);
    }
    println!(
        "decode+reduce cost per event at 10x the events: {:.2}x (1.00x = perfectly linear)",
        per_event[1] / per_event[0]
    );
    println!("one event past the JSON parse:");
    parse_costs();
    if let Some(mib) = peak_rss_mib() {
        println!(
            "peak resident memory: {mib:.0} MiB (holds the 1M-event SSE buffer and its events)"
        );
    }
}
