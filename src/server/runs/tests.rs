//! Tests of the run registry: threads without a run in progress leave memory beyond the limit
//! and come back from the database intact.

use std::sync::Arc;

use crate::protocol::types::{Message, RunAgentInput};
use crate::server::agents::demo::testing::{run_input, settings, user};
use crate::server::runs::Runs;
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
