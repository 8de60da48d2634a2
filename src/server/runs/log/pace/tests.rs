//! A run keeps pace with its own reader: never more than [`PACE_AHEAD`] events ahead of it, so
//! the reader stays in the log's window; a reader that stops holds its run for at most
//! [`PACE_PATIENCE`] once, and one that is gone holds it not at all.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{PACE_AHEAD, PACE_PATIENCE};
use crate::protocol::event::EventKind;
use crate::server::agents::demo::testing::{input_for, settings};
use crate::server::agents::demo::DemoAgent;
use crate::server::runs::{Runs, StartedRun};
use crate::server::store::Store;

/// Deltas of the runs here: several times the pace, so that a run not held back would be far
/// ahead of a reader that stops.
const DELTAS: u64 = 5 * PACE_AHEAD;

async fn long_run(runs: &Arc<Runs>) -> (StartedRun, String) {
    let input = input_for(&format!("long {DELTAS}"));
    let run_id = input.run_id.clone();
    let started = runs
        .start(Arc::new(DemoAgent), input, settings())
        .await
        .unwrap();
    (started, run_id)
}

/// Reads the rest of the run: every event once, in order, ending with `RUN_FINISHED`; returns
/// how many deltas came.
async fn read_to_the_end(started: &mut StartedRun, mut last: u64) -> u64 {
    let mut deltas = 0;
    let mut end = None;
    while let Some(f) = started.events.next().await {
        assert_eq!(f.seq, last + 1, "events come in order, each once");
        last = f.seq;
        if matches!(f.event().kind, EventKind::TextMessageContent { .. }) {
            deltas += 1;
        }
        end = Some(f.event().kind.clone());
    }
    assert!(
        matches!(end, Some(EventKind::RunFinished { .. })),
        "{end:?}"
    );
    deltas
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_no_further_ahead_of_its_reader_than_the_pace() {
    let runs = Runs::with_store(Store::open(":memory:").await.unwrap());
    let (mut started, run_id) = long_run(&runs).await;
    let log = runs.registry.log(&run_id).expect("the run is in progress");
    let mut read = 0;
    for _ in 0..1000 {
        read = started.events.next().await.expect("the run goes on").seq;
    }
    // The reader stops for a while; the run, streaming flat out, would otherwise be done.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ahead = log.last_seq() - started.events.position();
    assert!(
        ahead <= PACE_AHEAD + 1,
        "the run went {ahead} events ahead of its reader"
    );
    assert!(!log.has_ended(), "the run waits for its reader");
    let deltas = read_to_the_end(&mut started, read).await;
    assert!(deltas > DELTAS - 1000, "{deltas}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_reader_stopped_goes_on_after_the_patience() {
    let runs = Runs::with_store(Store::open(":memory:").await.unwrap());
    let (mut started, run_id) = long_run(&runs).await;
    let log = runs.registry.log(&run_id).expect("the run is in progress");
    let read = started.events.next().await.expect("RUN_STARTED").seq;
    let stopped = Instant::now();
    let deadline = stopped + PACE_PATIENCE + Duration::from_secs(20);
    while !log.has_ended() {
        assert!(Instant::now() < deadline, "the run never went on");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        stopped.elapsed() >= PACE_PATIENCE,
        "the run ended {:?} after its reader stopped: it was not held",
        stopped.elapsed()
    );
    // What the reader missed comes from the database: nothing lost.
    assert_eq!(read_to_the_end(&mut started, read).await, DELTAS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_reader_is_gone_is_not_held() {
    let runs = Runs::with_store(Store::open(":memory:").await.unwrap());
    let (started, run_id) = long_run(&runs).await;
    let log = runs.registry.log(&run_id).expect("the run is in progress");
    let StartedRun {
        events,
        cancel: _keep,
    } = started;
    drop(events);
    let gone = Instant::now();
    while !log.has_ended() {
        assert!(
            gone.elapsed() < PACE_PATIENCE,
            "a run whose reader is gone waited for it"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
