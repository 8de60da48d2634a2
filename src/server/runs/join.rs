//! Joining a thread: its conversation as it stands and, when a run is in progress on it, a
//! reader of that run's events from exactly the point the conversation reflects — nothing
//! applied twice, nothing missed (for clients that reconnect to a thread, such as CopilotKit's
//! `connect`).

use std::collections::VecDeque;

use super::log::RunReader;
use super::registry::Registry;
use super::thread_cache::ThreadCache;
use crate::protocol::compat::Version;
use crate::protocol::reduce::{Conversation, RunStatus};
use crate::server::store::Store;

/// A thread as a joining client finds it.
pub struct Joined {
    /// The conversation now (with a run in progress: up to the live reader's position).
    pub conversation: Conversation,
    /// The run in progress: its id and a reader of its events after those `conversation`
    /// reflects. Reading does not own the run.
    pub live: Option<(String, RunReader)>,
}

/// Thread `thread_id` with its run in progress, if it has one (None: no run, or the thread is
/// not in memory). `peer` downgrades the live events for an older client.
///
/// A run's events are applied to its thread and appended to its log under the thread cache's
/// lock (`drive`), so the conversation copied under that lock together with the log's last
/// number is consistent.
pub(super) fn join_live(
    registry: &Registry,
    threads: &ThreadCache,
    store: Option<&Store>,
    thread_id: &str,
    peer: Option<Version>,
) -> Option<Joined> {
    // The registry first, outside the thread lock (admitting a run takes the registry's lock,
    // then the threads').
    let candidates = registry.on_thread(thread_id);
    if candidates.is_empty() {
        return None;
    }
    let mut positions = Vec::with_capacity(candidates.len());
    let (_, convs) = threads.snapshot(Some(thread_id), None, 1, || {
        positions = candidates
            .into_iter()
            .map(|(id, log)| {
                let at = log.last_seq();
                (id, log, at)
            })
            .collect();
        0
    });
    let (_, conversation) = convs.into_iter().next()?;
    let running = match &conversation.run {
        RunStatus::Running { run_id } => Some(run_id.as_str()),
        _ => None,
    };
    let live = positions
        .into_iter()
        .find(|(id, _, _)| running == Some(id.as_str()))
        .map(|(run_id, log, after)| {
            let reader = RunReader {
                run_id: run_id.clone(),
                log: Some(log),
                store: store.cloned(),
                after,
                pending: VecDeque::new(),
                peer,
                flushed: false,
                told_failure: false,
            };
            (run_id, reader)
        });
    Some(Joined { conversation, live })
}
