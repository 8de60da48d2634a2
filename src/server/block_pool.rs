//! A pool of 8 KB blocks beside the binary's allocator, for the buffers every connection holds.
//!
//! hyper gives each HTTP/1 connection two buffers of exactly 8 KB (its read buffer and its
//! headers' write buffer; neither can be set smaller), and a crowd of ten thousand connections
//! makes twenty thousand of them. In jemalloc each is a slab of its own, with an extent record
//! and radix-tree entries in jemalloc's own metadata — which jemalloc never hands back: after
//! 10,000 idle observers had closed, its metadata stayed at 6.2 MB against 2.7 MB at start.
//! Slabs of several buffers avoid the records but keep a freed buffer's page resident while
//! its neighbour lives (measured in the README's seventh session: one goal traded for another).
//!
//! [`Pooled`] wraps the binary's allocator and serves the requests of that size class
//! (7,169–8,192 bytes, alignment up to a page) from [`BUFFERS`]: one reserved span of address
//! space cut into 8 KB blocks, pages made resident only as they are written, with two stacks
//! of free blocks — up to [`KEEP_DIRTY`] recently freed ones kept as they are for reuse, every
//! other freed block handed back to the system at once (`MADV_DONTNEED`) — and a block count
//! that fits in a fixed array. The metadata is a few bytes a block, allocated once with the
//! span. [`BlockPool::release_dirty`] hands the kept ones back too (the trim after a crowd
//! calls it). When the span is full, or cannot be mapped, requests go to the wrapped allocator
//! as before.
//!
//! Measured with the capacity benchmark's memory rows (release builds with and without the
//! pool in turn, two pairs, the RSS as change from each run's own baseline): 10,000 idle
//! observers +77 / +75 MB while open and **+0 / +0 MB** 60 s after they closed, against
//! +77 / +77 and +2 / +3 MB; 10,000 runs waiting on approvals +172 / +168 MB and +21 / +21 MB
//! after, against +176 / +174 and +22 / +22 MB. jemalloc's metadata after the waiting runs:
//! 7.7 MB against 10.0 MB.

use std::alloc::{GlobalAlloc, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The size of a block: hyper's buffers.
pub const BLOCK: usize = 8192;
/// The smallest request a block serves: the allocator's 8 KB size class starts above 7 KB, so
/// requests served here would otherwise share it.
pub const SMALLEST: usize = 7 * 1024 + 1;
/// Freed blocks kept resident for reuse (512 KB); further ones go back to the system at once.
pub const KEEP_DIRTY: usize = 64;
/// The blocks of [`BUFFERS`]: 512 MB of address space, of which only the written pages are
/// resident, enough for the buffers of 32,768 connections; more go to the wrapped allocator.
pub const BUFFERS_BLOCKS: u32 = 65_536;

/// The binary's pool (see [`Pooled`]); mapped at its first block.
pub static BUFFERS: BlockPool = BlockPool::new(BUFFERS_BLOCKS, KEEP_DIRTY);

/// Blocks in and out of a pool, for statistics and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Blocks handed out and not freed.
    pub in_use: u32,
    /// Freed blocks kept resident for reuse.
    pub dirty: u32,
    /// Freed blocks whose pages went back to the system.
    pub clean: u32,
    /// Blocks ever used (the rest of the span was never touched).
    pub touched: u32,
}

/// A span of `capacity` blocks of [`BLOCK`] bytes (see the module's documentation).
pub struct BlockPool {
    capacity: u32,
    keep_dirty: usize,
    /// The span's address, 0 until mapped (it is never unmapped).
    base: AtomicUsize,
    state: Mutex<State>,
}

struct State {
    /// The span could not be mapped: every request goes to the wrapped allocator.
    failed: bool,
    /// Blocks below this index have been handed out at least once.
    fresh: u32,
    /// Freed blocks still resident, the most recent last.
    dirty: [u32; KEEP_DIRTY],
    dirty_len: usize,
    /// Freed blocks whose pages went back: a stack of `capacity` indices after the blocks.
    clean_len: usize,
    in_use: u32,
}

