//! An event record's line written straight from the typed record: the
//! bytes [`record::event_to_value`](super::record::event_to_value) then
//! [`json_text`](super::json_text) write (a test holds the two equal on
//! every field's variants), without building a `Value` tree first.
//!
//! Why by hand: the tree costs one allocation per member and per string
//! (about 40 per record) and a record is written every time an event
//! changes, so it was most of the engine's cost per delivered event.
//! `cargo run --release -p retry-policy-core --example engine_cost`
//! (format 2, journal on, one event per batch), this machine, one run
//! each: 20.2 µs per delivered event through the tree, 12.8 µs written here
//! (format 3: 30.4 -> 17.3 µs).
//! A dead letter, rarely written, still goes through the tree.

use alloc::string::String;
use alloc::vec::Vec;

use super::json_text::{string, write};
use super::line::{crc32, hex8};
use super::record::EventRecord;
use crate::codec::dead_letter_to_value;
use crate::decide::{DeadLetter, Policy};
use crate::health::Health;
use crate::text::dec_into;

/// `<crc> <json>\n` of `r` as format 2.
pub fn line(r: &EventRecord) -> String {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(b"00000000 ");
    event(&mut out, r);
    let crc = crc32(&out[9..]);
    out[..8].copy_from_slice(&hex8(crc));
    out.push(b'\n');
    // Only UTF-8 was written: ASCII punctuation and the strings' own UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

fn num(out: &mut Vec<u8>, key: &[u8], n: u64) {
    out.extend_from_slice(key);
    dec_into(out, n);
}

fn text(out: &mut Vec<u8>, key: &[u8], s: &str) {
    out.extend_from_slice(key);
    string(out, s);
}

fn flag(out: &mut Vec<u8>, key: &[u8], b: bool) {
    out.extend_from_slice(key);
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn float(out: &mut Vec<u8>, key: &[u8], x: f64) {
    out.extend_from_slice(key);
    if x.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(x).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

fn opt_text(out: &mut Vec<u8>, key: &[u8], s: Option<&str>) {
    match s {
        Some(s) => text(out, key, s),
        None => {
            out.extend_from_slice(key);
            out.extend_from_slice(b"null");
        }
    }
}

fn opt_dead_letter(out: &mut Vec<u8>, key: &[u8], d: Option<&DeadLetter>) {
    out.extend_from_slice(key);
    match d {
        Some(d) => write(out, &dead_letter_to_value(d)),
        None => out.extend_from_slice(b"null"),
    }
}

fn policy(out: &mut Vec<u8>, p: &Policy, health: Option<&Health>) {
    let (b, g) = (&p.backoff, &p.budget);
    num(out, b"{\"window_ms\":", p.window_ms);
    num(out, b",\"hard_cap\":", u64::from(p.hard_cap));
    num(out, b",\"backoff\":{\"base_ms\":", b.base_ms);
    float(out, b",\"factor\":", b.factor);
    num(out, b",\"cap_ms\":", b.cap_ms);
    text(out, b",\"jitter\":", b.jitter.as_str());
    float(out, b"},\"budget\":{\"ratio\":", g.ratio);
    num(out, b",\"window_ms\":", g.window_ms);
    num(out, b",\"min_sample\":", g.min_sample);
    flag(out, b",\"sliding\":", g.sliding);
    out.push(b'}');
    if let Some(h) = health {
        health_section(out, h);
    }
    out.push(b'}');
}

/// `,"health":{...}` as `section_to_value` writes it.
fn health_section(out: &mut Vec<u8>, h: &Health) {
    flag(out, b",\"health\":{\"hold_budget_refusals\":", h.hold_budget_refusals);
    num(out, b",\"pause\":{\"max_ms\":", h.pause_max_ms);
    match &h.circuit {
        Some(c) => {
            float(out, b"},\"circuit\":{\"failure_ratio\":", c.failure_ratio);
            num(out, b",\"min_sample\":", c.min_sample);
            num(out, b",\"cooldown_ms\":", c.cooldown_ms);
            num(out, b",\"cooldown_max_ms\":", c.cooldown_max_ms);
            num(out, b",\"probes\":", u64::from(c.probes));
            num(out, b",\"probe_interval_ms\":", c.probe_interval_ms);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"},\"circuit\":null"),
    }
    float(out, b",\"release\":{\"multiple\":", h.release.multiple);
    float(out, b",\"floor_per_s\":", h.release.floor_per_s);
    num(out, b"},\"cache_ms\":", h.cache_ms);
    out.push(b'}');
}

fn event(out: &mut Vec<u8>, r: &EventRecord) {
    text(out, b"{\"v\":2,\"type\":\"event\",\"event_id\":", &r.event_id);
    text(out, b",\"endpoint_id\":", &r.endpoint_id);
    text(out, b",\"target\":", &r.target);
    text(out, b",\"class\":", &r.class);
    text(out, b",\"policy_version\":", &r.policy_version);
    text(out, b",\"policy_hash\":", &r.policy_hash);
    out.extend_from_slice(b",\"policy\":");
    policy(out, &r.policy, r.health.as_ref());
    num(out, b",\"first_attempted_at_ms\":", r.first_attempted_at_ms);
    num(out, b",\"deadline_ms\":", r.deadline_ms);
    num(out, b",\"max_attempts\":", u64::from(r.max_attempts));
    out.extend_from_slice(b",\"offsets_ms\":[");
    for (i, &o) in r.offsets_ms.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        dec_into(out, o);
    }
    num(out, b"],\"attempts\":", u64::from(r.attempts));
    flag(out, b",\"credentials_refreshed\":", r.credentials_refreshed);
    num(out, b",\"next_attempt_at_ms\":", r.next_attempt_at_ms);
    text(out, b",\"status\":", r.status.as_str());
    text(out, b",\"last_outcome\":", &r.last_outcome);
    opt_text(out, b",\"stop_reason\":", r.stop_reason.map(|s| s.as_str()));
    opt_dead_letter(out, b",\"dead_letter\":", r.dead_letter.as_ref());
    flag(out, b",\"disable_endpoint\":", r.disable_endpoint);
    num(out, b",\"finished_at_ms\":", r.finished_at_ms);
    if let Some(b) = &r.body_b64 {
        text(out, b",\"body_b64\":", b);
    }
    num(out, b",\"held_until_ms\":", r.held_until_ms);
    opt_text(out, b",\"hold_reason\":", r.hold_reason.map(|h| h.as_str()));
    num(out, b",\"held_since_ms\":", r.held_since_ms);
    num(out, b",\"held_ms\":", r.held_ms);
    flag(out, b",\"needs_reserve\":", r.needs_reserve);
    num(out, b",\"wake_refusals\":", u64::from(r.wake_refusals));
    opt_text(out, b",\"replay_of\":", r.replay_of.as_deref());
    opt_dead_letter(out, b",\"replayed_dead_letter\":", r.replayed_dead_letter.as_ref());
    opt_text(out, b",\"replayed_as\":", r.replayed_as.as_deref());
    out.push(b'}');
}
