//! Tests of the observer hub: every observer takes every event once, in order, or is told how
//! many it missed; waits wake on a publish; subscriptions come and go.
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::*;

fn publish(hub: &ObserverHub, n: u64) {
    for _ in 0..n {
        let json: Arc<str> = format!("{{\"n\":{}}}", hub.seq() + 1).into();
        hub.publish(&origin("t"), json);
    }
}

/// Run `r` of thread `thread`, the anonymous user's.
fn origin(thread: &str) -> Arc<Origin> {
    Arc::new(Origin {
        thread_id: thread.into(),
        run_id: "r".into(),
        owner: User::anonymous(),
    })
}

/// Everything `sub` can take now: the numbers taken, and each lag's count.
fn drain(sub: &mut Subscription) -> (Vec<u64>, Vec<u64>) {
    let (mut seqs, mut lags) = (Vec::new(), Vec::new());
    for _ in 0..10_000 {
        match sub.take(7, |ev| seqs.push(ev.seq)) {
            Taken::Events(0) | Taken::Closed => break,
            Taken::Events(_) => {}
            Taken::Lagged(n) => lags.push(n),
        }
    }
    (seqs, lags)
}

#[test]
fn a_subscriber_takes_what_follows_its_place_in_batches() {
    let hub = Arc::new(ObserverHub::with_capacity(100, 8));
    publish(&hub, 3);
    let mut sub = hub.subscribe();
    assert_eq!(sub.last(), 103);
    assert_eq!(drain(&mut sub), (vec![], vec![]));
    publish(&hub, 5);
    assert_eq!(sub.behind(), 5);
    let mut got = Vec::new();
    assert!(matches!(
        sub.take(2, |ev| got.push(ev.seq)),
        Taken::Events(2)
    ));
    assert_eq!(got, [104, 105]);
    assert_eq!(drain(&mut sub), (vec![106, 107, 108], vec![]));
    assert_eq!(sub.behind(), 0);
}

#[test]
fn a_subscriber_past_the_window_is_told_how_many_it_missed() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 4));
    let mut sub = hub.subscribe();
    publish(&hub, 10);
    // 1..6 fell out of the 4-event window.
    assert_eq!(drain(&mut sub), (vec![7, 8, 9, 10], vec![6]));
    publish(&hub, 3);
    assert_eq!(drain(&mut sub), (vec![11, 12, 13], vec![]));
    // A resync's snapshot reflects up to 20: what comes before it is skipped.
    publish(&hub, 9);
    sub.skip_to(20);
    assert_eq!(drain(&mut sub), (vec![21, 22], vec![]));
}

#[test]
fn resuming_within_the_window_goes_on_after_the_last_event_seen() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 4));
    publish(&hub, 6);
    let (mut sub, held) = hub.subscribe_after(3);
    assert!(held);
    assert_eq!(drain(&mut sub), (vec![4, 5, 6], vec![]));
    // Older than the window, or from the future (another process): resynchronise, from now.
    for last in [1, 7, u64::MAX - 1] {
        let (mut sub, held) = hub.subscribe_after(last);
        assert!(!held, "{last}");
        assert_eq!(sub.last(), 6);
        assert_eq!(drain(&mut sub), (vec![], vec![]));
    }
    // An empty hub: only its current number resumes.
    let empty = Arc::new(ObserverHub::with_capacity(50, 4));
    assert!(empty.subscribe_after(50).1);
    assert!(!empty.subscribe_after(49).1);
}

#[test]
fn subscriptions_are_counted_and_do_not_keep_the_hub() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 4));
    let a = hub.subscribe();
    let (mut b, _) = hub.subscribe_after(0);
    assert_eq!(hub.receivers(), 2);
    drop(a);
    assert_eq!(hub.receivers(), 1);
    drop(hub);
    assert!(matches!(b.take(10, |_| {}), Taken::Closed));
    assert_eq!(b.behind(), 0);
}

