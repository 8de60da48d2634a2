//! Tests of the `observer` module.
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;

use super::*;
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::RunStatus;
use crate::protocol::sse;
use crate::protocol::sse::{Decoder, SseFrame};
use crate::server::runs::{ObserverHub, Origin};
use futures::StreamExt;

/// A hub holding `capacity` events, numbering from 1.
fn hub(capacity: usize) -> Arc<ObserverHub> {
    Arc::new(ObserverHub::with_capacity(0, capacity))
}

/// Publish one event of `run` on `thread`: it is numbered the hub's next.
fn observed(hub: &ObserverHub, thread: &str, run: &str, kind: EventKind) {
    let origin = Arc::new(Origin {
        thread_id: thread.into(),
        run_id: run.into(),
        owner: crate::server::accounts::User::anonymous(),
    });
    hub.publish(&origin, Event::from(kind).to_json().into());
}

fn delta(hub: &ObserverHub, thread: &str) {
    let n = hub.seq() + 1;
    observed(
        hub,
        thread,
        "r1",
        EventKind::TextMessageContent {
            message_id: "m1".into(),
            delta: format!("{n} "),
        },
    )
}

/// Read chunks until `n` chunks were seen; returns the raw text.
async fn read_chunks<St>(body: &mut St, n: usize) -> String
where
    St: Stream<Item = Result<Bytes, Infallible>> + Unpin,
{
    let mut text = String::new();
    for _ in 0..n {
        let chunk = tokio::time::timeout(Duration::from_secs(5), body.next())
            .await
            .expect("a chunk in time")
            .expect("the stream goes on")
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    text
}

fn frames(text: &str) -> Vec<SseFrame> {
    let mut d = Decoder::new();
    d.push(text.as_bytes()).unwrap()
}

fn conv_with(run: RunStatus) -> Conversation {
    let mut c = Conversation::new();
    c.state = json!({"step": 3});
    c.run = run;
    c
}

#[tokio::test]
async fn lagging_observer_gets_snapshots_then_live_events() {
    let tx = hub(4);
    let snap = |t: Option<&str>| {
        assert_eq!(t, Some("t1"));
        (
            8,
            vec![(
                "t1".to_string(),
                conv_with(RunStatus::Running {
                    run_id: "r1".into(),
                }),
            )],
        )
    };
    let mut body = Box::pin(observer_stream(
        tx.subscribe(),
        Some("t1".into()),
        Duration::from_secs(60),
        snap,
    ));
    assert_eq!(read_chunks(&mut body, 1).await, ": connected\n\n");
    // The run started, the observer saw it…
    observed(
        &tx,
        "t1",
        "r1",
        EventKind::RunStarted {
            thread_id: "t1".into(),
            run_id: "r1".into(),
            parent_run_id: None,
            input: None,
            protocol_version: None,
        },
    );
    let first = frames(&read_chunks(&mut body, 1).await);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].id.as_deref(), Some("1"));
    // …then 9 more events overflow the 4-event window before it reads again.
    for _ in 2..=10 {
        delta(&tx, "t1");
    }
    let text = read_chunks(&mut body, 1).await;
    assert!(
        text.starts_with(": resync after 5 missed events\n\n"),
        "{text}"
    );
    let fs = frames(&text);
    let types: Vec<String> = fs
        .iter()
        .map(|f| serde_json::from_str::<Value>(&f.data).unwrap()["type"].to_string())
        .collect();
    // No RUN_STARTED again (the observer saw r1 start), the snapshots with the snapshot's
    // id, then only the events after seq 8 (7 and 8 are in the snapshot).
    assert_eq!(
        types,
        [
            "\"MESSAGES_SNAPSHOT\"",
            "\"STATE_SNAPSHOT\"",
            "\"TEXT_MESSAGE_CONTENT\"",
            "\"TEXT_MESSAGE_CONTENT\""
        ]
    );
    let ids: Vec<_> = fs.iter().map(|f| f.id.clone().unwrap()).collect();
    assert_eq!(ids, ["8", "8", "9", "10"]);
    let state: Value = serde_json::from_str(&fs[1].data).unwrap();
    assert_eq!(state["snapshot"], json!({"step": 3}));
    assert_eq!(state["metadata"], json!({"threadId": "t1", "resync": true}));
    // And it goes on live.
    delta(&tx, "t1");
    let next = frames(&read_chunks(&mut body, 1).await);
    assert_eq!(next[0].id.as_deref(), Some("11"));
}

