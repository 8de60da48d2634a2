//! A failed run run again: when a run starts with exactly the input of its thread's last run,
//! and that run failed or was cut short by a restart, the new run replaces it. What the failed
//! run added to the thread (a partial answer, a half-made tool call, its render hints) goes, as
//! it does from the screen of the client that retries: the thread reads as if the failed
//! attempt had not happened.

use std::collections::HashSet;

use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Message, RunAgentInput};
use crate::server::store::Store;
use crate::wire::RunState;

/// The run a new run replaces, and the ids of the messages it added.
pub struct Replaced {
    pub run_id: String,
    pub produced: HashSet<String>,
}

/// The run `input` replaces, if it is a retry (see the module), read from the database, which
/// keeps each run's input and events. `failed_in_memory` says whether the thread's last run
/// failed when the thread is in memory (None: it is not, and was just read from the database);
/// only a failed one is looked up.
pub async fn replaced_run(
    store: &Store,
    failed_in_memory: Option<bool>,
    input: &RunAgentInput,
) -> Option<Replaced> {
    match failed_in_memory {
        Some(false) => return None,
        // Once the failed run's end is written.
        Some(true) => store.flush().await,
        None => {}
    }
    let last = store.last_run(&input.thread_id).await.ok()??;
    if !matches!(last.status, RunState::Error | RunState::Interrupted) {
        return None;
    }
    let failed = store.run_input(&last.run_id).await.ok()??;
    let ids = |messages: &[Message]| messages.iter().map(|m| m.id().to_string()).collect();
    let before: Vec<String> = ids(&failed.messages);
    if before != ids(&input.messages) {
        return None;
    }
    // What the failed run made of its input: the shared reducer over its stored events.
    let mut conv = Conversation::default();
    conv.apply(&Event::from(EventKind::MessagesSnapshot {
        messages: failed.messages,
    }));
    if let Err(e) = store.replay_run(&last.run_id, &mut conv).await {
        tracing::error!(run = %last.run_id, "cannot read the failed run's events: {e}");
        return None;
    }
    let before: HashSet<String> = before.into_iter().collect();
    let produced = conv
        .messages
        .iter()
        .map(|m| m.id().to_string())
        .filter(|id| !before.contains(id))
        .collect();
    Some(Replaced {
        run_id: last.run_id,
        produced,
    })
}
