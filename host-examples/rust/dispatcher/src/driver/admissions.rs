//! Where a run's admissions come from: the events in order, each no earlier
//! than its `at_ms` and `--rate` allow, none after `--deadline-ms`. Events
//! the engine refused `at_capacity` (offered with inputs that did not free
//! a place, docs/engine.md section 1 `max_open`) are given back and taken
//! again first, in their order.

use std::collections::VecDeque;
use std::iter::Peekable;

use super::NewEvent;

pub(super) struct Admissions {
    source: Peekable<Box<dyn Iterator<Item = NewEvent>>>,
    /// Given back (refused `at_capacity`): taken before the source.
    back: VecDeque<NewEvent>,
    /// Taken and not given back: the k of `--rate`'s `k * 1000 / rate`.
    taken: u64,
    rate_per_s: Option<f64>,
    deadline_ms: Option<u64>,
    /// `--deadline-ms` has passed: nothing more, given back or not.
    past_deadline: bool,
}

impl Admissions {
    pub(super) fn new(
        source: Box<dyn Iterator<Item = NewEvent>>,
        rate_per_s: Option<f64>,
        deadline_ms: Option<u64>,
    ) -> Admissions {
        Admissions {
            source: source.peekable(),
            back: VecDeque::new(),
            taken: 0,
            rate_per_s,
            deadline_ms,
            past_deadline: false,
        }
    }

    /// When (ms after the run's start) the next event may be admitted;
    /// `None`: none left now (the deadline passed at `elapsed`, or every
    /// event is taken: one given back later is due again).
    pub(super) fn next_due(&mut self, elapsed: u64) -> Option<u64> {
        self.past_deadline |= self.deadline_ms.is_some_and(|d| elapsed >= d);
        if self.past_deadline {
            return None;
        }
        let at_ms = self.back.front().or_else(|| self.source.peek())?.at_ms;
        let paced = self.rate_per_s.map(|rate| (self.taken as f64 * 1000.0 / rate) as u64);
        Some(paced.max(at_ms).unwrap_or(0))
    }

    /// Up to `room` events due at `elapsed`, in order. `go_on` is asked
    /// once the next event is known and before it is taken (a source may
    /// block in between, e.g. until an artifact swap, which `go_on` then sees).
    pub(super) fn take(&mut self, room: usize, elapsed: u64, go_on: impl Fn() -> bool) -> Vec<NewEvent> {
        let mut out = Vec::new();
        while out.len() < room && self.next_due(elapsed).is_some_and(|due| due <= elapsed) && go_on() {
            let Some(ev) = self.back.pop_front().or_else(|| self.source.next()) else { break };
            self.taken += 1;
            out.push(ev);
        }
        out
    }

    /// Events taken and refused `at_capacity`, in the order taken: they
    /// come first again.
    pub(super) fn give_back(&mut self, events: Vec<NewEvent>) {
        self.taken = self.taken.saturating_sub(events.len() as u64);
        for ev in events.into_iter().rev() {
            self.back.push_front(ev);
        }
    }

    /// Nothing more will be admitted (unless a taken event is given back).
    pub(super) fn done(&mut self) -> bool {
        self.past_deadline || (self.back.is_empty() && self.source.peek().is_none())
    }
}

#[cfg(test)]
#[path = "tests_admissions.rs"]
mod tests;
