//! Giving memory back after a crowd leaves. The binary's own allocations go to jemalloc, which
//! hands freed pages back by itself (see `src/main.rs`); SQLite and other C code allocate from
//! glibc, which keeps freed pages resident inside its heaps (freed chunks sit between live ones,
//! so the heap top cannot shrink). When the number of open connections has fallen well below its
//! peak, [`Trimmer`] asks glibc to hand free pages back (`malloc_trim`) and the connections'
//! buffer pool its kept blocks (`block_pool`), off the async workers,
//! and raises [`caches_epoch`]: the binary then has each async worker hand its allocator's
//! thread cache back the next time it goes idle (see `src/main.rs`), and wakes the workers so
//! that they do.
//! Before that it runs the server's [`Release`] hook, which closes SQLite's idle connections
//! (their page caches fill while a crowd's runs are written, and would otherwise stay full;
//! their statements, schemas and threads go with them) and copies what the runs keep in memory
//! off the pages the crowd left behind. It trims again [`FOLLOW_UP_CHECKS`] checks later, once
//! the crowd's last work is done.
//! Measured by the capacity benchmark's "after" RSS (see the README).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::Semaphore;

/// What else to hand back at a trim, before the allocator trims (the database's caches).
#[derive(Clone)]
pub struct Release(pub Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync>);

impl std::fmt::Debug for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Release")
    }
}

/// How often the open connections are counted.
pub const CHECK_EVERY: Duration = Duration::from_secs(2);
/// How far below its peak the number of open connections must fall before a trim.
pub const FALL: usize = 256;

/// How many checks after a trim it is done again (unless another fall trims first): the
/// crowd's last work — runs cancelled as their clients left, writing their ends; the
/// blocking pool's threads, which hand their allocator caches back as they exit after 10 s
/// idle — is over by then, and what it kept in memory can be copied off the crowd's pages.
pub const FOLLOW_UP_CHECKS: u32 = 6;

/// When to trim: after the open connections fell by [`FALL`] from their peak since the last
/// trim, and [`FOLLOW_UP_CHECKS`] checks after that.
#[derive(Debug, Default)]
pub struct Trimmer {
    peak: usize,
    /// Checks left before the follow-up of the last trim.
    follow_up: Option<u32>,
}

impl Trimmer {
    /// Take the current number of open connections; true when memory should be trimmed now.
    pub fn observe(&mut self, open: usize) -> bool {
        self.peak = self.peak.max(open);
        if self.peak >= open + FALL {
            self.peak = open;
            self.follow_up = Some(FOLLOW_UP_CHECKS);
            return true;
        }
        match self.follow_up {
            Some(1) => {
                self.follow_up = None;
                true
            }
            Some(n) => {
                self.follow_up = Some(n - 1);
                false
            }
            None => false,
        }
    }
}

/// Count open connections (`max` minus the free permits of `permits`) every [`CHECK_EVERY`]
/// and trim when [`Trimmer::observe`] says so (after running `release`), for as long as the
/// accept loop holds `permits`.
pub fn spawn(permits: &Arc<Semaphore>, max: usize, release: Option<Release>) {
    let permits = Arc::downgrade(permits);
    tokio::spawn(async move {
        let mut trimmer = Trimmer::default();
        let mut tick = tokio::time::interval(CHECK_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(free) = permits.upgrade().map(|p| p.available_permits()) else {
                return;
            };
            let open = max.saturating_sub(free);
            crowd(open);
            if trimmer.observe(open) {
                if let Some(Release(hook)) = &release {
                    hook().await;
                }
                // On a blocking-pool thread: `malloc_trim` walks the heaps, and the wake-ups
                // below must come from outside the async workers.
                let handle = tokio::runtime::Handle::current();
                let _ = tokio::task::spawn_blocking(move || {
                    trim_heap();
                    super::block_pool::BUFFERS.release_dirty();
                    CACHES_EPOCH.fetch_add(1, Ordering::Relaxed);
                    wake_workers(&handle);
                })
                .await;
            }
        }
    });
}

/// Open connections from which the server is crowded: each connection's memory then outweighs
/// what the allocator saves by reusing freed pages at once, so while a crowd gathers the
/// binary's allocator hands freed pages back immediately (see `src/main.rs`). A thousand
/// clients streaming runs at once stay below it.
pub const CROWD: usize = 1024;

