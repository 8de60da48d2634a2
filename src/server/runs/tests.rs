//! Tests of the run registry: threads without a run in progress leave memory beyond the limit
//! and come back from the database intact; a client sending only recent messages loses none of
//! the older ones, also after a crash; a failed run run again is replaced.

use std::sync::Arc;

use crate::protocol::event::EventKind;
use crate::protocol::types::{Message, RunAgentInput};
use crate::server::agents::demo::testing::{input_for, run_input, settings, user};
use crate::server::agents::demo::DemoAgent;
use crate::server::runs::Runs;
use crate::server::store::testing::{fresh_store, hold_write_lock};
use crate::server::store::Store;

fn run_on(thread: &str, run: &str, text: &str) -> RunAgentInput {
    let mut input = RunAgentInput::new(thread.to_string(), run.to_string());
    input.messages = vec![user(text)];
    input
}

async fn settle(runs: &Arc<Runs>) {
    for _ in 0..2500 {
        if runs.active_count() == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    panic!("runs did not end");
}

/// One `chat` run on each of the threads t0..t4, in order.
async fn chat_on_five_threads(runs: &Arc<Runs>) {
    for i in 0..5 {
        let input = run_on(&format!("t{i}"), &format!("r{i}"), "chat");
        run_input(runs, input, settings()).await;
        settle(runs).await;
    }
}

#[tokio::test]
async fn idle_threads_leave_memory_and_come_back_from_the_database() {
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store_keeping(store, 2);
    chat_on_five_threads(&runs).await;
    // The two most recently run threads stay.
    assert_eq!(runs.thread_ids(), ["t3", "t4"]);
    // An evicted thread continues with its history, read back from the database.
    let before = runs.load_thread("t0").await.expect("t0 is stored").messages;
    assert_eq!(before.len(), 2, "{before:?}");
    let (_, p) = run_input(&runs, run_on("t0", "r5", "backend_tool 2+3"), settings()).await;
    settle(&runs).await;
    let after = runs.load_thread("t0").await.expect("t0 is known").messages;
    let new = &p.conversation.messages;
    assert!(new.len() >= 3, "{new:?}");
    assert_eq!(after.len(), before.len() + new.len());
    assert_eq!(after[..2], before[..]);
    assert_eq!(after[2..], new[..]);
    assert!(matches!(&after[0], Message::User(_)));
    assert_eq!(runs.thread_ids(), ["t0", "t4"]);
    // Every thread is still there for readers.
    for i in 0..5 {
        assert!(runs.load_thread(&format!("t{i}")).await.is_some(), "t{i}");
    }
}

#[tokio::test]
async fn without_a_database_every_thread_stays() {
    let runs = Runs::new();
    chat_on_five_threads(&runs).await;
    assert_eq!(runs.thread_ids().len(), 5);
}

fn ids(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(Message::id).collect()
}

#[tokio::test]
async fn a_client_sending_only_recent_messages_keeps_the_older_ones() {
    // One thread kept in memory: t0 leaves it when t1 runs, and comes back from the database.
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store_keeping(store, 0);
    run_input(&runs, run_on("t0", "r0", "chat"), settings()).await;
    settle(&runs).await;
    let first = runs.load_thread("t0").await.unwrap().messages;
    assert_eq!(first.len(), 2, "{first:?}");
    run_input(&runs, run_on("t1", "r1", "chat"), settings()).await;
    settle(&runs).await;
    assert_eq!(runs.thread_ids(), ["t1"]);
    // The client sends the last answer and a new question: a window of the thread.
    let mut input = run_on("t0", "r2", "chat again");
    input.messages.insert(0, first[1].clone());
    run_input(&runs, input, settings()).await;
    settle(&runs).await;
    // Also once t0 has left memory again, it is all in the database.
    run_input(&runs, run_on("t1", "r3", "chat"), settings()).await;
    settle(&runs).await;
    assert_eq!(runs.thread_ids(), ["t1"]);
    let after = runs.load_thread("t0").await.unwrap().messages;
    assert_eq!(after.len(), 4, "{:?}", ids(&after));
    assert_eq!(after[..2], first[..]);
}

#[tokio::test]
async fn a_failed_run_run_again_is_replaced_by_the_new_run() {
    // The failed run's thread read back from the database, and kept in memory.
    for keep in [0, 8] {
        retry_replaces_the_failed_run(keep).await;
    }
}

async fn retry_replaces_the_failed_run(keep: usize) {
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store_keeping(store.clone(), keep);
    // `error` answers part of a sentence, then fails.
    run_input(&runs, run_on("t0", "r0", "error"), settings()).await;
    settle(&runs).await;
    let failed = runs.load_thread("t0").await.unwrap().messages;
    assert_eq!(failed.len(), 2, "{:?}", ids(&failed));
    // Another thread runs: t0 leaves memory unless kept.
    run_input(&runs, run_on("t1", "r1", "chat"), settings()).await;
    settle(&runs).await;
    // Retry: the failed run's own input, under a new run id.
    let mut retry = store.run_input("r0").await.unwrap().unwrap();
    retry.run_id = "r2".into();
    run_input(&runs, retry, settings()).await;
    settle(&runs).await;
    let after = runs.load_thread("t0").await.unwrap().messages;
    // The user's message and the retry's answer; the first attempt's partial answer is gone.
    assert_eq!(after.len(), 2, "{:?}", ids(&after));
    assert_eq!(after[0], failed[0]);
    assert_ne!(after[1].id(), failed[1].id());
    // A new message after a failure is not a retry: the failed answer stays before it.
    let mut next = run_on("t0", "r3", "chat");
    next.messages.splice(0..0, after.iter().cloned());
    run_input(&runs, next, settings()).await;
    settle(&runs).await;
    let last = runs.load_thread("t0").await.unwrap().messages;
    assert_eq!(last.len(), 4, "{:?}", ids(&last));
    assert_eq!(last[..2], after[..]);
}

#[tokio::test]
async fn recovery_keeps_the_messages_a_run_was_not_sent() {
    // A run started with a window of the thread (its last answer and a new question), cut short
    // by a crash: what the next process recovers is the whole thread plus the run's events.
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store.clone());
    run_input(&runs, run_on("t0", "r0", "chat"), settings()).await;
    settle(&runs).await;
    let first = runs.load_thread("t0").await.unwrap().messages;
    let mut window = run_on("t0", "r1", "long 5");
    window.messages.insert(0, first[1].clone());
    let mut thread = first.clone();
    thread.push(window.messages[1].clone());
    // As `Runs::start` records it; then two events, and the process dies.
    store
        .run_started(Store::run_started_op(&window, &thread, "demo", "", 1))
        .await;
    for (seq, e) in [
        r#"{"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"0 "}"#,
    ]
    .into_iter()
    .enumerate()
    {
        store
            .event("r1".into(), seq as u64 + 1, e.into(), None)
            .await;
    }
    assert_eq!(store.recover(2).await.unwrap(), 1);
    let recovered = store.thread("t0").await.unwrap().unwrap().messages;
    assert_eq!(
        ids(&recovered)[..3],
        ids(&thread)[..],
        "{:?}",
        ids(&recovered)
    );
    assert_eq!(ids(&recovered)[3], "a1");
}

