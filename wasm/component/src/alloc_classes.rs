//! A tiny size-class allocator for a single-threaded guest.
//!
//! Every block is a power of two from 16 bytes up, aligned to its own size
//! (which satisfies any layout whose alignment is at most its size; a layout
//! is rounded up to `max(size, align)`). Freed blocks go on a per-class free
//! list and are reused first; new blocks are cut from the end of linear
//! memory, growing it as needed. It replaces dlmalloc because the policy's
//! allocations are few, small and short-lived, and ~6 KB of allocator is a
//! tenth of the component. Memory is bounded by the peak live set times two.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;

const CLASSES: usize = 28; // 16 B << 27 = 2 GiB
const PAGE: usize = 65_536;

struct State {
    free: [usize; CLASSES],
    next: usize,
    end: usize,
}

pub struct ClassAllocator(UnsafeCell<State>);

// The guest is single-threaded (no wasm threads are enabled).
unsafe impl Sync for ClassAllocator {}

impl ClassAllocator {
    pub const fn new() -> Self {
        ClassAllocator(UnsafeCell::new(State { free: [0; CLASSES], next: 0, end: 0 }))
    }
}

/// Size class of a layout: `16 << class >= max(size, align, 16)`.
fn class_of(layout: &Layout) -> Option<usize> {
    let size = layout.size().max(layout.align()).max(16);
    let class = (usize::BITS - (size - 1).leading_zeros()) as usize - 4;
    (class < CLASSES).then_some(class)
}

unsafe impl GlobalAlloc for ClassAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let s = &mut *self.0.get();
        let Some(class) = class_of(&layout) else { return core::ptr::null_mut() };
        let head = s.free[class];
        if head != 0 {
            s.free[class] = *(head as *const usize);
            return head as *mut u8;
        }
        if s.end == 0 {
            // Start after everything the module's data and stack occupy.
            s.next = wasm32::memory_size(0) * PAGE;
            s.end = s.next;
        }
        let block = 16usize << class;
        let start = (s.next + block - 1) & !(block - 1);
        let Some(stop) = start.checked_add(block) else { return core::ptr::null_mut() };
        if stop > s.end {
            let pages = (stop - s.end).div_ceil(PAGE);
            if wasm32::memory_grow(0, pages) == usize::MAX {
                return core::ptr::null_mut();
            }
            s.end += pages * PAGE;
        }
        s.next = stop;
        start as *mut u8
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let s = &mut *self.0.get();
        if let Some(class) = class_of(&layout) {
            *(ptr as *mut usize) = s.free[class];
            s.free[class] = ptr as usize;
        }
    }
}