/// Where the server stands with a crowd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Crowd {
    /// Fewer than [`CROWD`] connections (or, after a crowd, half that).
    Calm,
    /// A crowd gathers: the most connections open since it began. Freed pages go back at once,
    /// so that what short-lived buffers touched is not reused, resident, by new connections.
    Gathering(usize),
    /// It has fallen [`FALL`] below its peak: the fewest connections open since. Freed pages
    /// go back after the usual decay again, in batches from jemalloc's background thread: ten
    /// thousand clients leaving at once cost one `madvise` (and a TLB shootdown across the
    /// cores) per buffer each closing connection freed, 10 % of the server's time in a fan-out
    /// whose observers close as they finish.
    Leaving(usize),
}

impl Crowd {
    /// With `open` connections now.
    fn next(self, open: usize) -> Crowd {
        match self {
            Crowd::Calm if open >= CROWD => Crowd::Gathering(open),
            Crowd::Calm => Crowd::Calm,
            Crowd::Gathering(peak) if open + FALL <= peak => Crowd::Leaving(open),
            Crowd::Gathering(peak) => Crowd::Gathering(peak.max(open)),
            Crowd::Leaving(_) if open <= CROWD / 2 => Crowd::Calm,
            Crowd::Leaving(low) if open >= CROWD && open >= low + FALL => Crowd::Gathering(open),
            Crowd::Leaving(low) => Crowd::Leaving(low.min(open)),
        }
    }

    fn gathering(self) -> bool {
        matches!(self, Crowd::Gathering(_))
    }
}

/// Where the server stands (see [`crowd`]).
static CROWD_STATE: parking_lot::Mutex<Crowd> = parking_lot::Mutex::new(Crowd::Calm);
/// Whether it is calm: the check of a connection's opening or closing, below half a crowd.
static CALM: AtomicBool = AtomicBool::new(true);
/// What the binary does when a crowd starts gathering (true) and when it stops (false).
static CROWD_HOOK: OnceLock<fn(bool)> = OnceLock::new();

/// Have `hook` called when a crowd starts gathering and when it stops (it is leaving, or gone);
/// at most one hook, later ones are ignored.
pub fn on_crowd(hook: fn(bool)) {
    let _ = CROWD_HOOK.set(hook);
}

/// Take the number of open connections (at each connection's opening and closing, and at the
/// trim's check every [`CHECK_EVERY`]): calls the [`on_crowd`] hook when a crowd starts or stops
/// gathering. One atomic load on a calm server.
pub fn crowd(open: usize) {
    if open < CROWD / 2 && CALM.load(Ordering::Relaxed) {
        return;
    }
    let mut state = CROWD_STATE.lock();
    let (was, now) = (*state, state.next(open));
    *state = now;
    CALM.store(now == Crowd::Calm, Ordering::Relaxed);
    if was.gathering() != now.gathering() {
        if let Some(hook) = CROWD_HOOK.get() {
            hook(now.gathering());
        }
    }
}

/// Whether a crowd is connected: it gathered ([`CROWD`] connections) and has not yet fallen to
/// half that. One atomic load.
pub fn crowded() -> bool {
    !CALM.load(Ordering::Relaxed)
}

/// What turns the calling thread's allocator cache off and on again (set by the binary).
static CACHE_SWITCH: OnceLock<fn(bool)> = OnceLock::new();

/// Have `hook` called by [`thread_cache`]; at most one hook, later ones are ignored.
pub fn on_thread_cache(hook: fn(bool)) {
    let _ = CACHE_SWITCH.set(hook);
}

/// Turn the calling thread's allocator cache off (handing back what it holds) or on again
/// (with no hook set, nothing). Without it, each allocation takes the room of the last object
/// freed: a copy made to leave a page would land where its original was.
pub fn thread_cache(enabled: bool) {
    if let Some(hook) = CACHE_SWITCH.get() {
        hook(enabled);
    }
}

/// Raised after each trim: a thread that saw an older value hands its allocator cache back.
static CACHES_EPOCH: AtomicU64 = AtomicU64::new(0);

/// How many trims have happened; an async worker that last saw a smaller number should hand the
/// objects its allocator's thread cache holds back to the shared heap when it next goes idle.
pub fn caches_epoch() -> u64 {
    CACHES_EPOCH.load(Ordering::Relaxed)
}

