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
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options: a background thread hands freed pages back to the system after about a
/// second, whichever thread freed them (without it, pages freed by a thread that then sleeps
/// stay resident).
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

fn main() -> std::process::ExitCode {
    tune_allocator();
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
        // SAFETY: "thread.tcache.flush" reads and writes nothing through its pointers (all
        // null) and only empties the calling thread's own cache.
        unsafe {
            tikv_jemalloc_sys::mallctl(
                c"thread.tcache.flush".as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            );
        }
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
