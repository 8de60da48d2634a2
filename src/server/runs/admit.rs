//! Who may start a run, and how many: ownership of threads and runs (another user's thread is
//! 404, another user's run id 409), and the limits on runs in progress in total and per user.

use super::*;

impl Runs {
    /// Who owns a thread (None: no such thread).
    pub async fn thread_owner(&self, thread_id: &str) -> Option<String> {
        if let Some(o) = self.owners.lock().get(thread_id) {
            return Some(o.name().to_string());
        }
        let store = self.store.as_ref()?;
        store.flush().await;
        match store.thread_owner(thread_id).await {
            Ok(o) => o,
            Err(e) => {
                tracing::error!(thread = %thread_id, "cannot read the thread's owner: {e}");
                None
            }
        }
    }

    /// Whether `user` owns thread `thread_id` (false when there is no such thread).
    pub async fn owns_thread(&self, user: &User, thread_id: &str) -> bool {
        self.thread_owner(thread_id)
            .await
            .is_some_and(|o| user.is(&o))
    }

    /// Who owns a run (None: no such run).
    pub async fn run_owner(&self, run_id: &str) -> Option<String> {
        if let Some(r) = self.active.lock().get(run_id) {
            return Some(r.owner.name().to_string());
        }
        let store = self.store.as_ref()?;
        store.flush().await;
        match store.run_owner(run_id).await {
            Ok(o) => o,
            Err(e) => {
                tracing::error!(run = %run_id, "cannot read the run's owner: {e}");
                None
            }
        }
    }

    /// Whether `user` owns run `run_id` (false when there is no such run).
    pub async fn owns_run(&self, user: &User, run_id: &str) -> bool {
        self.run_owner(run_id).await.is_some_and(|o| user.is(&o))
    }

    /// Refuse a run on another user's thread (404) or reusing another user's run id (409).
    /// Returns the thread's stored owner, for the check repeated when the run registers.
    pub(super) async fn check_owner(
        &self,
        input: &RunAgentInput,
        owner: &User,
    ) -> Result<Option<String>, ApiError> {
        let thread = self.thread_owner(&input.thread_id).await;
        if thread.as_ref().is_some_and(|o| !owner.is(o)) {
            return Err(not_your_thread(&input.thread_id));
        }
        if self
            .run_owner(&input.run_id)
            .await
            .is_some_and(|o| !owner.is(&o))
        {
            return Err(ApiError::Conflict(format!(
                "run id '{}' is already used",
                input.run_id
            )));
        }
        Ok(thread)
    }

    /// 429 when the server already runs as many runs as it may (checked again, atomically, when
    /// the run is registered); 409 when this run id is in progress.
    pub(super) fn check_capacity(&self, run_id: &str, owner: &User) -> Result<(), ApiError> {
        let active = self.active.lock();
        if active.contains_key(run_id) {
            return Err(ApiError::Conflict(format!(
                "run '{run_id}' is already in progress"
            )));
        }
        if active.len() >= self.limits.max_runs {
            return Err(too_many_runs(self.limits.max_runs));
        }
        if active.values().filter(|r| &r.owner == owner).count() >= self.limits.max_runs_per_user {
            return Err(too_many_runs_for_user(self.limits.max_runs_per_user));
        }
        Ok(())
    }
}

pub(super) fn too_many_runs_for_user(max: usize) -> ApiError {
    ApiError::TooManyRuns(format!(
        "{max} of your runs are in progress, the limit per user; try again when one has ended"
    ))
}

pub(super) fn too_many_runs(max: usize) -> ApiError {
    ApiError::TooManyRuns(format!(
        "{max} runs are in progress, this server's limit; try again when one has ended"
    ))
}

/// Run CPU-heavy work on the blocking pool.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::Internal(format!("a blocking task failed: {e}")))
}

/// The answer for another user's thread: the same as for no thread at all.
pub(super) fn not_your_thread(thread_id: &str) -> ApiError {
    ApiError::NotFound(format!("no thread '{thread_id}'"))
}
