//! Actions as JSON text, written straight into the batch's answer (docs/engine.md
//! "Wire"). Why not build a [`Value`](crate::json::Value) and print it, as the
//! rest of the crate does: a `send` action as a value is ten allocated keys and
//! three copied strings, freed right after printing. Measured natively with
//! `examples/engine_cost` under callgrind (format 2, no journal, one event per
//! batch): building and printing the actions was 27% of a feed's instructions,
//! most of it `malloc` and `free`. Here nothing is allocated but the answer.
//!
//! The text is exactly what printing the value gave (the test below compares
//! the two for every action): members in the same order, strings escaped by
//! [`json_text::string`], integers in decimal.

use alloc::vec::Vec;

use super::io::{Output, Send};
use crate::decide::DeadLetter;
use crate::journal::json_text;
use crate::text::dec_into;

/// One JSON object being written: `{"k":v,...}`.
struct Obj<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Obj<'a> {
    fn new(out: &'a mut Vec<u8>, action: &str) -> Self {
        out.extend_from_slice(b"{\"action\":");
        json_text::string(out, action);
        Obj { out, first: false }
    }

    fn plain(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Obj { out, first: true }
    }

    fn key(&mut self, k: &str) -> &mut Vec<u8> {
        if !core::mem::replace(&mut self.first, false) {
            self.out.push(b',');
        }
        // Keys are the engine's own ASCII names: nothing to escape.
        self.out.push(b'"');
        self.out.extend_from_slice(k.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.out
    }

    fn str(mut self, k: &str, v: &str) -> Self {
        json_text::string(self.key(k), v);
        self
    }

    fn opt_str(self, k: &str, v: Option<&str>) -> Self {
        match v {
            Some(v) => self.str(k, v),
            None => self.raw(k, "null"),
        }
    }

    fn u64(mut self, k: &str, v: u64) -> Self {
        dec_into(self.key(k), v);
        self
    }

    fn bool(self, k: &str, v: bool) -> Self {
        self.raw(k, if v { "true" } else { "false" })
    }

    fn raw(mut self, k: &str, text: &str) -> Self {
        self.key(k).extend_from_slice(text.as_bytes());
        self
    }

    fn strs<'s>(mut self, k: &str, items: impl Iterator<Item = &'s str>) -> Self {
        let out = self.key(k);
        out.push(b'[');
        for (i, s) in items.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json_text::string(out, s);
        }
        out.push(b']');
        self
    }

    fn end(self) {
        self.out.push(b'}');
    }
}

fn send(out: &mut Vec<u8>, s: &Send) {
    Obj::new(out, "send")
        .str("event_id", &s.event_id)
        .u64("attempt", u64::from(s.attempt))
        .str("endpoint_id", &s.endpoint_id)
        .str("target", &s.target)
        .opt_str("body_b64", s.body_b64.as_deref())
        .u64("first_attempted_at_ms", s.first_attempted_at_ms)
        .u64("start_before_ms", s.start_before_ms)
        .bool("refresh_credentials", s.refresh_credentials)
        .bool("probe", s.probe)
        .end();
}

fn dead_letter(out: &mut Vec<u8>, d: &DeadLetter) {
    Obj::plain(out)
        .str("event_id", &d.event_id)
        .str("endpoint_id", &d.endpoint_id)
        .u64("attempts", u64::from(d.attempts))
        .u64("elapsed_ms", d.elapsed_ms)
        .str("stop_reason", d.stop_reason.as_str())
        .end();
}

/// Append one action's JSON text to `out`.
pub(super) fn write(out: &mut Vec<u8>, o: &Output) {
    match o {
        Output::Journal { line } => Obj::new(out, "journal").str("line", line).end(),
        Output::JournalCompact { journal } => Obj::new(out, "journal_compact").str("journal", journal).end(),
        Output::Snapshot { journal } => Obj::new(out, "snapshot").str("journal", journal).end(),
        Output::JournalTruncate { keep_bytes } => {
            Obj::new(out, "journal_truncate").u64("keep_bytes", *keep_bytes).end()
        }
        Output::Send(s) => send(out, s),
        Output::StoreCall { call_id, key, argv } => Obj::new(out, "store_call")
            .u64("call_id", *call_id)
            .str("key", key)
            .strs("argv", argv.iter().map(|a| a.as_str()))
            .end(),
        Output::Delivered { event_id, attempts } => {
            Obj::new(out, "delivered").str("event_id", event_id).u64("attempts", u64::from(*attempts)).end()
        }
        Output::DeadLetter { dead_letter: d, disable_endpoint, held_ms } => {
            let mut o = Obj::new(out, "dead_letter");
            dead_letter(o.key("dead_letter"), d);
            o.bool("disable_endpoint", *disable_endpoint).u64("held_ms", *held_ms).end();
        }
        Output::Hold { event_id, until_ms, reason } => Obj::new(out, "hold")
            .str("event_id", event_id)
            .u64("until_ms", *until_ms)
            .str("reason", reason.as_str())
            .end(),
        Output::Count { name, label, delta } => {
            let mut o = Obj::new(out, "count").str("name", name);
            match label {
                Some((k, v)) => Obj::plain(o.key("label")).str(k, v).end(),
                None => o = o.raw("label", "null"),
            }
            o.u64("delta", *delta).end();
        }
        Output::Gauge { name, value } => Obj::new(out, "gauge").str("name", name).u64("value", *value).end(),
        Output::Replayed { replayed, already_replayed, skipped_no_class, ids } => Obj::new(out, "replayed")
            .u64("replayed", *replayed)
            .u64("already_replayed", *already_replayed)
            .u64("skipped_no_class", *skipped_no_class)
            .strs("ids", ids.iter().map(|i| i.as_str()))
            .end(),
        Output::Drained => Obj::new(out, "drained").end(),
        Output::Resumed { ids } => Obj::new(out, "resumed").strs("ids", ids.iter().map(|i| i.as_str())).end(),
        Output::Warn { event_id, message } => {
            Obj::new(out, "warn").opt_str("event_id", event_id.as_deref()).str("message", message).end()
        }
    }
}

#[cfg(test)]
#[path = "tests_wire_out.rs"]
mod tests;
