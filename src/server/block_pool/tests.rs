use super::*;

use std::alloc::System;

fn pool(capacity: u32, keep_dirty: usize) -> &'static BlockPool {
    Box::leak(Box::new(BlockPool::new(capacity, keep_dirty)))
}

/// How many of the block's pages are resident (`mincore`).
fn resident_pages(block: *const u8) -> usize {
    let mut pages = [0u8; BLOCK / 4096];
    // SAFETY: the block is page-aligned and mapped; `pages` has one byte per page.
    let r = unsafe { libc::mincore(block as *mut _, BLOCK, pages.as_mut_ptr()) };
    assert_eq!(r, 0, "mincore");
    pages.iter().filter(|p| *p & 1 == 1).count()
}

fn fill(block: *mut u8, byte: u8) {
    // SAFETY: a whole block the test owns.
    unsafe { block.write_bytes(byte, BLOCK) };
}

fn all(block: *const u8, byte: u8) -> bool {
    // SAFETY: a whole block the test owns.
    unsafe { std::slice::from_raw_parts(block, BLOCK) }
        .iter()
        .all(|b| *b == byte)
}

#[test]
fn serves_the_8_kb_size_class_only() {
    let layout = |size, align| Layout::from_size_align(size, align).unwrap();
    assert!(BlockPool::serves(layout(8192, 8)));
    assert!(BlockPool::serves(layout(7169, 1)));
    assert!(BlockPool::serves(layout(8000, 4096)));
    assert!(!BlockPool::serves(layout(7168, 8)));
    assert!(!BlockPool::serves(layout(8193, 8)));
    assert!(!BlockPool::serves(layout(8192, 8192)));
    assert!(!BlockPool::serves(layout(64, 8)));
}

#[test]
fn blocks_are_distinct_page_aligned_and_reused() {
    let pool = pool(8, 4);
    assert!(
        !pool.owns(std::ptr::null()),
        "nothing is mapped before the first block"
    );
    let blocks: Vec<_> = (0..8).map(|_| pool.alloc().unwrap()).collect();
    assert!(pool.alloc().is_none(), "a full pool answers None");
    let mut addresses: Vec<usize> = blocks.iter().map(|(p, _)| p.as_ptr() as usize).collect();
    assert!(
        blocks.iter().all(|(_, zeroed)| *zeroed),
        "fresh blocks are zero"
    );
    addresses.sort_unstable();
    addresses.dedup();
    assert_eq!(addresses.len(), 8);
    assert!(addresses.windows(2).all(|w| w[1] - w[0] >= BLOCK));
    assert!(addresses
        .iter()
        .all(|a| a % 4096 == 0 && pool.owns(*a as *const u8)));
    assert!(
        !pool.owns((addresses[7] + BLOCK) as *const u8),
        "the stack after the blocks"
    );
    assert_eq!(
        pool.stats(),
        PoolStats {
            in_use: 8,
            dirty: 0,
            clean: 0,
            touched: 8
        }
    );

    let (first, _) = blocks[0];
    fill(first.as_ptr(), 7);
    // SAFETY: handed out above, freed once.
    unsafe { pool.free(first.as_ptr()) };
    let (again, zeroed) = pool.alloc().unwrap();
    assert_eq!(again, first, "the block just freed comes back first");
    assert!(!zeroed && all(again.as_ptr(), 7), "kept as it was");
    for (block, _) in &blocks {
        // SAFETY: each handed out once and freed once (the first was handed out again).
        unsafe { pool.free(block.as_ptr()) };
    }
    assert_eq!(pool.stats().in_use, 0);
    assert_eq!(pool.stats().dirty + pool.stats().clean, 8);
}

