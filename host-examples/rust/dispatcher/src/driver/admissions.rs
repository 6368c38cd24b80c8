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
mod tests {
    use super::*;

    fn ev(i: u64, at_ms: Option<u64>) -> NewEvent {
        NewEvent { event_id: format!("e{i}"), endpoint_id: "ep".into(), target: "t".into(), class: "c".into(), at_ms }
    }

    fn ids(evs: &[NewEvent]) -> Vec<&str> {
        evs.iter().map(|e| e.event_id.as_str()).collect()
    }

    #[test]
    fn given_back_events_come_first_in_their_order() {
        let mut a = Admissions::new(Box::new((0..5).map(|i| ev(i, None))), None, None);
        let first = a.take(3, 0, || true);
        assert_eq!(ids(&first), ["e0", "e1", "e2"]);
        a.give_back(first[1..].to_vec());
        assert_eq!(ids(&a.take(10, 0, || true)), ["e1", "e2", "e3", "e4"]);
        assert_eq!(a.next_due(0), None);
        assert!(a.done());
    }

    #[test]
    fn the_last_event_given_back_is_not_lost() {
        let mut a = Admissions::new(Box::new((0..2).map(|i| ev(i, None))), None, None);
        let taken = a.take(10, 0, || true);
        assert!(a.done(), "all taken");
        a.give_back(taken[1..].to_vec());
        assert!(!a.done(), "one given back");
        assert_eq!(a.next_due(0), Some(0));
        assert_eq!(ids(&a.take(10, 0, || true)), ["e1"]);
        assert!(a.done());
    }

    #[test]
    fn nothing_more_is_taken_once_go_on_says_no() {
        let mut a = Admissions::new(Box::new((0..3).map(|i| ev(i, None))), None, None);
        let asked = std::cell::Cell::new(0);
        let taken = a.take(10, 0, || {
            asked.set(asked.get() + 1);
            asked.get() <= 2
        });
        assert_eq!(ids(&taken), ["e0", "e1"]);
        assert_eq!(ids(&a.take(10, 0, || true)), ["e2"]);
    }

    #[test]
    fn the_rate_counts_only_events_not_given_back() {
        // 10/s: the k-th event no earlier than k * 100 ms.
        let mut a = Admissions::new(Box::new((0..5).map(|i| ev(i, None))), Some(10.0), None);
        assert_eq!(ids(&a.take(10, 150, || true)), ["e0", "e1"]);
        assert_eq!(a.next_due(150), Some(200));
        let refused = vec![ev(1, None)];
        a.give_back(refused);
        assert_eq!(a.next_due(150), Some(100));
        assert_eq!(ids(&a.take(10, 150, || true)), ["e1"]);
    }

    #[test]
    fn the_deadline_and_at_ms_hold() {
        let mut a = Admissions::new(Box::new([ev(0, Some(50)), ev(1, Some(500))].into_iter()), None, Some(400));
        assert!(a.take(10, 10, || true).is_empty());
        assert_eq!(a.next_due(10), Some(50));
        assert_eq!(ids(&a.take(10, 60, || true)), ["e0"]);
        assert_eq!(a.next_due(60), Some(500));
        assert!(a.take(10, 400, || true).is_empty());
        assert!(a.done());
    }
}