#[tokio::test]
async fn resync_closes_a_run_whose_end_was_missed_and_opens_one_whose_start_was() {
    let tx = hub(2);
    let snap = |t: Option<&str>| {
        assert_eq!(t, None);
        let mut a = conv_with(RunStatus::Finished {
            run_id: "ra".into(),
            outcome: Some(crate::protocol::types::RunOutcome::Cancelled),
        });
        a.messages.push(Message::new_text(
            crate::protocol::types::TextRole::Assistant,
            "m1".into(),
            None,
        ));
        let b = conv_with(RunStatus::Running {
            run_id: "rb".into(),
        });
        (20, vec![("ta".to_string(), a), ("tb".to_string(), b)])
    };
    let mut body = Box::pin(observer_stream(
        tx.subscribe(),
        None,
        Duration::from_secs(60),
        snap,
    ));
    read_chunks(&mut body, 1).await;
    observed(
        &tx,
        "ta",
        "ra",
        EventKind::RunStarted {
            thread_id: "ta".into(),
            run_id: "ra".into(),
            parent_run_id: None,
            input: None,
            protocol_version: None,
        },
    );
    read_chunks(&mut body, 1).await;
    for _ in 2..=20 {
        delta(&tx, "ta");
    }
    // rb's RUN_STARTED is numbered after the snapshot (begin_thread ran before publish):
    // the resync announced it already, so the live copy is dropped.
    observed(
        &tx,
        "tb",
        "rb",
        EventKind::RunStarted {
            thread_id: "tb".into(),
            run_id: "rb".into(),
            parent_run_id: None,
            input: None,
            protocol_version: None,
        },
    );
    delta(&tx, "tb");
    let text = read_chunks(&mut body, 1).await;
    let events: Vec<Value> = frames(&text)
        .iter()
        .map(|f| serde_json::from_str(&f.data).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "RUN_FINISHED",
            "RUN_STARTED",
            "MESSAGES_SNAPSHOT",
            "STATE_SNAPSHOT",
            "TEXT_MESSAGE_CONTENT"
        ],
        "{text}"
    );
    assert_eq!(events[0]["messages"][0]["id"], "m1");
    assert_eq!(events[2]["runId"], "ra");
    assert_eq!(events[2]["outcome"], json!({"type": "cancelled"}));
    assert_eq!(events[3]["runId"], "rb");
}

#[tokio::test]
async fn idle_observer_gets_keep_alives_and_filter_applies() {
    let tx = hub(16);
    let mut body = Box::pin(observer_stream(
        tx.subscribe(),
        Some("mine".into()),
        Duration::from_millis(200),
        |_: Option<&str>| (0, Vec::new()),
    ));
    read_chunks(&mut body, 1).await;
    delta(&tx, "other");
    delta(&tx, "mine");
    let text = read_chunks(&mut body, 1).await;
    assert_eq!(frames(&text).len(), 1);
    assert_eq!(frames(&text)[0].id.as_deref(), Some("2"));
    assert_eq!(read_chunks(&mut body, 1).await, sse::KEEP_ALIVE);
    drop(tx);
    // The hub is gone: the stream ends.
    assert!(body.next().await.is_none());
}

/// What an observer stream has ready now, each piece as it came (stops at the first wait).
async fn ready_pieces<St>(body: &mut St) -> Vec<Bytes>
where
    St: Stream<Item = Result<Bytes, Infallible>> + Unpin,
{
    let mut pieces = Vec::new();
    for _ in 0..10_000 {
        match tokio::time::timeout(Duration::from_millis(50), body.next()).await {
            Ok(Some(Ok(piece))) => pieces.push(piece),
            _ => break,
        }
    }
    pieces
}

