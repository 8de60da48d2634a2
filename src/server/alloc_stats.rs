//! A diagnostic for where the server's memory goes, built only with the `alloc-stats` feature
//! (which also turns jemalloc's statistics on): with `AGUI_ALLOC_STATS_MS=N` in the environment,
//! a thread prints one line every N ms on stderr with jemalloc's counters (live bytes, the pages
//! that hold them, metadata), glibc's heap (SQLite's allocations) and the process's resident
//! memory, anonymous and file-backed. `benches/approvals_heap.py` shows the server's stderr with
//! `SERVER_LOG=FILE`.
//!
//! How to read a line: `allocated` is what live objects hold; `active` the pages of jemalloc's
//! slabs and large extents with anything live in them (active − allocated is fragmentation: a
//! slab stays while one object in it lives); `base` jemalloc's own metadata, which it never
//! hands back; glibc `used`/`free` inside its heaps (`free` pages are resident only until
//! `malloc_trim`).
//!
//! With `AGUI_ALLOC_STATS_FULL=PATH` as well, creating the file PATH makes the next line come
//! with jemalloc's full statistics (per size class: slabs, live regions, utilization; large
//! extents), after which PATH is removed: which size classes hold the pages that stay. A build
//! with jemalloc's profiling as well (`--features alloc-stats,tikv-jemalloc-sys/profiling`, with
//! `CARGO_PROFILE_RELEASE_STRIP=false` for the symbols) run with
//! `_RJEM_MALLOC_CONF=prof:true,lg_prof_sample:10,prof_prefix:DIR/p` also writes a heap profile
//! then (`DIR/p.PID.N.m0.heap`, read with jemalloc's `jeprof --text BINARY FILE`): who
//! allocated what is live.

use std::ffi::CStr;
use std::time::Duration;

/// Start the printing thread when `AGUI_ALLOC_STATS_MS` is set (at least 100 ms apart).
pub fn start_from_env() {
    let Ok(value) = std::env::var("AGUI_ALLOC_STATS_MS") else {
        return;
    };
    let Ok(every) = value.trim().parse::<u64>() else {
        eprintln!("alloc-stats: AGUI_ALLOC_STATS_MS={value:?} is not a number of milliseconds");
        return;
    };
    let every = Duration::from_millis(every.max(100));
    let spawned = std::thread::Builder::new()
        .name("alloc-stats".into())
        .spawn(move || {
            let full = std::env::var_os("AGUI_ALLOC_STATS_FULL").map(std::path::PathBuf::from);
            loop {
                eprintln!("{}", line());
                if let Some(path) = full.as_deref().filter(|p| p.exists()) {
                    print_full();
                    let _ = std::fs::remove_file(path);
                }
                std::thread::sleep(every);
            }
        });
    if let Err(e) = spawned {
        eprintln!("alloc-stats: cannot start its thread: {e}");
    }
}

/// One jemalloc counter (a `size_t`), in KiB; 0 when it cannot be read.
fn counter(name: &CStr) -> usize {
    let mut value: usize = 0;
    let mut len = std::mem::size_of::<usize>();
    // SAFETY: reads one size_t into `value`, whose size `len` gives; writes nothing.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            name.as_ptr(),
            (&mut value as *mut usize).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc == 0 {
        value / 1024
    } else {
        0
    }
}

/// Refresh jemalloc's statistics (they are a snapshot taken at each new epoch).
fn new_epoch() {
    let mut epoch: u64 = 1;
    // SAFETY: writes one u64, whose size is given; reads nothing back.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"epoch".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            (&mut epoch as *mut u64).cast(),
            std::mem::size_of::<u64>(),
        );
    }
}

/// jemalloc's statistics of all arenas merged (size classes and large extents), on stderr, and
/// a heap profile when jemalloc profiles.
fn print_full() {
    // SAFETY: a null callback writes to stderr; the options string is NUL-terminated and
    // only leaves sections out (general, destroyed and per-arena figures, mutexes, extents).
    unsafe {
        tikv_jemalloc_sys::malloc_stats_print(None, std::ptr::null_mut(), c"gdaxe".as_ptr());
    }
    // SAFETY: "prof.dump" with every pointer null writes a heap profile under the configured
    // prefix; without profiling it only answers an error, ignored.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            c"prof.dump".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        );
    }
}

/// `VmRSS`, `RssAnon` and `RssFile` of this process, in KiB.
fn resident() -> [u64; 3] {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    [field("VmRSS:"), field("RssAnon:"), field("RssFile:")]
}

fn line() -> String {
    new_epoch();
    let [rss, anon, file] = resident();
    let glibc = glibc_heap();
    let pool = super::block_pool::BUFFERS.stats();
    format!(
        "alloc-stats KiB: jemalloc allocated {} active {} resident {} base {} retained {} | \
         glibc {glibc} | blocks in use {} kept {} handed back {} touched {} | \
         rss {rss} = anon {anon} + file {file}",
        counter(c"stats.allocated"),
        counter(c"stats.active"),
        counter(c"stats.resident"),
        counter(c"stats.arenas.4096.base"),
        counter(c"stats.retained"),
        pool.in_use,
        pool.dirty,
        pool.clean,
        pool.touched,
    )
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_heap() -> String {
    // SAFETY: mallinfo2 only reads glibc's allocator statistics.
    let m = unsafe { libc::mallinfo2() };
    format!("used {} free {}", m.uordblks / 1024, m.fordblks / 1024)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_heap() -> String {
    "n/a".into()
}
