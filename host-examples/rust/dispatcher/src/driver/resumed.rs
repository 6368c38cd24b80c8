//! STOPGAP until the engine's `resume` says which events it reopened
//! (asked of the engine, issue 26): how many events of the
//! journals are open (their newest record `pending` or `held`; an event of
//! a later journal that an earlier one already gave is skipped, as the
//! engine skips it), for the summary's `events` and the `--concurrency`
//! cap. Reads only each line's `event_id` and `status`; the engine reads,
//! checks and resumes the records themselves.

use std::collections::HashMap;

/// Open events among `journals`' records, the first journal winning.
pub fn open_events(journals: &[&[u8]]) -> u64 {
    let mut open: HashMap<String, bool> = HashMap::new();
    for journal in journals {
        let mut here: HashMap<String, bool> = HashMap::new();
        for line in journal.split(|b| *b == b'\n') {
            let Some(json) = line.iter().position(|b| *b == b' ').map(|i| &line[i + 1..]) else { continue };
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(json) else { continue };
            if let (Some(id), Some(s)) = (v["event_id"].as_str(), v["status"].as_str()) {
                here.insert(id.to_string(), matches!(s, "pending" | "held"));
            }
        }
        for (id, is_open) in here {
            open.entry(id).or_insert(is_open);
        }
    }
    open.values().filter(|o| **o).count() as u64
}
