//! The tool calls runs wait on with their stream open (in-stream approvals), each with the run
//! and user it belongs to, until `POST /api/ag-ui/tool-result` answers it. An owned part of the
//! run registry with its own lock; it knows nothing of the registry.

use std::collections::HashMap;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::server::accounts::User;
use crate::server::trim::shrink_if_sparse;

struct Waiter {
    run_id: String,
    owner: User,
    thread_id: String,
    tx: oneshot::Sender<Value>,
}

/// Tool call id → who waits for its answer.
#[derive(Default)]
pub(super) struct Waits {
    map: Mutex<HashMap<String, Waiter>>,
}

impl Waits {
    /// Start accepting an answer to `tool_call_id`, for the run `run_id` of `owner`.
    pub fn register(
        &self,
        tool_call_id: &str,
        thread_id: &str,
        run_id: &str,
        owner: User,
    ) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.map.lock().insert(
            tool_call_id.to_string(),
            Waiter {
                run_id: run_id.to_string(),
                owner,
                thread_id: thread_id.to_string(),
                tx,
            },
        );
        rx
    }

    pub fn forget(&self, tool_call_id: &str) {
        let mut map = self.map.lock();
        map.remove(tool_call_id);
        shrink_if_sparse(&mut map);
    }

    /// Every wait of run `run_id` (it ended).
    pub fn forget_run(&self, run_id: &str) {
        let mut map = self.map.lock();
        map.retain(|_, w| w.run_id != run_id);
        shrink_if_sparse(&mut map);
    }

    /// Hand `answer` to whoever waits on `tool_call_id` (only when it is `user`'s run, if a
    /// user is given); the (thread, run) it belonged to, or None when nothing of theirs waits.
    pub fn resolve(
        &self,
        user: Option<&User>,
        tool_call_id: &str,
        answer: Value,
    ) -> Option<(String, String)> {
        let waiter = {
            let mut map = self.map.lock();
            if user.is_some_and(|u| map.get(tool_call_id).is_some_and(|w| w.owner != *u)) {
                return None;
            }
            let waiter = map.remove(tool_call_id)?;
            shrink_if_sparse(&mut map);
            waiter
        };
        let ids = (waiter.thread_id, waiter.run_id);
        waiter.tx.send(answer).ok().map(|_| ids)
    }

    /// (tool call id, thread id, run id) of every wait, sorted.
    pub fn pending(&self) -> Vec<(String, String, String)> {
        let mut v: Vec<_> = self
            .map
            .lock()
            .iter()
            .map(|(id, w)| (id.clone(), w.thread_id.clone(), w.run_id.clone()))
            .collect();
        v.sort();
        v
    }
}
