//! SIGTERM/SIGINT (docs/replica.md, "SIGTERM and SIGINT: drain") as a
//! flag (`signal-hook`: the handler only sets an atomic). The driver feeds
//! the engine `drain` on the first signal; the engine starts nothing new
//! and says `drained` once nothing is in flight; a second signal changes
//! nothing.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// SIGTERM and SIGINT as a flag: set by the first signal and left set.
#[derive(Clone, Debug)]
pub struct Signals {
    flag: Arc<AtomicBool>,
}

impl Signals {
    /// Install the handlers (they replace the default: the process no
    /// longer dies on SIGTERM/SIGINT; the caller drains and exits).
    pub fn install() -> io::Result<Signals> {
        let flag = Arc::new(AtomicBool::new(false));
        for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
            signal_hook::flag::register(sig, flag.clone())?;
        }
        Ok(Signals { flag })
    }

    /// A flag nobody sets (no handlers): tests, and runs that never drain.
    pub fn none() -> Signals {
        Signals { flag: Arc::new(AtomicBool::new(false)) }
    }

    /// Whether a signal arrived.
    pub fn received(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Raise the flag by hand (tests).
    pub fn raise(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }
}
