//! Copying the threads kept in memory off the pages a crowd left behind
//! ([`ThreadCache::relocate`]).

use std::collections::HashMap;

use super::ThreadCache;
use crate::protocol::reduce::Conversation;
use crate::server::accounts::User;

impl ThreadCache {
    /// Copy each conversation in memory of at most [`RELOCATE_MAX_BYTES`] (as last measured),
    /// and the maps' keys, into fresh allocations, and free the old ones: after a crowd has
    /// left, the conversations kept (the idle threads the crowd ran last) lie scattered over
    /// pages its connections filled (see `ObserverHub::relocate`). One conversation at a time
    /// under the lock, so runs publishing meanwhile wait for one copy at most.
    pub fn relocate(&self) {
        let ids: Vec<String> = {
            let inner = self.inner.lock();
            inner
                .threads
                .keys()
                .filter(|t| {
                    inner
                        .bytes
                        .get(t.as_str())
                        .is_some_and(|b| *b <= RELOCATE_MAX_BYTES)
                })
                .cloned()
                .collect()
        };
        for id in ids {
            let old = {
                let mut inner = self.inner.lock();
                let Some(c) = inner.threads.get_mut(&id) else {
                    continue;
                };
                let fresh = Box::new(Conversation::clone(c));
                std::mem::replace(c, fresh)
            };
            drop(old);
        }
        let mut inner = self.inner.lock();
        let inner = &mut *inner;
        rekey(&mut inner.threads, |v| v);
        rekey(&mut inner.owners, |v| User(std::sync::Arc::from(&*v.0)));
        rekey(&mut inner.recency, |v| v);
        rekey(&mut inner.bytes, |v| v);
    }
}

/// Rebuild `map` with each key copied into a fresh allocation, and each value through `copy`.
fn rekey<V>(map: &mut HashMap<String, V>, copy: impl Fn(V) -> V) {
    *map = std::mem::take(map)
        .into_iter()
        .map(|(k, v)| (String::from(k.as_str()), copy(v)))
        .collect();
}

/// The largest conversation [`ThreadCache::relocate`] copies (as last measured at its run's
/// end): a larger one is held in large blocks of its own, which go back whole when freed.
pub const RELOCATE_MAX_BYTES: usize = 256 * 1024;
