//! The agui-studio binary: serves the AG-UI server and UI (default), or inspects a recorded
//! stream (`agui-studio inspect`), or hashes a user's token (`agui-studio hash-token`).

use clap::Parser;

use agui_studio::server::config::{Cli, Command};

/// The server's allocator is jemalloc. With glibc's, what a crowd of connections or runs had
/// allocated stayed resident after they left: their freed chunks sat on pages that a few
/// long-lived allocations (SQLite's page cache, growing meanwhile) kept in use, so even
/// `malloc_trim` could give back almost nothing. Measured with `benches/approvals_heap.py`
/// (release binary): 2,000 runs ended by `--approval-timeout 3` left 82 MB against a 22 MB
/// baseline with glibc, 58 MB with jemalloc; 10,000 waiting runs whose clients then
/// left (which cancels them), 517 MB against 119 MB. SQLite (C code) still allocates from glibc.
/// The connections' 8 KB buffers come from a pool of their own (`server::block_pool`), which
/// hands their pages back without growing jemalloc's metadata.
#[global_allocator]
static ALLOCATOR: agui_studio::server::block_pool::Pooled<tikv_jemallocator::Jemalloc> =
    agui_studio::server::block_pool::Pooled::new(
        tikv_jemallocator::Jemalloc,
        &agui_studio::server::block_pool::BUFFERS,
    );

/// jemalloc's options: a background thread hands freed pages back to the system after about a
/// second ([`DIRTY_DECAY_MS`]), whichever thread freed them (without it, pages freed by a
/// thread that then sleeps stay resident). A crowded server hands them back at once (see
/// [`allocator_for_crowd`]).
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

/// `dirty_decay_ms` of [`malloc_conf`], which a server goes back to once a crowd stops gathering.
const DIRTY_DECAY_MS: isize = 1000;

/// Called when a crowd starts gathering (`server::trim::CROWD` open connections) and when it
/// stops (it leaves). While it gathers, jemalloc hands freed pages back at once
/// (`dirty_decay_ms` 0) instead of keeping them a second for reuse: reused, a page that a burst
/// of short-lived buffers had touched went into a new connection's buffers, resident for the
/// connection's life even where the connection never wrote (hyper's two 8 KB buffers are mostly
/// untouched). Measured with `benches/approvals_heap.py 10000 --demo-delay-ms 0` (10,000 runs
/// waiting on approvals, started as fast as the server goes): 238–241 MB with a second's
/// decay, 188 MB without.
/// Not always: one stream drained flat out went 707 k → 525 k events/s without the decay (its
/// write buffers' pages handed back and faulted in again at every batch), so an uncrowded
/// server keeps it, and so does a crowd that leaves (see `server::trim::crowd`).
fn allocator_for_crowd(crowded: bool) {
    let ms: isize = if crowded { 0 } else { DIRTY_DECAY_MS };
    let set = |name: &str| {
        let Ok(name) = std::ffi::CString::new(name) else {
            return;
        };
        // SAFETY: a decay setting is an ssize_t; an arena not yet in use answers an error and
        // is skipped.
        unsafe { jemalloc_write(&name, Some(&ms)) };
    };
    // Arenas created from now on, then each existing one (jemalloc's "all arenas" index is
    // not accepted for this setting).
    set("arenas.dirty_decay_ms");
    let mut narenas: u32 = 0;
    let mut len = std::mem::size_of::<u32>();
    // SAFETY: reads one unsigned into `narenas`, whose size `len` gives.
    let read = unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arenas.narenas".as_ptr(),
            (&mut narenas as *mut u32).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if read == 0 {
        for i in 0..narenas {
            set(&format!("arena.{i}.dirty_decay_ms"));
        }
    }
}

fn main() -> std::process::ExitCode {
    tune_allocator();
    agui_studio::server::trim::on_crowd(allocator_for_crowd);
    agui_studio::server::trim::on_thread_cache(switch_thread_cache);
    #[cfg(feature = "alloc-stats")]
    agui_studio::server::alloc_stats::start_from_env();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(hand_back_thread_cache_if_asked)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let cli = Cli::parse();
        match cli.command {
            Some(Command::HashToken(args)) => {
                agui_studio::server::accounts::hash_token_command(args)
            }
            Some(Command::Inspect(args)) => agui_studio::server::inspect::run(args),
            Some(Command::Serve(serve)) => agui_studio::server::serve(serve).await,
            None => agui_studio::server::serve(cli.serve).await,
        }
    })
}

/// Called as an async worker goes idle: after a crowd has left (`server::trim`), the worker
/// hands the objects its jemalloc thread cache holds back to the shared heap, once. jemalloc
/// trims a thread's cache only as that thread allocates, so an idle worker kept what it had
/// cached while serving the crowd. Measured with the capacity benchmark's 10,000 idle
/// observers: their "after" RSS 40 MB with the workers' caches, 36 MB with no thread caches
/// at all (`_RJEM_MALLOC_CONF=tcache:false`, which doubled the RSS while they were open).
fn hand_back_thread_cache_if_asked() {
    thread_local!(static SEEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });
    let epoch = agui_studio::server::trim::caches_epoch();
    if SEEN.with(|seen| seen.replace(epoch)) != epoch {
        flush_thread_cache();
    }
}

/// Hand the objects the calling thread's jemalloc cache holds back to the shared heap.
fn flush_thread_cache() {
    // SAFETY: "thread.tcache.flush" takes no value and only empties the calling thread's own
    // cache.
    unsafe { jemalloc_write::<()>(c"thread.tcache.flush", None) };
}

/// Turn the calling thread's jemalloc cache off (which hands back what it holds) or on again.
fn switch_thread_cache(enabled: bool) {
    // SAFETY: "thread.tcache.enabled" is a bool and changes only the calling thread's cache.
    unsafe { jemalloc_write(c"thread.tcache.enabled", Some(&enabled)) };
}

/// Write jemalloc's setting `name` (`value` None: a command that takes none); an error answer
/// is ignored.
///
/// # Safety
/// `T` is the type jemalloc documents for `name` (or `name` takes no value when `value` is
/// None).
unsafe fn jemalloc_write<T>(name: &std::ffi::CStr, value: Option<&T>) {
    let (ptr, len) = match value {
        Some(v) => ((v as *const T).cast_mut().cast(), std::mem::size_of::<T>()),
        None => (std::ptr::null_mut(), 0),
    };
    // SAFETY: nothing is read back (null old-value pointers); `ptr` points at `len` bytes of a
    // `T` that outlives the call, the type the caller vouches for.
    unsafe {
        tikv_jemalloc_sys::mallctl(
            name.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            ptr,
            len,
        );
    }
}

/// glibc's allocator (SQLite's and other C code's since the binary uses jemalloc), left alone,
/// keeps what large requests allocated: after each large free it raises its mmap threshold, so
/// later large buffers come from the heap and stay resident once freed, spread over up to 8 heaps
/// per core. Measured by the hostile tests (six 16 MiB bodies at once) when Rust allocated from
/// glibc too: 810 MiB still resident afterwards, 364 MiB with these settings. Set before any
/// thread starts.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
