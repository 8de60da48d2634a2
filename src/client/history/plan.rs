//! What the history loader decides and says: which stored runs to load, and its status line.

use crate::wire::RunSummary;

/// Where the loading is.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum HistoryStatus {
    #[default]
    Idle,
    Loading {
        runs_done: usize,
        runs: usize,
        events: usize,
    },
    Loaded {
        runs: usize,
        events: usize,
        /// Older runs left out to stay within the inspector's limit.
        left_out: usize,
    },
    /// The thread is not stored on this server (a new thread, a foreign agent's, a recording).
    NotStored,
    Failed(String),
}

impl HistoryStatus {
    /// One line for the inspector, or nothing worth saying.
    pub fn describe(&self) -> Option<String> {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match self {
            HistoryStatus::Idle | HistoryStatus::NotStored => None,
            HistoryStatus::Loading {
                runs_done,
                runs,
                events,
            } => Some(format!(
                "Loading stored history… run {} of {runs}, {}",
                (runs_done + 1).min(*runs),
                plural(*events, "event")
            )),
            HistoryStatus::Loaded {
                runs: 0, left_out, ..
            } if *left_out == 0 => None,
            HistoryStatus::Loaded {
                runs,
                events,
                left_out,
            } => {
                let mut s = format!(
                    "Stored history: {} ({})",
                    plural(*runs, "earlier run"),
                    plural(*events, "event")
                );
                if *left_out > 0 {
                    s.push_str(&format!(
                        "; {} not loaded (over the limit)",
                        plural(*left_out, "older run")
                    ));
                }
                Some(s)
            }
            HistoryStatus::Failed(e) => Some(format!("Could not load the stored history: {e}")),
        }
    }
}

/// The runs to load: finished ones the session does not have, the newest that fit in `limit`
/// events (oldest first); and how many older ones were left out.
pub fn runs_to_load(
    runs: &[RunSummary],
    live_runs: &dyn Fn(&str) -> bool,
    limit: usize,
) -> (Vec<RunSummary>, usize) {
    let mut candidates: Vec<&RunSummary> = runs
        .iter()
        .filter(|r| r.status != crate::wire::RunState::Running && !live_runs(&r.run_id))
        .collect();
    candidates.sort_by_key(|r| r.started_at);
    let mut total = 0usize;
    let mut keep = 0;
    for r in candidates.iter().rev() {
        let n = usize::try_from(r.event_count).unwrap_or(usize::MAX);
        if total.saturating_add(n) > limit {
            break;
        }
        total += n;
        keep += 1;
    }
    let left_out = candidates.len() - keep;
    (
        candidates[left_out..]
            .iter()
            .map(|r| (*r).clone())
            .collect(),
        left_out,
    )
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
