//! Who owns a thread or a run: the in-memory caches first (threads held, runs in progress), then
//! the database once what is queued for that thread or run is written.

use super::Runs;
use crate::server::accounts::User;

impl Runs {
    /// Who owns a thread (None: no such thread).
    pub async fn thread_owner(&self, thread_id: &str) -> Option<String> {
        if let Some(o) = self.threads.owner(thread_id) {
            return Some(o.name().to_string());
        }
        let store = self.store.as_ref()?;
        store.flush_thread(thread_id).await;
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
        if let Some(o) = self.registry.owner(run_id) {
            return Some(o.name().to_string());
        }
        let store = self.store.as_ref()?;
        store.flush_run(run_id).await;
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
}
