//! CPU time consumed so far (getrusage: user + system), in µs: the whole
//! process's, and the calling thread's where the platform says (Linux).

fn rusage_us(who: libc::c_int) -> Option<f64> {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is handed and returns 0, or
    // returns -1 and the struct is not read.
    let ru = unsafe {
        if libc::getrusage(who, ru.as_mut_ptr()) != 0 {
            return None;
        }
        ru.assume_init()
    };
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    Some(us(ru.ru_utime) + us(ru.ru_stime))
}

/// This process's CPU time, all threads.
pub fn process_us() -> Result<f64, std::io::Error> {
    rusage_us(libc::RUSAGE_SELF).ok_or_else(std::io::Error::last_os_error)
}

/// The calling thread's CPU time.
#[cfg(target_os = "linux")]
pub fn thread_us() -> Option<f64> {
    rusage_us(libc::RUSAGE_THREAD)
}

/// The calling thread's CPU time: not known here (RUSAGE_THREAD is Linux's).
#[cfg(not(target_os = "linux"))]
pub fn thread_us() -> Option<f64> {
    None
}
