//! The answers that refuse a run (another user's thread is 404, too many runs 429), and the
//! helper that runs a start's CPU-heavy work off the async workers.

use std::io;

use crate::protocol::types::RunAgentInput;
use crate::server::error::ApiError;

/// The most bytes of messages and state (as JSON) of an input begun on the async worker
/// ([`is_light`]).
pub const LIGHT_INPUT_BYTES: usize = 16 * 1024;

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

/// Whether `input` is small enough to begin its run on the async worker: its messages and state
/// take at most [`LIGHT_INPUT_BYTES`] as JSON (measured by encoding them into a budget, which
/// stops at the first byte past it). A larger one is begun on the blocking pool, but the hop
/// there and back costs a small run more than its work: with a thousand runs streaming, each
/// hop waits its turn behind them all (the capacity benchmark's new runs waited 150 ms for it
/// at the median).
pub fn is_light(input: &RunAgentInput) -> bool {
    struct Budget(usize);
    impl io::Write for Budget {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 = self
                .0
                .checked_sub(bytes.len())
                .ok_or_else(|| io::Error::other("past the budget"))?;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut budget = Budget(LIGHT_INPUT_BYTES);
    serde_json::to_writer(&mut budget, &input.messages).is_ok()
        && serde_json::to_writer(&mut budget, &input.state).is_ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::server::agents::demo::testing::user;

    /// Small inputs are light; messages or state past the budget, together or apart, are not.
    #[test]
    fn only_small_inputs_are_light() {
        let mut input = RunAgentInput::new("t", "r");
        input.messages = vec![user("hello")];
        assert!(is_light(&input));
        input.messages = vec![user(&"x".repeat(LIGHT_INPUT_BYTES))];
        assert!(!is_light(&input), "one large message");
        input.messages = (0..100).map(|_| user(&"x".repeat(200))).collect();
        assert!(!is_light(&input), "many small messages");
        input.messages = vec![user("hello")];
        input.state = json!({ "notes": "y".repeat(LIGHT_INPUT_BYTES) });
        assert!(!is_light(&input), "a large state");
        input.messages = vec![user(&"x".repeat(LIGHT_INPUT_BYTES / 2))];
        input.state = json!({ "notes": "y".repeat(LIGHT_INPUT_BYTES / 2) });
        assert!(!is_light(&input), "both halves and their JSON");
    }
}