impl BlockPool {
    /// A pool of `capacity` blocks keeping up to `keep_dirty` (at most [`KEEP_DIRTY`]) freed
    /// blocks resident; nothing is mapped before the first block is asked for.
    pub const fn new(capacity: u32, keep_dirty: usize) -> Self {
        let keep_dirty = if keep_dirty < KEEP_DIRTY {
            keep_dirty
        } else {
            KEEP_DIRTY
        };
        Self {
            capacity,
            keep_dirty,
            base: AtomicUsize::new(0),
            state: Mutex::new(State {
                failed: false,
                fresh: 0,
                dirty: [0; KEEP_DIRTY],
                dirty_len: 0,
                clean_len: 0,
                in_use: 0,
            }),
        }
    }

    /// Whether a request of `layout` is one this pool serves.
    #[inline]
    pub fn serves(layout: Layout) -> bool {
        (SMALLEST..=BLOCK).contains(&layout.size()) && layout.align() <= 4096
    }

    /// Whether `ptr` is one of this pool's blocks.
    #[inline]
    pub fn owns(&self, ptr: *const u8) -> bool {
        let base = self.base.load(Ordering::Acquire);
        base != 0 && (ptr as usize).wrapping_sub(base) < self.blocks_bytes()
    }

    fn blocks_bytes(&self) -> usize {
        self.capacity as usize * BLOCK
    }

    fn span_bytes(&self) -> usize {
        let stack = self.capacity as usize * std::mem::size_of::<u32>();
        self.blocks_bytes() + stack.next_multiple_of(4096)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Nothing panics while the lock is held; a poisoned lock's state is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn clean_stack(&self, base: usize) -> *mut u32 {
        (base + self.blocks_bytes()) as *mut u32
    }

    /// A block, and whether its bytes are all zero (never written, or handed back since);
    /// `None` when the pool is full or cannot be mapped.
    pub fn alloc(&self) -> Option<(NonNull<u8>, bool)> {
        let mut state = self.state();
        let mut base = self.base.load(Ordering::Acquire);
        if base == 0 {
            if state.failed || self.capacity == 0 {
                return None;
            }
            base = match map(self.span_bytes()) {
                Some(base) => base,
                None => {
                    state.failed = true;
                    return None;
                }
            };
            self.base.store(base, Ordering::Release);
        }
        let (index, zeroed) = if state.dirty_len > 0 {
            state.dirty_len -= 1;
            (state.dirty[state.dirty_len], false)
        } else if state.clean_len > 0 {
            state.clean_len -= 1;
            // SAFETY: the stack has `capacity` slots after the blocks, inside the mapped span,
            // and `clean_len` slots of it were written by `free`/`release_dirty`.
            (
                unsafe { *self.clean_stack(base).add(state.clean_len) },
                true,
            )
        } else if state.fresh < self.capacity {
            state.fresh += 1;
            (state.fresh - 1, true)
        } else {
            return None;
        };
        state.in_use += 1;
        NonNull::new((base + index as usize * BLOCK) as *mut u8).map(|p| (p, zeroed))
    }

    /// Give a block back.
    ///
    /// # Safety
    /// `ptr` is a block of this pool ([`BlockPool::owns`]) handed out by [`BlockPool::alloc`]
    /// and not freed since; it is not used after this call.
    pub unsafe fn free(&self, ptr: *mut u8) {
        let base = self.base.load(Ordering::Acquire);
        let index = ((ptr as usize - base) / BLOCK) as u32;
        {
            let mut state = self.state();
            state.in_use -= 1;
            if state.dirty_len < self.keep_dirty {
                let at = state.dirty_len;
                state.dirty[at] = index;
                state.dirty_len += 1;
                return;
            }
        }
        // Out of every stack until pushed below: nobody else can be handed it meanwhile.
        hand_back(ptr);
        let mut state = self.state();
        self.push_clean(&mut state, base, index);
    }

