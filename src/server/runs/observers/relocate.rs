//! Copying the hub's window off the pages a crowd left behind ([`ObserverHub::relocate`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::{Observed, ObserverHub, Origin, Window};
use crate::server::accounts::User;

/// The largest event [`ObserverHub::relocate`] copies. The allocator keeps larger blocks in
/// extents of their own (its small sizes end at 14 KiB), which go back whole when freed.
pub const RELOCATE_MAX_EVENT_BYTES: usize = 16 * 1024;

impl ObserverHub {
    /// Copy the window's events into fresh allocations and free the old ones (their encoded
    /// frames too; an observer encodes them again when it takes them), after a crowd has left.
    /// The newest events were mostly published as the crowd ended — the last events of
    /// thousands of runs, each with its own [`Origin`] — so they lie scattered over pages the
    /// crowd's connections filled, one live event keeping each page. Copied while little else
    /// is allocated, they fill a few pages (the allocator hands out the oldest free room
    /// first) and the others can go back to the system. Measured with the capacity
    /// benchmark's 10,000 waiting runs: see the README ("The tenth session").
    /// Costs one copy of what the window holds (at most [`super::HUB_CAPACITY`] events of at
    /// most [`RELOCATE_MAX_EVENT_BYTES`]; larger ones are kept as they are), under its write
    /// lock.
    pub fn relocate(&self) {
        let mut window = self.window.write();
        let mut origins: HashMap<*const Origin, Arc<Origin>> = HashMap::new();
        let fresh: Window = window
            .iter()
            .map(|ev| {
                let origin = origins
                    .entry(Arc::as_ptr(&ev.origin))
                    .or_insert_with(|| {
                        Arc::new(Origin {
                            thread_id: Arc::from(&*ev.origin.thread_id),
                            run_id: Arc::from(&*ev.origin.run_id),
                            owner: User(Arc::from(&*ev.origin.owner.0)),
                        })
                    })
                    .clone();
                // A large event is a block of its own, handed back whole when freed.
                let json = if ev.json.len() > RELOCATE_MAX_EVENT_BYTES {
                    ev.json.clone()
                } else {
                    Arc::from(&*ev.json)
                };
                Observed {
                    seq: ev.seq,
                    origin,
                    json,
                    edge: ev.edge,
                    frame: OnceLock::new(),
                }
            })
            .collect();
        let old = std::mem::replace(&mut *window, fresh);
        drop(window);
        // Freed outside the lock.
        drop(origins);
        drop(old);
    }
}
