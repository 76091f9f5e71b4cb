//! A counting global allocator for the whole test binary, to prove that the step
//! path allocates nothing. Counting is per thread (a const-initialised
//! thread-local with no destructor, so the counter itself never allocates), which
//! keeps other test threads out of the figures. Implementing `GlobalAlloc` needs
//! `unsafe`; it only forwards to `System`, and it stays in this test binary (the
//! library keeps `#![forbid(unsafe_code)]`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    // try_with: the thread-local may already be gone during thread teardown.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counter does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Number of heap allocations `f` makes on this thread, and its result.
pub fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = COUNT.with(|c| c.get());
    let out = f();
    (COUNT.with(|c| c.get()) - before, out)
}
