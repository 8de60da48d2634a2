//! A run run again: when a run starts with exactly the input of its thread's last run (the
//! same messages, by id), and that run failed or was cut short by a restart — or ended in any
//! way and the new run resumes no interrupt (a client regenerating the last answer: it sends
//! what the last run started from, without that run's answer) — the new run replaces it. What
//! the replaced run added to the thread (an answer, a partial one, a half-made tool call, its
//! render hints) goes, as it does from the screen of the client that retries: the thread
//! reads as if the earlier attempt had not happened.

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
/// `may_regenerate` whether `input` could regenerate an answer that did not fail (it resumes
/// nothing and carries no more messages than the thread). Only then is the last run looked up.
pub async fn replaced_run(
    store: &Store,
    failed_in_memory: Option<bool>,
    may_regenerate: bool,
    input: &RunAgentInput,
) -> Option<Replaced> {
    match failed_in_memory {
        Some(false) if !may_regenerate => return None,
        // Once the last run's end is written.
        Some(_) => store.flush_thread(&input.thread_id).await,
        None => {}
    }
    let last = store.last_run(&input.thread_id).await.ok()??;
    let replaceable = match last.status {
        RunState::Error | RunState::Interrupted => true,
        RunState::Finished | RunState::Cancelled => may_regenerate,
        RunState::Running => false,
    };
    if !replaceable {
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