#[tokio::test]
async fn recovery_leaves_a_run_that_ended_as_it_ended() {
    // Its terminal event was stored, its status not (the process died between the two).
    let store = Store::open(":memory:").await.unwrap();
    let input = run_on("t2", "r2", "interrupt");
    let op = Store::run_started_op(&input, &input.messages, "demo", "", 1);
    store.run_started(op).await;
    for (seq, e) in [
        r#"{"type":"RUN_STARTED","threadId":"t2","runId":"r2"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t2","runId":"r2","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}}"#,
    ]
    .into_iter()
    .enumerate()
    {
        store.event("r2".into(), seq as u64 + 1, e.into(), None).await;
    }
    store.flush().await;
    assert_eq!(store.recover(3).await.unwrap(), 1);
    let events = store.events_after("r2", 0, 10).await.unwrap();
    assert_eq!(
        events.len(),
        2,
        "no RUN_ERROR after RUN_FINISHED: {events:?}"
    );
    let run = store.run("r2").await.unwrap().unwrap();
    assert_eq!(run.status, crate::wire::RunState::Finished);
    // What it left open is still open.
    let open = store.open_interrupts("t2").await.unwrap();
    assert_eq!(
        open.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
        ["i1"]
    );
}

#[tokio::test]
async fn a_run_whose_events_cannot_be_stored_ends_with_storage_failed_and_claims_nothing_unstored()
{
    use crate::protocol::event::EventKind;
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store.clone());
    let mut s = settings();
    s.token_delay = std::time::Duration::from_millis(1);
    let agent = Arc::new(crate::server::agents::demo::DemoAgent);
    let mut started = runs
        .start(agent, run_on("t1", "r1", "long 1000000"), s)
        .await
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..50 {
        seen.push(started.events.next().await.unwrap().seq);
    }
    store.fill_disk().await;
    let mut last = None;
    while let Some(f) =
        tokio::time::timeout(std::time::Duration::from_secs(30), started.events.next())
            .await
            .expect("the reader ends")
    {
        if f.seq > 0 {
            seen.push(f.seq);
        }
        last = Some((f.seq, f.event().kind.clone()));
    }
    // The reader's end is made up (no id) and says why.
    let (seq, kind) = last.unwrap();
    assert_eq!(seq, 0);
    match kind {
        EventKind::RunError { code, .. } => assert_eq!(code.as_deref(), Some("STORAGE_FAILED")),
        other => panic!("ended with {other:?}"),
    }
    // Every event a client was given is stored, in order, without a gap.
    let stored: Vec<u64> = store
        .events_after("r1", 0, 10_000_000)
        .await
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let given: Vec<u64> = (1..=*seen.last().unwrap()).collect();
    assert_eq!(seen, given, "events given in order");
    assert!(
        stored.len() >= given.len(),
        "{} stored, {} given",
        stored.len(),
        given.len()
    );
    assert_eq!(stored[..given.len()], given[..]);
    assert!(stored.len() < 1_000_000, "the run stopped");
    settle(&runs).await;
}

