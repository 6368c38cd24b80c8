//! SIGTERM/SIGINT drain (docs/replica.md, "SIGTERM and SIGINT: drain").
//!
//! On the first signal the dispatcher admits no more events and starts no
//! new attempt (events waiting for a retry stay pending); attempts already
//! being sent may finish for up to `--drain-ms` and are settled by the
//! policy as usual. An attempt still running at the drain deadline is
//! abandoned: counted as made, its attempt number written to the event's
//! record (so a resumed run never reuses it), its event pending. A second
//! signal during the drain is ignored.
//!
//! [`Drain`] is the state the workers consult; [`Signals`] turns SIGTERM
//! and SIGINT into a flag (`signal-hook`: the handler only sets an atomic).

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the workers check before each attempt, and what is being sent.
#[derive(Debug, Default)]
pub struct Drain {
    draining: AtomicBool,
    sending: Mutex<Sending>,
}

#[derive(Debug, Default)]
struct Sending {
    /// Event id -> the attempt number being sent.
    attempts: HashMap<String, u32>,
    /// Set at the drain deadline: attempts still being sent are abandoned.
    abandoned: bool,
}

impl Drain {
    /// Begin the drain; `true` the first time.
    pub fn begin(&self) -> bool {
        !self.draining.swap(true, Ordering::SeqCst)
    }

    /// Whether no new attempt may start.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Sending> {
        self.sending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Attempt `attempt` of `event_id` is about to be written; `false` when
    /// the drain has begun (then it must not be sent).
    pub fn sending(&self, event_id: &str, attempt: u32) -> bool {
        let mut s = self.lock();
        if self.is_draining() {
            return false;
        }
        s.attempts.insert(event_id.to_string(), attempt);
        true
    }

    /// The attempt of `event_id` came back; `false` when it was abandoned at
    /// the drain deadline (then its outcome is not settled: the event was
    /// already recorded pending with this attempt counted).
    pub fn sent(&self, event_id: &str) -> bool {
        let mut s = self.lock();
        s.attempts.remove(event_id);
        !s.abandoned
    }

    /// At the drain deadline: every attempt still being sent, abandoned.
    pub fn abandon(&self) -> Vec<(String, u32)> {
        let mut s = self.lock();
        s.abandoned = true;
        s.attempts.drain().collect()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_draining_no_attempt_may_start_and_the_first_begin_alone_is_true() {
        let d = Drain::default();
        assert!(d.sending("e-1", 1));
        assert!(d.begin());
        assert!(!d.begin(), "a second signal is ignored");
        assert!(!d.sending("e-2", 1));
        assert!(d.sent("e-1"), "an attempt that ends before the deadline is settled");
    }

    #[test]
    fn attempts_running_at_the_deadline_are_abandoned_with_their_numbers() {
        let d = Drain::default();
        assert!(d.sending("e-1", 3));
        assert!(d.sending("e-2", 1));
        d.begin();
        let mut gone = d.abandon();
        gone.sort();
        assert_eq!(gone, vec![("e-1".to_string(), 3), ("e-2".to_string(), 1)]);
        assert!(!d.sent("e-1"), "an abandoned attempt coming back is not settled");
    }
}