    fn push_clean(&self, state: &mut State, base: usize, index: u32) {
        // SAFETY: each block is in at most one stack, so `clean_len < capacity`, and the
        // stack's `capacity` slots lie inside the mapped span.
        unsafe { *self.clean_stack(base).add(state.clean_len) = index };
        state.clean_len += 1;
    }

    /// Hand the pages of the freed blocks kept for reuse back to the system.
    pub fn release_dirty(&self) {
        let base = self.base.load(Ordering::Acquire);
        if base == 0 {
            return;
        }
        let (taken, count) = {
            let mut state = self.state();
            let count = std::mem::take(&mut state.dirty_len);
            (state.dirty, count)
        };
        for &index in &taken[..count] {
            hand_back((base + index as usize * BLOCK) as *mut u8);
        }
        let mut state = self.state();
        for &index in &taken[..count] {
            self.push_clean(&mut state, base, index);
        }
    }

    /// How many blocks are in use, kept, handed back and ever touched.
    pub fn stats(&self) -> PoolStats {
        let state = self.state();
        PoolStats {
            in_use: state.in_use,
            dirty: state.dirty_len as u32,
            clean: state.clean_len as u32,
            touched: state.fresh,
        }
    }
}

/// Reserve `bytes` of address space, read-write, resident only where written.
fn map(bytes: usize) -> Option<usize> {
    // SAFETY: a new private anonymous mapping; no existing memory is touched.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (ptr != libc::MAP_FAILED && !ptr.is_null()).then_some(ptr as usize)
}

/// Hand one block's pages back to the system; they read as zeros when next touched.
fn hand_back(block: *mut u8) {
    // SAFETY: `block` is a block of a private anonymous mapping that nobody uses meanwhile.
    unsafe {
        libc::madvise(block.cast(), BLOCK, libc::MADV_DONTNEED);
    }
}

/// An allocator that serves the 8 KB requests from a [`BlockPool`] and everything else (and
/// what the pool cannot serve) from `A`.
pub struct Pooled<A> {
    inner: A,
    pool: &'static BlockPool,
}

impl<A> Pooled<A> {
    pub const fn new(inner: A, pool: &'static BlockPool) -> Self {
        Self { inner, pool }
    }
}

// SAFETY: every block the pool hands out is BLOCK bytes, aligned to a page, used by one owner
// until freed; everything else is `A`'s, passed through unchanged.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Pooled<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if BlockPool::serves(layout) {
            if let Some((block, _)) = self.pool.alloc() {
                return block.as_ptr();
            }
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if BlockPool::serves(layout) {
            if let Some((block, zeroed)) = self.pool.alloc() {
                if !zeroed {
                    // SAFETY: the block is BLOCK ≥ layout.size() bytes, ours until freed.
                    unsafe { block.as_ptr().write_bytes(0, layout.size()) };
                }
                return block.as_ptr();
            }
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if BlockPool::serves(layout) && self.pool.owns(ptr) {
            // SAFETY: a block of the pool, freed once by the caller's contract.
            unsafe { self.pool.free(ptr) };
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.inner.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !(BlockPool::serves(layout) && self.pool.owns(ptr)) {
            // A request that grows or shrinks into the pool's size stays with `A`.
            // SAFETY: the caller's contract, passed on.
            return unsafe { self.inner.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller's contract makes `new_size` with this alignment a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if BlockPool::serves(new_layout) {
            return ptr;
        }
        // SAFETY: a valid non-zero layout (the caller's contract).
        let moved = unsafe { self.inner.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both are at least the smaller size and distinct; the block is freed once.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.pool.free(ptr);
            }
        }
        moved
    }
}

#[cfg(test)]
mod tests;