#[tokio::test]
async fn idle_threads_are_kept_by_bytes() {
    use crate::server::limits::Limits;
    let store = Store::open(":memory:").await.unwrap();
    let tiny = Limits {
        idle_threads_bytes: 1,
        ..Limits::default()
    };
    let runs = Runs::with_store_and_limits(store, tiny);
    chat_on_five_threads(&runs).await;
    // Only the most recent thread stays (it is where observers look first).
    assert_eq!(runs.thread_ids(), ["t4"]);
    for i in 0..5 {
        assert!(runs.load_thread(&format!("t{i}")).await.is_some(), "t{i}");
    }
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store);
    chat_on_five_threads(&runs).await;
    assert_eq!(runs.thread_ids().len(), 5);
}

#[test]
fn merging_a_long_history_is_linear() {
    let many = |prefix: &str| -> Vec<Message> {
        (0..60_000)
            .map(|i| {
                let mut m = user("x");
                if let Message::User(u) = &mut m {
                    u.id = format!("{prefix}{i}");
                }
                m
            })
            .collect()
    };
    let history = many("h");
    let mut input = run_on("t", "r", "x");
    input.messages = many("n");
    let started = std::time::Instant::now();
    super::thread_cache::merge_history(&mut input, &history, &serde_json::json!({}));
    assert_eq!(input.messages.len(), 120_000);
    // Quadratic, this is 3.6 billion id comparisons (over a minute); linear, milliseconds.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn retention_deletes_old_runs_events_and_untouched_threads() {
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store.clone());
    chat_on_five_threads(&runs).await;
    store.flush().await;
    let cutoff = crate::server::clock::now_ms() + 1;
    // Thread t4 was touched after the cutoff: it keeps its messages, its run loses its events.
    let (_, p) = run_input(&runs, run_on("t4", "r9", "chat"), settings()).await;
    settle(&runs).await;
    store.flush().await;
    assert!(!p.conversation.messages.is_empty());
    sqlx::query("UPDATE threads SET updated_at = ? WHERE id = 't4'")
        .bind(cutoff + 10)
        .execute(&store.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE runs SET ended_at = ? WHERE id = 'r9'")
        .bind(cutoff + 10)
        .execute(&store.pool)
        .await
        .unwrap();
    let (events, threads) = store.cleanup(cutoff).await.unwrap();
    assert!(events > 0);
    assert_eq!(threads, 4);
    let left: Vec<String> = store
        .threads("", None, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(left, ["t4"]);
    assert!(store.events_after("r4", 0, 100).await.unwrap().is_empty());
    assert!(!store.events_after("r9", 0, 100).await.unwrap().is_empty());
    assert_eq!(store.thread("t4").await.unwrap().unwrap().messages.len(), 4);
}

#[tokio::test]
async fn a_run_on_a_database_locked_by_another_writer_ends_with_storage_failed() {
    use crate::protocol::event::EventKind;
    let (store, dir, path) = fresh_store("locked").await;
    let runs = Runs::with_store(store.clone());
    let mut s = settings();
    s.token_delay = std::time::Duration::from_millis(1);
    let agent = Arc::new(crate::server::agents::demo::DemoAgent);
    let mut started = runs
        .start(agent, run_on("t1", "r1", "long 1000000"), s)
        .await
        .unwrap();
    started.events.next().await.unwrap();
    // Another program holds the database's write lock for longer than the busy timeout.
    let mut other = hold_write_lock(&path).await;
    let mut last = None;
    while let Some(f) =
        tokio::time::timeout(std::time::Duration::from_secs(60), started.events.next())
            .await
            .expect("the reader ends")
    {
        last = Some(f.event().kind.clone());
    }
    match last {
        Some(EventKind::RunError { code, .. }) => {
            assert_eq!(code.as_deref(), Some("STORAGE_FAILED"))
        }
        other => panic!("ended with {other:?}"),
    }
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    settle(&runs).await;
    drop(other);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A stored run's id reused on another thread is refused (409), reused by another user too;
/// the same user on the same thread may reuse it (a client retrying a run it started).
#[tokio::test]
async fn a_stored_run_id_is_checked_in_one_lookup() {
    use crate::server::accounts::User;
    use crate::server::agents::demo::DemoAgent;
    use crate::server::error::ApiError;
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store);
    let (_, p) = run_input(&runs, run_on("ta", "ra", "chat"), settings()).await;
    settle(&runs).await;
    assert_eq!(
        p.conversation.messages.len(),
        2,
        "{:?}",
        p.conversation.messages
    );
    let start = |input: RunAgentInput, owner: User| {
        let runs = runs.clone();
        async move {
            runs.start_for(Arc::new(DemoAgent), input, settings(), owner)
                .await
                .map(|_| ())
        }
    };
    match start(run_on("tb", "ra", "chat"), User::anonymous()).await {
        Err(ApiError::Conflict(m)) => assert!(m.contains("on another thread"), "{m}"),
        other => panic!("{:?}", other.err()),
    }
    match start(run_on("tc", "ra", "chat"), User(Arc::from("mallory"))).await {
        Err(ApiError::Conflict(m)) => assert!(m.ends_with("is already used"), "{m}"),
        other => panic!("{:?}", other.err()),
    }
    assert!(start(run_on("ta", "ra", "chat"), User::anonymous())
        .await
        .is_ok());
    settle(&runs).await;
}

/// The log keeps events as JSON only; a reader that needs the event decodes it, and gets back
/// exactly what was sent, base fields included. JSON that does not decode (never written by
/// the log itself) becomes a `RUN_ERROR` naming the event, not a panic.
#[test]
fn a_logged_event_decodes_to_what_was_sent() {
    use crate::protocol::event::{Event, EventKind};
    use crate::server::runs::Logged;
    let mut meta = serde_json::Map::new();
    meta.insert("k".into(), serde_json::json!([1, {"deep": true}]));
    let sent = [
        Event::from(EventKind::TextMessageContent {
            message_id: "m".into(),
            delta: "héllo \"quoted\" \n".into(),
        })
        .with_timestamp(1_700_000_000_000)
        .with_metadata(meta),
        Event::from(EventKind::StateDelta {
            delta: vec![serde_json::json!({"op": "add", "path": "/a", "value": 1})],
        }),
    ];
    for event in sent {
        let logged = Logged {
            seq: 7,
            json: event.to_json().into(),
        };
        assert_eq!(logged.decode(), event);
    }
    let broken = Logged {
        seq: 9,
        json: r#"{"type":"NOT_AN_EVENT"}"#.into(),
    };
    match broken.decode().kind {
        EventKind::RunError { message, code, .. } => {
            assert!(message.contains("event 9"), "{message}");
            assert_eq!(code.as_deref(), Some("INTERNAL_ERROR"));
        }
        other => panic!("{other:?}"),
    }
}

/// A run waiting on an approval lets its committed events leave memory: a new reader gets them
/// from the database, and once the answer comes the run goes on, both readers receiving every
/// later event, in order, none lost or repeated.
#[tokio::test]
async fn a_waiting_run_keeps_no_committed_events_in_memory() {
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store);
    let input = input_for("approval");
    let run_id = input.run_id.clone();
    let mut started = runs
        .start(Arc::new(DemoAgent), input, settings())
        .await
        .unwrap();
    let mut first = Vec::new();
    while !matches!(first.last(), Some(EventKind::ToolCallEnd { .. })) {
        let e = started.events.recv().await.expect("the run goes on");
        first.push(e.kind);
    }
    let log = runs.registry.log(&run_id).expect("the run is in progress");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while log.held() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "a waiting run still holds {} events",
            log.held()
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(runs.pending_waits().len(), 1, "the run waits");
    let mut second = runs.reader(&run_id, 0, None).await.unwrap();
    for (i, want) in first.iter().enumerate() {
        let got = second.recv().await.expect("the stored events");
        assert_eq!(&got.kind, want, "event {}", i + 1);
    }
    let (call, _, _) = runs.pending_waits().remove(0);
    runs.resolve_wait(&call, serde_json::json!({"approved": true}));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    while let Some(e) = started.events.recv().await {
        a.push(e.kind);
    }
    while let Some(e) = second.recv().await {
        b.push(e.kind);
    }
    assert_eq!(a, b);
    assert!(a.len() > 3, "{a:?}");
    assert!(matches!(a[0], EventKind::ToolCallResult { .. }), "{a:?}");
    assert!(
        matches!(a.last(), Some(EventKind::RunFinished { .. })),
        "{a:?}"
    );
    assert_eq!(started.events.position(), second.position());
}

