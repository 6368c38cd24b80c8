//! A tiny size-class allocator for a single-threaded wasm guest, written
//! over an abstract linear memory ([`Memory`]) so the exact code the
//! component runs is also tested natively against a reference model
//! (`tests/model.rs`).
//!
//! Every block is a power of two from 16 bytes up, aligned to its own size
//! (which satisfies any layout whose alignment is at most its size; a
//! request is rounded up to `max(size, align)`). Freed blocks go on a
//! per-class free list (the link is stored in the block) and are reused
//! first; new blocks are cut from the end of memory, growing it as needed.
//! Linear memory never shrinks (wasm cannot), so the footprint is bounded by
//! the peak live set rounded to powers of two, plus alignment padding.
//!
//! Every address computation is checked: a request that cannot be served
//! (too large, an alignment that is not a power of two, an address space
//! that would wrap, memory that will not grow) returns `None`, never a
//! block that overlaps another.
#![no_std]

/// Blocks of `16 << class` bytes; the largest class is 2 GiB.
pub const CLASSES: usize = 28;
/// A wasm page.
pub const PAGE: usize = 65_536;

/// Linear memory as the allocator needs it.
pub trait Memory {
    /// Current size in bytes.
    fn size_bytes(&self) -> usize;
    /// Grow by `pages`; false when it cannot.
    fn grow(&mut self, pages: usize) -> bool;
    /// Read the free-list link stored at `addr`.
    ///
    /// # Safety
    /// `addr` is the start of a freed block of this allocator.
    unsafe fn read_link(&self, addr: usize) -> usize;
    /// Store a free-list link at `addr`.
    ///
    /// # Safety
    /// `addr` is the start of a block being freed.
    unsafe fn write_link(&mut self, addr: usize, link: usize);
}

/// The allocator's state.
pub struct Classes<M> {
    free: [usize; CLASSES],
    next: usize,
    end: usize,
    memory: M,
}

/// Size class of a request: `16 << class >= max(size, align, 16)`.
pub fn class_of(size: usize, align: usize) -> Option<usize> {
    if !align.is_power_of_two() {
        return None;
    }
    let size = size.max(align).max(16);
    let class = (usize::BITS - (size - 1).leading_zeros()) as usize - 4;
    (class < CLASSES).then_some(class)
}

impl<M: Memory> Classes<M> {
    pub const fn new(memory: M) -> Self {
        Classes { free: [0; CLASSES], next: 0, end: 0, memory }
    }

    pub fn memory(&self) -> &M {
        &self.memory
    }

    /// The memory, to write into blocks (tests; the guest writes through pointers).
    pub fn memory_mut(&mut self) -> &mut M {
        &mut self.memory
    }

    /// A block of at least `size` bytes aligned to `align`, or `None`.
    pub fn alloc(&mut self, size: usize, align: usize) -> Option<usize> {
        let class = class_of(size, align)?;
        let head = self.free[class];
        if head != 0 {
            // SAFETY: `head` is a freed block of this class (only `dealloc` links blocks).
            self.free[class] = unsafe { self.memory.read_link(head) };
            return Some(head);
        }
        if self.end == 0 {
            // Start after everything the module's data and stack occupy.
            self.next = self.memory.size_bytes();
            self.end = self.next;
        }
        let block = 16usize << class;
        let start = self.next.checked_add(block - 1)? & !(block - 1);
        let stop = start.checked_add(block)?;
        if stop > self.end {
            let pages = (stop - self.end).div_ceil(PAGE);
            let grown = self.end.checked_add(pages.checked_mul(PAGE)?)?;
            if !self.memory.grow(pages) {
                return None;
            }
            self.end = grown;
        }
        self.next = stop;
        Some(start)
    }

    /// Return a block from [`Classes::alloc`] with the same `size` and `align`.
    ///
    /// # Safety
    /// `addr` came from `alloc(size, align)` and is not used afterwards.
    pub unsafe fn dealloc(&mut self, addr: usize, size: usize, align: usize) {
        if let Some(class) = class_of(size, align) {
            self.memory.write_link(addr, self.free[class]);
            self.free[class] = addr;
        }
    }
}
