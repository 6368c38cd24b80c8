//! `wasm32-wasip2` expects libc to provide `memcmp`; this component links no
//! libc (that is what keeps it free of WASI imports), so it brings its own.
//! A plain byte loop: LLVM does not turn this shape back into a `memcmp` call.

#[no_mangle]
unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        let (x, y) = (*a.add(i), *b.add(i));
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

#[no_mangle]
unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    memcmp(a, b, n)
}

/// The canonical ABI's allocator export. On `wasm32-wasip2` wit-bindgen
/// leaves it to wasi-libc, which this component does not link. The host
/// chooses the sizes and the alignment, so both are checked (an alignment
/// that is not a power of two, or a size that overflows, is refused like
/// exhausted memory): the only answer the canonical ABI allows then is a
/// trap, which every host turns into a typed error and a fresh instance.
#[export_name = "cabi_realloc"]
unsafe extern "C" fn cabi_realloc(old: *mut u8, old_len: usize, align: usize, new_len: usize) -> *mut u8 {
    use alloc::alloc::{alloc, realloc, Layout};
    let trap = || core::arch::wasm32::unreachable();
    if new_len == 0 {
        return align as *mut u8;
    }
    let Ok(new_layout) = Layout::from_size_align(new_len, align) else { trap() };
    let ptr = if old_len == 0 {
        alloc(new_layout)
    } else {
        let Ok(old_layout) = Layout::from_size_align(old_len, align) else { trap() };
        realloc(old, old_layout, new_len)
    };
    if ptr.is_null() {
        trap();
    }
    ptr
}
