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
    let mut positions: Vec<(String, std::sync::Arc<super::log::RunLog>, u64)> =
        Vec::with_capacity(candidates.len());
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
    // The run the conversation is in; else one admitted whose first event has not been applied
    // yet (the conversation is then all before it, and its reader starts at its beginning).
    let just_admitted = |(_, log, at): &(String, std::sync::Arc<super::log::RunLog>, u64)| {
        running.is_none() && *at == 0 && !log.has_ended()
    };
    let live = positions
        .iter()
        .position(|(id, _, _)| running == Some(id.as_str()))
        .or_else(|| positions.iter().position(just_admitted))
        .map(|i| positions.swap_remove(i))
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
                paces: false,
            };
            (run_id, reader)
        });
    Some(Joined { conversation, live })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::protocol::event::{Event, EventKind};
    use crate::server::accounts::User;
    use crate::server::runs::log::RunLog;
    use crate::server::runs::registry::{ActiveRun, Capacity};

    fn admit(registry: &Registry, run_id: &str, side: bool) -> Arc<RunLog> {
        let log = Arc::new(RunLog::new(false));
        let run = ActiveRun {
            thread_id: "t".into(),
            owner: User::anonymous(),
            cancel: CancellationToken::new(),
            log: log.clone(),
            side,
        };
        let capacity = Capacity {
            total: 8,
            per_user: 8,
        };
        registry.admit(run_id, run, capacity, || Ok(())).unwrap();
        log
    }

    /// A client joining between a run's admission and its first event follows that run from
    /// its beginning (it used to get the thread as finished, and an ended stream); a side run or
    /// one that has ended is never joined.
    #[test]
    fn a_run_admitted_but_not_started_is_joined_from_its_beginning() {
        let registry = Registry::default();
        let threads = ThreadCache::new(4);
        let finished = [
            EventKind::RunStarted {
                thread_id: "t".into(),
                run_id: "r0".into(),
                parent_run_id: None,
                input: None,
                protocol_version: None,
            },
            EventKind::RunFinished {
                thread_id: "t".into(),
                run_id: "r0".into(),
                result: None,
                outcome: None,
                usage: None,
            },
        ]
        .map(Event::from);
        threads.apply_then("t", &finished, || ());
        let side = admit(&registry, "side", true);
        assert!(join_live(&registry, &threads, None, "t", None).is_none_or(|j| j.live.is_none()));
        side.end();
        let log = admit(&registry, "r1", false);
        let joined = join_live(&registry, &threads, None, "t", None).expect("in memory");
        let (run_id, reader) = joined.live.expect("the admitted run is followed");
        assert_eq!((run_id.as_str(), reader.position()), ("r1", 0));
        log.end();
        assert!(join_live(&registry, &threads, None, "t", None)
            .expect("in memory")
            .live
            .is_none());
    }
}