#[test]
fn freed_blocks_beyond_the_kept_few_go_back_to_the_system_at_once() {
    let pool = pool(64, 4);
    let blocks: Vec<_> = (0..16).map(|_| pool.alloc().unwrap().0.as_ptr()).collect();
    for &block in &blocks {
        assert_eq!(resident_pages(block), 0, "never written, never resident");
        fill(block, 0xAB);
        assert_eq!(resident_pages(block), BLOCK / 4096);
    }
    for &block in &blocks {
        // SAFETY: handed out above, freed once.
        unsafe { pool.free(block) };
    }
    let kept: Vec<_> = blocks.iter().filter(|b| resident_pages(**b) > 0).collect();
    assert_eq!(
        kept.len(),
        4,
        "the first four freed stay resident, the rest went back"
    );
    assert_eq!(
        pool.stats(),
        PoolStats {
            in_use: 0,
            dirty: 4,
            clean: 12,
            touched: 16
        }
    );

    pool.release_dirty();
    assert!(
        blocks.iter().all(|b| resident_pages(*b) == 0),
        "all went back"
    );
    assert_eq!(
        pool.stats(),
        PoolStats {
            in_use: 0,
            dirty: 0,
            clean: 16,
            touched: 16
        }
    );
    for _ in 0..16 {
        let (block, zeroed) = pool.alloc().unwrap();
        assert!(
            zeroed && all(block.as_ptr(), 0),
            "a block handed back reads as zeros"
        );
        assert!(
            blocks.contains(&block.as_ptr()),
            "handed-back blocks are reused first"
        );
    }
    assert_eq!(pool.stats().touched, 16);
}

#[test]
fn the_allocator_routes_8_kb_requests_to_the_pool_and_the_rest_through() {
    let pool = pool(4, 2);
    let a = Pooled::new(System, pool);
    let block = Layout::from_size_align(8192, 8).unwrap();
    let small = Layout::from_size_align(100, 8).unwrap();
    // SAFETY: every pointer below is allocated, used within its layout and freed once with it.
    unsafe {
        let pooled: Vec<*mut u8> = (0..6).map(|_| a.alloc(block)).collect();
        assert!(pooled.iter().all(|p| !p.is_null()));
        let owned = pooled.iter().filter(|p| pool.owns(**p)).count();
        assert_eq!(
            owned, 4,
            "the pool's four blocks, then the wrapped allocator"
        );
        let other = a.alloc(small);
        assert!(!pool.owns(other));
        a.dealloc(other, small);

        // Dirty blocks come back zeroed when asked.
        pooled[0].write_bytes(9, 8192);
        a.dealloc(pooled[0], block);
        let zeroed = a.alloc_zeroed(block);
        assert_eq!(zeroed, pooled[0]);
        assert!(all(zeroed, 0));

        // Within the size class a block stays; beyond it, it moves with its bytes.
        zeroed.write_bytes(5, 8192);
        let shrunk = a.realloc(zeroed, block, 7500);
        assert_eq!(shrunk, zeroed);
        let grown = a.realloc(shrunk, Layout::from_size_align(7500, 8).unwrap(), 20_000);
        assert!(!pool.owns(grown));
        assert!(std::slice::from_raw_parts(grown, 7500)
            .iter()
            .all(|b| *b == 5));
        assert_eq!(
            pool.stats().in_use,
            3,
            "the moved block went back to the pool"
        );
        a.dealloc(grown, Layout::from_size_align(20_000, 8).unwrap());

        // A request growing into the size class stays with the wrapped allocator.
        let p = a.alloc(small);
        let p = a.realloc(p, small, 8192);
        assert!(!pool.owns(p));
        a.dealloc(p, block);

        for p in &pooled[1..] {
            a.dealloc(*p, block);
        }
    }
    assert_eq!(pool.stats().in_use, 0);
}

#[test]
fn threads_never_share_a_block() {
    let pool = pool(64, 8);
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut held = Vec::new();
                for round in 0..2_000u32 {
                    if let Some((block, _)) = pool.alloc() {
                        fill(block.as_ptr(), t);
                        held.push(block);
                    }
                    if held.len() > 12 || round % 3 == 0 {
                        if let Some(block) = held.pop() {
                            assert!(all(block.as_ptr(), t), "a block written by another thread");
                            // SAFETY: handed out to this thread, freed once.
                            unsafe { pool.free(block.as_ptr()) };
                        }
                    }
                }
                for block in held {
                    assert!(all(block.as_ptr(), t));
                    // SAFETY: as above.
                    unsafe { pool.free(block.as_ptr()) };
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = pool.stats();
    assert_eq!(stats.in_use, 0);
    assert_eq!(stats.dirty + stats.clean, stats.touched);
}

#[test]
fn an_empty_pool_serves_nothing_and_maps_nothing() {
    let pool = pool(0, 4);
    assert!(pool.alloc().is_none());
    assert!(!pool.owns(8192 as *const u8));
    pool.release_dirty();
    assert_eq!(pool.stats(), PoolStats::default());
}
