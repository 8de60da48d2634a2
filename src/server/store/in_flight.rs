//! Which threads and runs have a start or an end in the writer's queue. A read of a thread or a
//! run must see every write sent before it, so it waits for the queue ([`super::Store::flush`])
//! — but only when that thread or run has such a write waiting: under load the queue holds
//! thousands of other runs' events, and a new run's checks would otherwise wait behind them all.
//! A run's events are not counted here: no read of a thread's or a run's row depends on them.

use std::collections::HashMap;

use parking_lot::Mutex;

/// Counts of queued starts and ends by thread id and by run id.
#[derive(Default)]
pub(super) struct InFlight {
    inner: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    threads: HashMap<String, usize>,
    runs: HashMap<String, usize>,
}

impl InFlight {
    /// A start or end of `run_id` on `thread_id` is queued. Returns whether neither had one
    /// queued already.
    pub(super) fn add(&self, thread_id: &str, run_id: &str) -> bool {
        let mut c = self.inner.lock();
        let thread = c.threads.entry(thread_id.to_string()).or_insert(0);
        *thread += 1;
        let first = *thread == 1;
        let run = c.runs.entry(run_id.to_string()).or_insert(0);
        *run += 1;
        first && *run == 1
    }

    /// A start or end of `run_id` on `thread_id` was committed (or failed: it is no longer
    /// waiting either way).
    pub(super) fn done(&self, thread_id: &str, run_id: &str) {
        let mut c = self.inner.lock();
        release(&mut c.threads, thread_id);
        release(&mut c.runs, run_id);
    }

    pub(super) fn has_thread(&self, thread_id: &str) -> bool {
        self.inner.lock().threads.contains_key(thread_id)
    }

    pub(super) fn has_run(&self, run_id: &str) -> bool {
        self.inner.lock().runs.contains_key(run_id)
    }
}

fn release(counts: &mut HashMap<String, usize>, id: &str) {
    if let Some(n) = counts.get_mut(id) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            counts.remove(id);
            crate::server::trim::shrink_if_sparse(counts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_queued_write_until_it_is_done() {
        let f = InFlight::default();
        assert!(!f.has_thread("t") && !f.has_run("r1"));
        assert!(f.add("t", "r1"), "the first write of both");
        assert!(!f.add("t", "r2"), "the thread has one queued already");
        assert!(f.has_thread("t") && f.has_run("r1") && f.has_run("r2"));
        f.done("t", "r1");
        assert!(f.has_thread("t") && !f.has_run("r1"));
        f.done("t", "r2");
        assert!(!f.has_thread("t") && !f.has_run("r2"));
        // A done without an add (never expected) does not underflow or leave entries behind.
        f.done("x", "y");
        assert!(!f.has_thread("x") && !f.has_run("y"));
        assert!(f.add("u", "r3"));
        assert!(!f.add("v", "r3"), "the run has one queued already");
    }
}
