//! Joining a thread: its conversation as it stands and, when a run is in progress on it, a
//! reader of that run's events from exactly the point the conversation reflects — nothing
//! applied twice, nothing missed (for clients that reconnect to a thread, such as CopilotKit's
//! `connect`).

use std::collections::VecDeque;

use crate::protocol::compat::Version;
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::server::accounts::User;

use super::log::RunReader;
use super::Runs;

/// A thread as a joining client finds it.
pub struct Joined {
    /// The conversation now (with a run in progress: up to the live reader's position).
    pub conversation: Conversation,
    /// The run in progress: its id and a reader of its events after those `conversation`
    /// reflects. Reading does not own the run.
    pub live: Option<(String, RunReader)>,
}

impl Runs {
    /// `user`'s thread `thread_id` to join (None: no such thread of theirs). `peer` downgrades
    /// the live events for an older client.
    ///
    /// A run's events are applied to its thread and appended to its log under the thread
    /// cache's lock (`drive`), so the conversation copied under that lock together with the
    /// log's last number is consistent.
    pub async fn join_thread(
        &self,
        user: &User,
        thread_id: &str,
        peer: Option<Version>,
    ) -> Option<Joined> {
        if !self.owns_thread(user, thread_id).await {
            return None;
        }
        // The registry first, outside the thread lock (admitting a run takes the registry's
        // lock, then the threads').
        let candidates = self.registry.on_thread(thread_id);
        if !candidates.is_empty() {
            let mut positions = Vec::with_capacity(candidates.len());
            let (_, convs) = self.threads.snapshot(Some(thread_id), None, 1, || {
                positions = candidates
                    .iter()
                    .map(|(id, log)| (id.clone(), log.clone(), log.last_seq()))
                    .collect();
                0
            });
            if let Some((_, conversation)) = convs.into_iter().next() {
                let running = match &conversation.run {
                    RunStatus::Running { run_id } => Some(run_id.clone()),
                    _ => None,
                };
                let live = positions
                    .into_iter()
                    .find(|(id, _, _)| running.as_deref() == Some(id))
                    .map(|(run_id, log, after)| {
                        let reader = RunReader {
                            run_id: run_id.clone(),
                            log: Some(log),
                            store: self.store.clone(),
                            after,
                            pending: VecDeque::new(),
                            peer,
                            flushed: false,
                            told_failure: false,
                        };
                        (run_id, reader)
                    });
                return Some(Joined { conversation, live });
            }
        }
        let conversation = self.load_thread(thread_id).await?;
        Some(Joined {
            conversation,
            live: None,
        })
    }
}
