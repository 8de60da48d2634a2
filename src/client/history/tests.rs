use super::*;
use crate::wire::{RunState, RunSummary};

fn run(id: &str, at: i64, status: RunState, events: u64) -> RunSummary {
    RunSummary {
        run_id: id.into(),
        thread_id: "t".into(),
        agent_id: None,
        status,
        started_at: at,
        ended_at: None,
        event_count: events,
        error: None,
        events_url: format!("/api/runs/{id}/events"),
    }
}

#[test]
fn finished_runs_the_session_lacks_newest_that_fit_oldest_first() {
    let runs = [
        run("c", 3, RunState::Finished, 50),
        run("a", 1, RunState::Finished, 80),
        run("b", 2, RunState::Error, 40),
        run("live", 4, RunState::Finished, 10),
        run("going", 5, RunState::Running, 10),
    ];
    let (load, left_out) = runs_to_load(&runs, &|id| id == "live", 100);
    let ids: Vec<&str> = load.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(left_out, 1, "a: over the limit");
    let (all, none) = runs_to_load(&runs, &|_| false, usize::MAX);
    assert_eq!((all.len(), none), (4, 0));
}

#[test]
fn a_run_claiming_more_events_than_exist_does_not_overflow() {
    let runs = [
        run("x", 1, RunState::Finished, u64::MAX),
        run("y", 2, RunState::Finished, 3),
    ];
    let (load, left_out) = runs_to_load(&runs, &|_| false, 1000);
    assert_eq!(load.len(), 1);
    assert_eq!(left_out, 1);
}

#[test]
fn the_status_line() {
    assert_eq!(HistoryStatus::Idle.describe(), None);
    assert_eq!(
        HistoryStatus::Loaded {
            runs: 2,
            events: 1,
            left_out: 1
        }
        .describe()
        .unwrap(),
        "Stored history: 2 earlier runs (1 event); 1 older run not loaded (over the limit)"
    );
    assert!(HistoryStatus::Loading {
        runs_done: 0,
        runs: 3,
        events: 10
    }
    .describe()
    .unwrap()
    .contains("run 1 of 3"));
}