/// A started run's `RUN_STARTED` is committed with its start, before `start` returns: the
/// response's first write can carry it, before the run's task has had a turn (this runtime has
/// one thread, so the task has not run), and both are in the database.
#[tokio::test]
async fn a_run_starts_with_its_first_event_committed() {
    let (store, dir, _) = fresh_store("first").await;
    let runs = Runs::with_store(store.clone());
    let input = input_for("chat");
    let run_id = input.run_id.clone();
    let mut started = runs
        .start(Arc::new(DemoAgent), input, settings())
        .await
        .unwrap();
    let first = started
        .events
        .ready()
        .expect("RUN_STARTED is ready at once");
    assert_eq!(first.seq, 1);
    assert!(
        matches!(first.event().kind, EventKind::RunStarted { .. }),
        "{:?}",
        first.event()
    );
    let stored = store.events_after(&run_id, 0, 10).await.unwrap();
    assert_eq!(
        stored.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        [1],
        "only RUN_STARTED is stored yet: {stored:?}"
    );
    assert!(store.run_owner(&run_id).await.unwrap().is_some());
    while started.events.next().await.is_some() {}
    settle(&runs).await;
    drop((runs, store));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A request dropped while its run starts (its client hung up) leaves no run registered: the
/// start goes on, is cancelled, and the run ends; its thread takes a new run after it.
#[tokio::test]
async fn a_start_abandoned_halfway_leaves_no_run_behind() {
    use std::task::Poll;
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store);
    let mut request =
        Box::pin(runs.start(Arc::new(DemoAgent), run_on("tz", "rz1", "chat"), settings()));
    // Polled until the run is registered, then dropped with its start under way.
    let mut registered = false;
    for _ in 0..10_000 {
        if let Poll::Ready(r) = futures::poll!(&mut request) {
            panic!(
                "the start ended before it could be abandoned: {:?}",
                r.err()
            );
        }
        if runs.active_count() > 0 {
            registered = true;
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(registered, "the run was never registered");
    drop(request);
    settle(&runs).await;
    let (_, p) = run_input(&runs, run_on("tz", "rz2", "chat"), settings()).await;
    settle(&runs).await;
    assert!(!p.conversation.messages.is_empty());
}

#[tokio::test]
async fn relocating_after_a_crowd_keeps_every_thread_and_event_as_it_was() {
    let store = Store::open(":memory:").await.unwrap();
    let runs = Runs::with_store(store);
    chat_on_five_threads(&runs).await;
    let threads: Vec<String> = (0..5).map(|i| format!("t{i}")).collect();
    let snapshot = |runs: &Arc<Runs>| {
        threads
            .iter()
            .map(|t| {
                let c = runs.threads.get(t).expect("in memory");
                (c.messages, c.state, c.render_hints, c.pending_interrupts)
            })
            .collect::<Vec<_>>()
    };
    let events = |runs: &Arc<Runs>| {
        let oldest = runs.hub.oldest().expect("events in the hub");
        let (mut sub, whole) = runs.hub.subscribe_after(oldest - 1);
        assert!(whole);
        let mut out = Vec::new();
        for _ in 0..100 {
            match sub.take(64, |ev| out.push((ev.seq, ev.json.clone()))) {
                super::observers::Taken::Events(0) => break,
                super::observers::Taken::Events(_) => {}
                _ => panic!("the hub's events could not be read"),
            }
        }
        out
    };
    let (before, at_before, events_before) =
        (snapshot(&runs), runs.threads.addresses(), events(&runs));
    assert!(events_before.len() >= 5, "{}", events_before.len());

    runs.relocate_after_crowd();

    // The same conversations and events, each in allocations of its own now.
    assert_eq!(snapshot(&runs), before);
    let at_after = runs.threads.addresses();
    assert_eq!(at_after.len(), 5);
    for ((t, old), (t2, new)) in at_before.iter().zip(&at_after) {
        assert_eq!(t, t2);
        assert_ne!(old, new, "thread {t}'s conversation was not copied");
    }
    let events_after = events(&runs);
    assert_eq!(events_after.len(), events_before.len());
    for (x, y) in events_before.iter().zip(&events_after) {
        assert_eq!((x.0, &*x.1), (y.0, &*y.1));
        assert!(!Arc::ptr_eq(&x.1, &y.1), "event {} was not copied", x.0);
    }
    // A copied thread goes on: the next run continues its history.
    let (_, p) = run_input(&runs, run_on("t0", "r9", "chat"), settings()).await;
    settle(&runs).await;
    let t0 = runs.load_thread("t0").await.expect("t0").messages;
    assert_eq!(t0.len(), before[0].0.len() + p.conversation.messages.len());
    assert_eq!(t0[..before[0].0.len()], before[0].0[..]);
}
