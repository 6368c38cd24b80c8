//! What goes in ([`Input`]) and what comes out ([`Output`]). Every input
//! carries the host's `now_ms`: time is an input, the engine reads no clock.

use alloc::string::String;
use alloc::vec::Vec;

use crate::decide::DeadLetter;
use crate::health::HoldReason;

/// A new event to deliver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub event_id: String,
    pub endpoint_id: String,
    /// The URL the host sends to (judged by the host's destination check).
    pub target: String,
    /// The class in the current document.
    pub class: String,
    /// The payload, standard base64; none: the host derives it.
    pub body_b64: Option<String>,
}

/// How an attempt the engine asked for ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    /// An HTTP response, with its raw `Retry-After` header if any.
    Response { status: u16, retry_after: Option<String> },
    /// No response: a transport error kind (`fleet/transport-kinds.json`).
    Transport { kind: String },
    /// The host did not start the request (its `start_before_ms` had passed).
    NotStarted,
}

/// A store's answer to a [`Output::StoreCall`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreAnswer {
    /// The script's integers, as `fleet/budget.lua` returns them.
    Reply(Vec<i64>),
    /// The call failed or timed out.
    Failed,
}

/// Which dead letters `replay` picks (docs/health-dispatch.md section 4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayFilter {
    pub endpoint_id: Option<String>,
    pub stop_reason: Option<String>,
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    /// Default 10,000.
    pub limit: Option<u64>,
}

/// One input.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Nothing but the time: due events run.
    Tick,
    Admit(NewEvent),
    /// The result of [`Output::Send`] `attempt` of `event_id`.
    Result {
        event_id: String,
        attempt: u32,
        result: AttemptResult,
    },
    /// The answer to [`Output::StoreCall`] `call_id`.
    Store {
        call_id: u64,
        answer: StoreAnswer,
    },
    /// Start nothing new; [`Output::Drained`] once nothing is in flight.
    Drain,
    /// Admit not-yet-replayed dead letters again under the current document.
    Replay(ReplayFilter),
    /// A journal's bytes (before any admission or replay; several may come,
    /// the host's own journal first).
    Resume(Resume),
    /// The engine's state as journal text ([`Output::Snapshot`]), for a new
    /// engine (a swapped-in artifact) to resume; only while nothing is in flight.
    Snapshot,
    /// A new current document (JSON, format 2 or 3) for events admitted from now on.
    Swap(String),
}

/// One action for the host, in order. The host performs them in order; a
/// [`Output::Journal`] line is durable before any later `Send` starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Append this whole line (`<crc32> <json>\n`) to the journal.
    Journal { line: String },
    /// Replace the whole journal with this text (write a new file, make it
    /// durable, rename it over the old one), then go on appending.
    JournalCompact { journal: String },
    /// Cut the journal back to its first `keep_bytes` (a torn tail) before appending.
    JournalTruncate { keep_bytes: u64 },
    /// Send attempt `attempt` of the event; do not start it at or after `start_before_ms`.
    Send(Send),
    /// Make this store call (`EVALSHA` of `fleet/budget.lua` with `key` and `argv`), then
    /// answer it with [`Input::Store`].
    StoreCall { call_id: u64, key: String, argv: Vec<String> },
    /// The event was delivered after `attempts` attempts.
    Delivered { event_id: String, attempts: u32 },
    /// The event stopped without delivery.
    DeadLetter { dead_letter: DeadLetter, disable_endpoint: bool, held_ms: u64 },
    /// The event waits until `until_ms`, spending no attempt.
    Hold { event_id: String, until_ms: u64, reason: HoldReason },
    /// Move a counter of docs/metrics.md (`label` as `name=value`, or none).
    Count { name: &'static str, label: Option<(&'static str, String)>, delta: u64 },
    /// Set a gauge of docs/metrics.md.
    Gauge { name: &'static str, value: u64 },
    /// A replay request's outcome.
    Replayed { replayed: u64, already_replayed: u64, skipped_no_class: u64, ids: Vec<String> },
    /// After [`Input::Drain`]: nothing is in flight any more.
    Drained,
    /// After every [`Input::Resume`]: the open (pending and held) events it
    /// reopened, first-seen order (dead letters kept for replay are not listed).
    Resumed { ids: Vec<String> },
    /// The answer to [`Input::Snapshot`]: a header and every event's record
    /// (open and dead-lettered, first-seen order), journal format 2.
    Snapshot { journal: String },
    /// Something the operator should read (a store reply that was not the script's shape...).
    Warn { event_id: Option<String>, message: String },
}

/// What a send needs; the host builds the request from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Send {
    pub event_id: String,
    /// 1-based; journaled before this action is emitted, so never reused.
    pub attempt: u32,
    pub endpoint_id: String,
    /// The event's target spelled one way ([`crate::destination::Target::url`]).
    pub target: String,
    pub body_b64: Option<String>,
    pub first_attempted_at_ms: u64,
    /// The retry window's end: an attempt must start before it.
    pub start_before_ms: u64,
    /// Force-refresh signing material first (a 401/403 retried once).
    pub refresh_credentials: bool,
    /// The attempt is the fleet's granted probe of an open circuit.
    pub probe: bool,
}

/// [`Input::Resume`]: a journal's bytes and whether they are the host's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    pub journal: Vec<u8>,
    /// `false`: the host's own journal (appended to from now on: a torn tail
    /// is cut, its header stands). `true`: another journal, read only: its
    /// open events are journaled into the host's own (docs/engine.md section 10).
    pub copy: bool,
}
