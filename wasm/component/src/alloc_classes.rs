//! The global allocator: `alloc-classes` (a size-class allocator tested
//! natively against a model) over this module's linear memory.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;

use alloc_classes::{Classes, Memory, PAGE};

/// Memory 0 of this module.
pub struct WasmMemory;

impl Memory for WasmMemory {
    fn size_bytes(&self) -> usize {
        wasm32::memory_size(0) * PAGE
    }
    fn grow(&mut self, pages: usize) -> bool {
        wasm32::memory_grow(0, pages) != usize::MAX
    }
    unsafe fn read_link(&self, addr: usize) -> usize {
        *(addr as *const usize)
    }
    unsafe fn write_link(&mut self, addr: usize, link: usize) {
        *(addr as *mut usize) = link;
    }
}

pub struct ClassAllocator(UnsafeCell<Classes<WasmMemory>>);

// The guest is single-threaded (no wasm threads are enabled).
unsafe impl Sync for ClassAllocator {}

impl ClassAllocator {
    pub const fn new() -> Self {
        ClassAllocator(UnsafeCell::new(Classes::new(WasmMemory)))
    }
}

unsafe impl GlobalAlloc for ClassAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let classes = &mut *self.0.get();
        classes.alloc(layout.size(), layout.align()).map_or(core::ptr::null_mut(), |a| a as *mut u8)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (*self.0.get()).dealloc(ptr as usize, layout.size(), layout.align());
    }
}