#[tokio::test]
async fn a_wait_ends_at_a_publish_at_its_deadline_and_at_the_hubs_end() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 4));
    let sub = hub.subscribe();
    let start = Instant::now();
    sub.wait(start + Duration::from_millis(100)).await;
    assert!(start.elapsed() >= Duration::from_millis(100));
    let publisher = {
        let hub = hub.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            publish(&hub, 1);
        })
    };
    let start = Instant::now();
    sub.wait(start + Duration::from_secs(10)).await;
    assert!(start.elapsed() < Duration::from_secs(5));
    publisher.await.unwrap();
    // Already published: no wait at all.
    sub.wait(Instant::now() + Duration::from_secs(10)).await;
    drop(hub);
    let start = Instant::now();
    sub.wait(start + Duration::from_secs(10)).await;
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// Observers on several threads against a publisher that never waits for them: each takes
/// every event once and in order, except where it is told how many it missed, and those
/// counts close every gap exactly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_observers_see_every_event_once_in_order_or_the_gap_counted() {
    const EVENTS: u64 = 20_000;
    let hub = Arc::new(ObserverHub::with_capacity(1_000, 64));
    let observers: Vec<_> = (0..8)
        .map(|i| {
            let mut sub = hub.subscribe();
            tokio::spawn(async move {
                let (mut seen, mut missed, mut expect) = (0u64, 0u64, 1_001u64);
                let deadline = Instant::now() + Duration::from_secs(30);
                while expect <= 1_000 + EVENTS && Instant::now() < deadline {
                    let mut order_ok = true;
                    match sub.take(1 + i * 5, |ev| {
                        order_ok &= ev.seq == expect;
                        expect = ev.seq + 1;
                    }) {
                        Taken::Events(0) => sub.wait(deadline).await,
                        Taken::Events(n) => seen += n as u64,
                        Taken::Lagged(n) => {
                            missed += n;
                            expect += n;
                        }
                        Taken::Closed => break,
                    }
                    assert!(order_ok, "observer {i} out of order before {expect}");
                    if i % 3 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                (seen, missed)
            })
        })
        .collect();
    let publisher = {
        let hub = hub.clone();
        tokio::spawn(async move {
            for k in 0..EVENTS {
                publish(&hub, 1);
                if k % 100 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    publisher.await.unwrap();
    for (i, o) in observers.into_iter().enumerate() {
        let (seen, missed) = tokio::time::timeout(Duration::from_secs(40), o)
            .await
            .expect("the observer finished in time")
            .unwrap();
        assert_eq!(
            seen + missed,
            EVENTS,
            "observer {i}: {seen} seen, {missed} missed"
        );
    }
    assert_eq!(hub.receivers(), 0);
}

#[test]
fn frames_are_encoded_once_into_buffers_of_bounded_size() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 4096));
    let mut sub = hub.subscribe();
    // Small events, and a few larger than a whole buffer among them.
    for n in 1..=3000u64 {
        let pad = if n % 1000 == 0 {
            SEGMENT_BYTES + 10
        } else {
            100
        };
        let json: Arc<str> = format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(pad)).into();
        hub.publish(&origin("t"), json);
    }
    let mut frames = Vec::new();
    for _ in 0..100 {
        match sub.take(128, |ev| {
            let f = ev.frame().expect("every event taken has its frame");
            frames.push((ev.seq, ev.json.clone(), f.segment.clone(), f.start, f.end));
        }) {
            Taken::Events(0) => break,
            Taken::Events(_) => {}
            Taken::Lagged(n) => panic!("lagged by {n} with the window large enough"),
            Taken::Closed => panic!("the hub closed while held"),
        }
    }
    assert_eq!(frames.len(), 3000);
    let mut segments: Vec<&bytes::Bytes> = Vec::new();
    for (seq, json, segment, start, end) in &frames {
        let expected = crate::protocol::sse::encode_event(json, Some(&seq.to_string()), None);
        assert_eq!(&segment[*start..*end], expected.as_bytes(), "event {seq}");
        if !segments.iter().any(|s| s.as_ptr() == segment.as_ptr()) {
            segments.push(segment);
        }
    }
    for segment in &segments {
        // Bounded, unless one frame alone is larger.
        let alone = frames
            .iter()
            .filter(|f| f.2.as_ptr() == segment.as_ptr())
            .count()
            == 1;
        assert!(
            segment.len() <= SEGMENT_BYTES + 200 || alone,
            "a buffer of {} bytes",
            segment.len()
        );
    }
    // Shared, not one buffer per event: 297 KB of small frames in a handful of buffers.
    assert!(segments.len() < 20, "{} buffers", segments.len());
    // A second observer gets the same buffers: nothing is encoded again.
    let mut again = hub.subscribe_after(0).0;
    let mut same = 0;
    for _ in 0..100 {
        let taken = again.take(128, |ev| {
            let f = ev.frame().unwrap();
            same += usize::from(segments.iter().any(|s| s.as_ptr() == f.segment.as_ptr()));
        });
        if let Taken::Events(0) = taken {
            break;
        }
    }
    assert_eq!(same, 3000);
}

