//! The allocator against a reference model: random alloc / free / realloc
//! sequences on a simulated linear memory. Every live block must be aligned,
//! inside memory, disjoint from every other live block, and keep its bytes
//! (each block is filled with its own tag and checked when freed).

use alloc_classes::{class_of, Classes, Memory, PAGE};
use proptest::prelude::*;

/// Memory starting one page in (address 0 is never handed out), growing up
/// to `limit_pages`.
struct VecMemory {
    bytes: Vec<u8>,
    limit_pages: usize,
}

impl VecMemory {
    fn new(limit_pages: usize) -> Self {
        VecMemory { bytes: vec![0; PAGE], limit_pages }
    }
}

impl Memory for VecMemory {
    fn size_bytes(&self) -> usize {
        self.bytes.len()
    }
    fn grow(&mut self, pages: usize) -> bool {
        if self.bytes.len() / PAGE + pages > self.limit_pages {
            return false;
        }
        self.bytes.resize(self.bytes.len() + pages * PAGE, 0);
        true
    }
    unsafe fn read_link(&self, addr: usize) -> usize {
        usize::from_le_bytes(self.bytes[addr..addr + 8].try_into().unwrap())
    }
    unsafe fn write_link(&mut self, addr: usize, link: usize) {
        self.bytes[addr..addr + 8].copy_from_slice(&link.to_le_bytes());
    }
}

#[derive(Clone, Debug)]
enum Op {
    Alloc { size: usize, align_log2: u32 },
    Free(usize),
    Realloc(usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (prop_oneof![1usize..64, 1usize..5000, 1usize..300_000], 0u32..13)
            .prop_map(|(size, align_log2)| Op::Alloc { size, align_log2 }),
        1 => (0usize..usize::MAX / 2, 0u32..13).prop_map(|(size, align_log2)| Op::Alloc { size, align_log2 }),
        3 => any::<usize>().prop_map(Op::Free),
        2 => (any::<usize>(), 1usize..100_000).prop_map(|(i, n)| Op::Realloc(i, n)),
    ]
}

struct Live {
    addr: usize,
    size: usize,
    align: usize,
    tag: u8,
}

fn fill(a: &mut Classes<VecMemory>, b: &Live) {
    a.memory_mut().bytes[b.addr..b.addr + b.size].fill(b.tag);
}

fn intact(a: &Classes<VecMemory>, b: &Live) -> bool {
    a.memory().bytes[b.addr..b.addr + b.size].iter().all(|&x| x == b.tag)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn live_blocks_are_aligned_disjoint_in_memory_and_keep_their_bytes(ops in prop::collection::vec(op(), 1..120)) {
        let mut a = Classes::new(VecMemory::new(512));
        let mut live: Vec<Live> = Vec::new();
        let mut tag = 0u8;
        for op in ops {
            match op {
                Op::Alloc { size, align_log2 } => {
                    let align = 1usize << align_log2;
                    let Some(addr) = a.alloc(size, align) else {
                        // Refused: too big for a class or for the memory limit.
                        prop_assert!(class_of(size, align).is_none() || size > 512 * PAGE / 2 || size.max(align) > 1 << 24);
                        continue;
                    };
                    prop_assert!(addr != 0 && addr % align == 0);
                    prop_assert!(addr + size <= a.memory().size_bytes());
                    for b in &live {
                        prop_assert!(addr + size <= b.addr || b.addr + b.size <= addr, "overlap");
                    }
                    tag = tag.wrapping_add(1);
                    let b = Live { addr, size, align, tag };
                    fill(&mut a, &b);
                    live.push(b);
                }
                Op::Free(i) if !live.is_empty() => {
                    let b = live.swap_remove(i % live.len());
                    prop_assert!(intact(&a, &b), "a live block was overwritten");
                    unsafe { a.dealloc(b.addr, b.size, b.align) };
                }
                Op::Realloc(i, n) if !live.is_empty() => {
                    // GlobalAlloc's default realloc: alloc, copy, free.
                    let b = live.swap_remove(i % live.len());
                    prop_assert!(intact(&a, &b));
                    if let Some(addr) = a.alloc(n, b.align) {
                        let keep = b.size.min(n);
                        a.memory_mut().bytes.copy_within(b.addr..b.addr + keep, addr);
                        prop_assert!(a.memory().bytes[addr..addr + keep].iter().all(|&x| x == b.tag));
                        unsafe { a.dealloc(b.addr, b.size, b.align) };
                        tag = tag.wrapping_add(1);
                        let nb = Live { addr, size: n, align: b.align, tag };
                        fill(&mut a, &nb);
                        live.push(nb);
                    } else {
                        live.push(b);
                    }
                }
                _ => {}
            }
        }
        for b in &live {
            prop_assert!(intact(&a, b));
        }
    }
}

#[test]
fn an_alignment_that_is_not_a_power_of_two_is_refused() {
    let mut a = Classes::new(VecMemory::new(4));
    for align in [0, 3, 6, 12, 100] {
        assert_eq!(a.alloc(8, align), None, "align {align}");
    }
}

#[test]
fn a_request_near_the_top_of_the_address_space_is_refused_not_wrapped() {
    struct Top;
    impl Memory for Top {
        fn size_bytes(&self) -> usize {
            usize::MAX - 4096
        }
        fn grow(&mut self, _: usize) -> bool {
            true
        }
        unsafe fn read_link(&self, _: usize) -> usize {
            0
        }
        unsafe fn write_link(&mut self, _: usize, _: usize) {}
    }
    let mut a = Classes::new(Top);
    for size in [16, 5000, 1 << 20, 1 << 31] {
        assert_eq!(a.alloc(size, 8), None, "size {size}");
    }
}

#[test]
fn freed_blocks_are_reused_so_memory_levels_off() {
    let mut a = Classes::new(VecMemory::new(64));
    for _ in 0..10_000 {
        let x = a.alloc(100, 8).unwrap();
        let y = a.alloc(3000, 8).unwrap();
        unsafe {
            a.dealloc(x, 100, 8);
            a.dealloc(y, 3000, 8);
        }
    }
    assert!(a.memory().size_bytes() <= 2 * PAGE, "memory grew to {}", a.memory().size_bytes());
}
