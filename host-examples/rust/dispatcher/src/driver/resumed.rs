//! STOPGAP until the engine says which events a `resume` reopened
//! (/work/briefs/requests-drive-rust.md R1): how many events of a journal
//! are open (their newest record `pending` or `held`), for the summary's
//! `events` and the `--concurrency` cap. Reads only each line's
//! `event_id` and `status`; the engine reads, checks and resumes the
//! records themselves (a line it refuses is its error, not this count's).

use std::collections::HashMap;

/// Open events among `journal`'s records, newest record per event.
pub fn open_events(journal: &[u8]) -> u64 {
    let mut status: HashMap<String, bool> = HashMap::new();
    for line in journal.split(|b| *b == b'\n') {
        let Some(json) = line.iter().position(|b| *b == b' ').map(|i| &line[i + 1..]) else { continue };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(json) else { continue };
        if let (Some(id), Some(s)) = (v["event_id"].as_str(), v["status"].as_str()) {
            status.insert(id.to_string(), matches!(s, "pending" | "held"));
        }
    }
    status.values().filter(|open| **open).count() as u64
}
