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