/// What `sub` takes now: each event's number, JSON (the shared string itself), thread, origin
/// (its address) and frame bytes.
type TakenEvent = (u64, Arc<str>, String, usize, Vec<u8>);

fn take_all(sub: &mut Subscription) -> Vec<TakenEvent> {
    let mut out = Vec::new();
    for _ in 0..100 {
        match sub.take(16, |ev| {
            let frame = ev.frame().expect("a frame").as_bytes().to_vec();
            out.push((
                ev.seq,
                ev.json.clone(),
                ev.origin.thread_id.to_string(),
                Arc::as_ptr(&ev.origin) as usize,
                frame,
            ));
        }) {
            Taken::Events(0) | Taken::Closed => break,
            Taken::Events(_) => {}
            Taken::Lagged(n) => panic!("lagged by {n}"),
        }
    }
    out
}

#[test]
fn relocating_copies_every_event_and_observers_go_on_as_before() {
    let hub = Arc::new(ObserverHub::with_capacity(0, 64));
    let (a, b) = (origin("a"), origin("b"));
    let mut follower = hub.subscribe();
    for n in 1..=40u64 {
        // One event too large to be worth copying.
        let pad = if n == 7 { RELOCATE_MAX_EVENT_BYTES } else { 0 };
        let json: Arc<str> = format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(pad)).into();
        hub.publish(if n % 2 == 1 { &a } else { &b }, json);
    }
    // An observer has taken half (their frames are encoded), another takes all later.
    let mut taken = 0;
    for _ in 0..100 {
        match follower.take(20 - taken, |_| {}) {
            Taken::Events(n) if n > 0 && taken + n < 20 => taken += n,
            Taken::Events(n) => {
                taken += n;
                break;
            }
            _ => panic!("the follower could not take its events"),
        }
    }
    assert_eq!(taken, 20);
    let (mut late, whole) = hub.subscribe_after(0);
    assert!(whole);
    let before = take_all(&mut hub.subscription(0));
    assert_eq!(before.len(), 40);

    hub.relocate();

    // The same events, numbers, threads and frames, each in a string of its own now; the
    // events of one run share one origin, a new one.
    let after = take_all(&mut late);
    assert_eq!(after.len(), 40);
    for (x, y) in before.iter().zip(&after) {
        assert_eq!((x.0, &*x.1, &x.2, &x.4), (y.0, &*y.1, &y.2, &y.4));
        assert_eq!(
            Arc::ptr_eq(&x.1, &y.1),
            x.0 == 7,
            "event {} copied unless large",
            x.0
        );
        assert_ne!(x.3, y.3, "the origin of event {} was not copied", x.0);
    }
    let origins: std::collections::HashSet<usize> = after.iter().map(|e| e.3).collect();
    assert_eq!(origins.len(), 2, "one origin per run");
    // The observer that had taken half goes on where it was, then with what comes next.
    hub.publish(&a, "{\"n\":41}".into());
    let rest = take_all(&mut follower);
    assert_eq!(
        rest.iter().map(|e| e.0).collect::<Vec<_>>(),
        (21..=41).collect::<Vec<_>>()
    );
}