#[tokio::test]
async fn observers_send_a_runs_frames_as_slices_of_the_same_shared_bytes() {
    let tx = hub(4096);
    let never = |_: Option<&str>| (0, Vec::new());
    let keep = Duration::from_secs(60);
    let mut a = Box::pin(observer_stream(tx.subscribe(), None, keep, never));
    let mut b = Box::pin(observer_stream(tx.subscribe(), None, keep, never));
    // Filtered to one thread of two whose events alternate: its runs are one event long.
    let mut only = Box::pin(observer_stream(
        tx.subscribe(),
        Some("t2".into()),
        keep,
        never,
    ));
    for body in [&mut a, &mut b, &mut only] {
        assert_eq!(read_chunks(body, 1).await, ": connected\n\n");
    }
    for i in 0..1000 {
        delta(&tx, if i % 2 == 0 { "t1" } else { "t2" });
    }
    let (pa, pb) = (ready_pieces(&mut a).await, ready_pieces(&mut b).await);
    let joined = |pieces: &[Bytes]| -> String {
        pieces
            .iter()
            .map(|p| std::str::from_utf8(p).unwrap())
            .collect()
    };
    let ids: Vec<u64> = frames(&joined(&pa))
        .iter()
        .map(|f| f.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, (1..=1000).collect::<Vec<_>>());
    assert_eq!(joined(&pa), joined(&pb));
    // Both observers hand out the same memory, not copies of it, in a few large pieces: one
    // per step of BATCH events, and one more where a step crosses from one buffer to the next.
    let buffers = joined(&pa).len() / crate::server::runs::SEGMENT_BYTES + 1;
    assert!(
        pa.len() <= 1000 / feed::BATCH + 1 + buffers,
        "{} pieces",
        pa.len()
    );
    // (A step's short remainder of a buffer is copied, so nearly all, not all, is shared.)
    assert_eq!(pa.len(), pb.len());
    let shared: usize = pa
        .iter()
        .zip(&pb)
        .filter(|(x, y)| x.as_ptr() == y.as_ptr() && x.len() == y.len())
        .map(|(x, _)| x.len())
        .sum();
    let total = joined(&pa).len();
    assert!(shared * 10 >= total * 9, "{shared} of {total} bytes shared");
    // The filtered observer gets its 500 one-event runs copied together, not 500 pieces.
    let po = ready_pieces(&mut only).await;
    let ids: Vec<u64> = frames(&joined(&po))
        .iter()
        .map(|f| f.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, (1..=1000).filter(|n| n % 2 == 0).collect::<Vec<_>>());
    assert!(po.len() <= 1000 / feed::BATCH + 1, "{} pieces", po.len());
    let shared = po
        .iter()
        .any(|p| pa.iter().any(|q| q.as_ptr() == p.as_ptr()));
    assert!(!shared, "one-event runs are copied");
}

#[tokio::test]
async fn an_owners_observer_shows_only_their_runs_however_their_events_interleave() {
    let tx = hub(4096);
    let run = |owner: &str, thread: &str| {
        Arc::new(Origin {
            thread_id: thread.into(),
            run_id: format!("run-{owner}").into(),
            owner: crate::server::accounts::User(owner.into()),
        })
    };
    // One origin per run, shared by its events, as the runs publish them.
    let (alice, bob) = (run("alice", "ta"), run("bob", "tb"));
    let mut body = Box::pin(observer_stream_from(
        tx.subscribe(),
        None,
        Duration::from_secs(60),
        |_: Option<&str>| (0, Vec::new()),
        Start::Live,
        Some(crate::server::accounts::User("alice".into())),
    ));
    assert_eq!(read_chunks(&mut body, 1).await, ": connected\n\n");
    // Runs of 1, 2, 3 … events of one owner, then of the other.
    let mut expected = Vec::new();
    for block in 1..=40u64 {
        let origin = if block % 2 == 0 { &alice } else { &bob };
        for _ in 0..block {
            let n = tx.seq() + 1;
            tx.publish(origin, format!("{{\"n\":{n}}}").into());
            if block % 2 == 0 {
                expected.push(n);
            }
        }
    }
    let pieces = ready_pieces(&mut body).await;
    let text: String = pieces
        .iter()
        .map(|p| std::str::from_utf8(p).unwrap())
        .collect();
    let ids: Vec<u64> = frames(&text)
        .iter()
        .map(|f| f.id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, expected);
}
