//! The answers that refuse a run (another user's thread is 404, too many runs 429), and the
//! helper that runs a start's CPU-heavy work off the async workers.

use crate::server::error::ApiError;

pub fn too_many_runs_for_user(max: usize) -> ApiError {
    ApiError::TooManyRuns(format!(
        "{max} of your runs are in progress, the limit per user; try again when one has ended"
    ))
}

pub fn too_many_runs(max: usize) -> ApiError {
    ApiError::TooManyRuns(format!(
        "{max} runs are in progress, this server's limit; try again when one has ended"
    ))
}

/// The answer for another user's thread: the same as for no thread at all.
pub fn not_your_thread(thread_id: &str) -> ApiError {
    ApiError::NotFound(format!("no thread '{thread_id}'"))
}

/// Run CPU-heavy work on the blocking pool.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::Internal(format!("a blocking task failed: {e}")))
}