/// Tasks that do nothing, spawned from outside the workers (the caller is a blocking-pool
/// thread): each wakes an idle worker, which goes idle again at once (and so sees the new
/// [`caches_epoch`]). Spaced a little so that they reach different workers.
fn wake_workers(handle: &tokio::runtime::Handle) {
    for _ in 0..handle.metrics().num_workers() * 2 {
        drop(handle.spawn(async {}));
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Below this many entries' worth of capacity a map is never shrunk.
const SMALL_MAP: usize = 64;

/// Give back the room a map grew to while a crowd was in it, once a quarter or less of it is
/// used (a map keeps its capacity as entries leave: the maps of runs, threads and waits keyed
/// by id would otherwise hold ten thousand entries' room for good after ten thousand runs).
/// Called after removals; the check is one comparison, and a map shrunk to its length is
/// shrunk again only once it has lost three quarters of what is left, so the copies cost at
/// most about twice the entries ever removed.
pub fn shrink_if_sparse<K, V, S>(map: &mut std::collections::HashMap<K, V, S>)
where
    K: Eq + std::hash::Hash,
    S: std::hash::BuildHasher,
{
    if map.capacity() > 4 * map.len().max(SMALL_MAP) {
        map.shrink_to_fit();
    }
}

/// Hand glibc's free pages back to the system (SQLite's allocations are glibc's).
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_pages_go_back_at_once_only_while_a_crowd_gathers() {
        let mut state = Crowd::Calm;
        let mut changes = Vec::new();
        for open in [
            0,
            10,
            CROWD - 1,
            CROWD,
            CROWD + 5_000,
            // Comings and goings of fewer than FALL: still gathering.
            CROWD + 5_000 - FALL + 1,
            CROWD + 6_000,
            // Leaving.
            CROWD + 6_000 - FALL,
            CROWD + 3_000,
            // Back by less than FALL: still leaving; by FALL: gathering again.
            CROWD + 3_000 + FALL - 1,
            CROWD + 3_000 + FALL,
            CROWD,
            CROWD / 2 + 1,
            CROWD / 2,
            0,
            CROWD / 2 + 1,
            CROWD,
        ] {
            let now = state.next(open);
            if now.gathering() != state.gathering()
                || (now == Crowd::Calm) != (state == Crowd::Calm)
            {
                changes.push((open, now.gathering(), now == Crowd::Calm));
            }
            state = now;
        }
        assert_eq!(
            changes,
            [
                (CROWD, true, false),
                (CROWD + 6_000 - FALL, false, false),
                (CROWD + 3_000 + FALL, true, false),
                (CROWD, false, false),
                (CROWD / 2, false, true),
                (CROWD, true, false),
            ]
        );
    }

    #[test]
    fn a_map_gives_back_its_room_once_mostly_empty() {
        let mut m: std::collections::HashMap<u32, [u8; 64]> =
            (0..10_000).map(|i| (i, [0; 64])).collect();
        let full = m.capacity();
        for i in 0..9_000 {
            m.remove(&i);
            shrink_if_sparse(&mut m);
        }
        assert_eq!(m.len(), 1_000);
        assert!(m.capacity() < full / 4, "{} of {full}", m.capacity());
        // Still a map: the entries that stayed are there.
        assert!((9_000..10_000).all(|i| m.contains_key(&i)));
    }

    #[test]
    fn trims_once_a_crowd_has_left_and_not_while_it_stays() {
        let mut t = Trimmer::default();
        // A crowd arrives and stays: nothing to give back.
        for open in [0, 10, 5_000, 10_000, 10_000, 9_900] {
            assert!(!t.observe(open), "at {open}");
        }
        // It leaves: one trim, its follow-up FOLLOW_UP_CHECKS checks later, then none while
        // nothing changes.
        assert!(t.observe(100));
        for _ in 1..FOLLOW_UP_CHECKS {
            assert!(!t.observe(100));
        }
        assert!(t.observe(100), "the follow-up");
        assert!(!t.observe(100));
        assert!(!t.observe(0));
        // Small comings and goings never trim.
        for _ in 0..100 {
            assert!(!t.observe(FALL - 1));
            assert!(!t.observe(0));
        }
        // A second crowd, gone in steps: a trim each time it fell by FALL (a fall before the
        // follow-up puts it off), and one follow-up after the last.
        assert!(!t.observe(3 * FALL));
        assert!(t.observe(2 * FALL));
        assert!(!t.observe(2 * FALL - 1));
        assert!(t.observe(FALL));
        let later = (1..=FOLLOW_UP_CHECKS).filter(|_| t.observe(FALL)).count();
        assert_eq!(later, 1);
        assert!((0..100).all(|_| !t.observe(FALL)));
    }
}
