//! The registry of runs in progress: each run's thread, owner, cancel handle and event log, and
//! the limits on how many run at once (in total and per user).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use super::admit::{too_many_runs, too_many_runs_for_user};
use super::log::RunLog;
use crate::server::accounts::User;
use crate::server::error::ApiError;

/// A run in progress.
pub struct ActiveRun {
    pub thread_id: String,
    pub owner: User,
    pub cancel: CancellationToken,
    pub log: Arc<RunLog>,
    /// A side run (an MCP request the agent proxies): no part of its thread's conversation.
    pub side: bool,
}

/// How many runs may be in progress.
#[derive(Clone, Copy)]
pub struct Capacity {
    pub total: usize,
    pub per_user: usize,
}

#[derive(Default)]
pub struct Registry {
    active: Mutex<HashMap<String, ActiveRun>>,
    /// Threads being changed outside a run (deleted, cut): no run of theirs may start
    /// meanwhile. Locked only with `active` locked first.
    held: Mutex<HashSet<String>>,
    /// Thread id → how many runs of it are in progress (kept with `active`, locked only with
    /// `active` locked first), so a run's end need not go over every run in progress.
    busy: Mutex<Busy>,
}

/// Thread id → how many of its runs are in progress.
pub type Busy = HashMap<String, usize>;

/// A thread held by [`Registry::hold`]; released when dropped.
pub struct ThreadHold<'a> {
    registry: &'a Registry,
    thread_id: String,
}

impl Drop for ThreadHold<'_> {
    fn drop(&mut self) {
        let _active = self.registry.active.lock();
        self.registry.held.lock().remove(&self.thread_id);
    }
}

impl Registry {
    /// 409 when `run_id` is in progress; 429 when the server, or `owner`, already runs as many
    /// runs as `capacity` allows.
    pub fn check(&self, run_id: &str, owner: &User, capacity: Capacity) -> Result<(), ApiError> {
        check(&self.active.lock(), run_id, owner, capacity)
    }

    /// Register `run` as `run_id` if [`Registry::check`] passes and `also` agrees, both
    /// decided with the registry locked (two requests racing for the last slot, or for a new
    /// thread id, cannot both win).
    pub fn admit(
        &self,
        run_id: &str,
        run: ActiveRun,
        capacity: Capacity,
        also: impl FnOnce() -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        let mut active = self.active.lock();
        check(&active, run_id, &run.owner, capacity)?;
        if self.held.lock().contains(&run.thread_id) {
            return Err(thread_busy(&run.thread_id));
        }
        also()?;
        *self.busy.lock().entry(run.thread_id.clone()).or_insert(0) += 1;
        active.insert(run_id.to_string(), run);
        Ok(())
    }

    /// Hold `thread_id` while it is changed outside a run: 409 when a run of it is in progress
    /// (or it is already held); until the hold is dropped, runs of it are refused (409).
    pub fn hold(&self, thread_id: &str) -> Result<ThreadHold<'_>, ApiError> {
        // The registry stays locked (as `admit` needs it) while the thread is checked and held.
        let _active = self.active.lock();
        let running = self.busy.lock().contains_key(thread_id);
        if running {
            return Err(ApiError::Conflict(format!(
                "a run of thread '{thread_id}' is in progress"
            )));
        }
        if !self.held.lock().insert(thread_id.to_string()) {
            return Err(thread_busy(thread_id));
        }
        Ok(ThreadHold {
            registry: self,
            thread_id: thread_id.to_string(),
        })
    }

    /// The event log of a run in progress.
    pub fn log(&self, run_id: &str) -> Option<Arc<RunLog>> {
        self.active.lock().get(run_id).map(|r| r.log.clone())
    }

    /// The runs in progress on `thread_id`, side runs left out (a thread has one at most, but
    /// a run that just ended may not have left yet): their ids and event logs.
    pub fn on_thread(&self, thread_id: &str) -> Vec<(String, Arc<RunLog>)> {
        self.active
            .lock()
            .iter()
            .filter(|(_, r)| r.thread_id == thread_id && !r.side)
            .map(|(id, r)| (id.clone(), r.log.clone()))
            .collect()
    }

    /// The owner of a run in progress.
    pub fn owner(&self, run_id: &str) -> Option<User> {
        self.active.lock().get(run_id).map(|r| r.owner.clone())
    }

    pub fn contains(&self, run_id: &str) -> bool {
        self.active.lock().contains_key(run_id)
    }

    pub fn len(&self) -> usize {
        self.active.lock().len()
    }

    /// Cancel runs by run id and/or thread id (both absent: every run), of `user` only when
    /// given. Returns how many.
    pub fn cancel(
        &self,
        run_id: Option<&str>,
        thread_id: Option<&str>,
        user: Option<&User>,
    ) -> usize {
        let active = self.active.lock();
        let mut n = 0;
        for (id, run) in active.iter() {
            if user.is_some_and(|u| *u != run.owner) {
                continue;
            }
            let hit = match (run_id, thread_id) {
                (Some(r), _) => r == id,
                (None, Some(t)) => t == run.thread_id,
                (None, None) => true,
            };
            if hit {
                run.cancel.cancel();
                n += 1;
            }
        }
        n
    }

    /// Remove an ended run, then call `then` with the threads that still have a run in
    /// progress, the registry still locked: no one sees the run ended before `then` is done.
    pub fn remove(&self, run_id: &str, then: impl FnOnce(&Busy)) {
        let mut active = self.active.lock();
        let mut busy = self.busy.lock();
        if let Some(run) = active.remove(run_id) {
            if let Some(n) = busy.get_mut(&run.thread_id) {
                *n -= 1;
                if *n == 0 {
                    busy.remove(&run.thread_id);
                    crate::server::trim::shrink_if_sparse(&mut busy);
                }
            }
            crate::server::trim::shrink_if_sparse(&mut active);
        }
        then(&busy);
    }
}

fn thread_busy(thread_id: &str) -> ApiError {
    ApiError::Conflict(format!("thread '{thread_id}' is being changed"))
}

fn check(
    active: &HashMap<String, ActiveRun>,
    run_id: &str,
    owner: &User,
    capacity: Capacity,
) -> Result<(), ApiError> {
    if active.contains_key(run_id) {
        return Err(ApiError::Conflict(format!(
            "run '{run_id}' is already in progress"
        )));
    }
    if active.len() >= capacity.total {
        return Err(too_many_runs(capacity.total));
    }
    if active.values().filter(|r| &r.owner == owner).count() >= capacity.per_user {
        return Err(too_many_runs_for_user(capacity.per_user));
    }
    Ok(())
}
