//! A failed run run again: when a run starts with exactly the input of its thread's last run,
//! and that run failed or was cut short by a restart, the new run replaces it. What the failed
//! run added to the thread (a partial answer, a half-made tool call, its render hints) goes, as
//! it does from the screen of the client that retries: the thread reads as if the failed
//! attempt had not happened.

use std::collections::HashSet;

use super::*;
use crate::protocol::reduce::RunStatus;
use crate::protocol::types::Message;

/// The run a new run replaces, and the ids of the messages it added.
pub(super) struct Replaced {
    pub run_id: String,
    pub produced: HashSet<String>,
}

impl Runs {
    /// The run `input` replaces, if it is a retry (see the module). Needs the database, which
    /// keeps each run's input and events (the server always has one, `:memory:` at least).
    pub(super) async fn replaced_run(&self, input: &RunAgentInput) -> Option<Replaced> {
        let store = self.store.as_ref()?;
        // A thread in memory says whether its last run failed; only then is the database read
        // (once the failed run's end is written). A thread not in memory was just read from it.
        let failed_in_memory = self
            .threads
            .lock()
            .get(&input.thread_id)
            .map(|c| matches!(c.run, RunStatus::Error { .. }));
        match failed_in_memory {
            Some(false) => return None,
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
}
