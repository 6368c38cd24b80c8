//! The event store's journal, format 1 (docs/journal.md), crash-safe:
//!
//! * **one writer**: `<journal>.lock` ([`crate::journal_lock`]: pid lock
//!   file, a stale one from a killed writer removed);
//! * **a header first**: a new (or empty) journal gets its header, fsynced,
//!   before any event record;
//! * **durable before acknowledged**: [`Journal::write`] appends one
//!   `<crc> <json>\n` line with one `write`; [`Journal::sync_to`] returns once
//!   it is on disk (`fdatasync`), with group commit: one `fdatasync` covers
//!   every line written before it;
//! * **torn tail recovery**: on open, a last line without its LF, with a bad
//!   CRC or that is not JSON is cut off (`set_len` + `fsync`) before anything
//!   is appended; any other bad line is an error naming it
//!   ([`crate::journal_read`]);
//! * **compaction**: at 1024 records and more than twice as many as live
//!   events, the journal is rewritten (header, then the newest record of each
//!   pending or dead-lettered event) into `<journal>.compact`, fsynced,
//!   renamed over the journal, and the directory fsynced; a leftover
//!   `.compact` from a crash is removed at open.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::journal_error::JournalError;
use crate::journal_lock::JournalLock;
use crate::journal_read::{read, PolicyHasher, Recovered};
use crate::journal_record::{header, line};
use crate::store::EventRecord;

/// Compact once the journal holds this many records and more than twice as
/// many as live events.
pub const COMPACT_MIN_RECORDS: u64 = 1024;

/// What [`Journal::open`] found.
pub struct Opened {
    pub journal: Journal,
    /// The newest record of each event (with its line), first-seen order.
    pub events: Vec<(usize, EventRecord)>,
    /// Bytes cut off a torn tail (0: the file was clean).
    pub torn_bytes: u64,
}

pub struct Journal {
    path: PathBuf,
    inner: Mutex<Inner>,
    /// Lines written (a sequence number per append).
    written: AtomicU64,
    /// Lines known to be on disk, and a handle to `fdatasync`.
    synced: Mutex<(u64, File)>,
    _lock: JournalLock,
}

pub struct Inner {
    file: File,
    /// Records in the file, the header included (the compaction trigger).
    pub records: u64,
    /// Bytes of complete lines: a failed write (disk full) is cut back to it.
    len: u64,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn sync_dir(path: &Path) -> Result<(), JournalError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| JournalError::io(dir, e))
}

/// Read another process's journal: no lock taken, nothing written (a torn
/// tail is left as it is and not counted).
pub fn read_file(path: &Path, hasher: &mut dyn PolicyHasher) -> Result<Recovered, JournalError> {
    let bytes = fs::read(path).map_err(|e| JournalError::io(path, e))?;
    read(&bytes, hasher)
}

impl Journal {
    /// Lock, read, cut a torn tail, write the header of a new journal, and
    /// open for appending (created with mode 0600 if missing).
    pub fn open(path: &Path, hasher: &mut dyn PolicyHasher) -> Result<Opened, JournalError> {
        let now = crate::shared::now_ms();
        let lock = JournalLock::acquire(path, now)?;
        let io = |e: std::io::Error| JournalError::io(path, e);
        match fs::remove_file(with_suffix(path, ".compact")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
            _ => {}
        }
        // 0600: pending records hold the full target URL (query included).
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let found = read(&bytes, hasher)?;
        if found.torn_bytes > 0 {
            file.set_len(found.good_len as u64).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        let mut records = found.records;
        let mut len = found.good_len as u64;
        if records == 0 {
            let h = line(&header(now));
            file.write_all(h.as_bytes()).and_then(|()| file.sync_all()).map_err(io)?;
            records = 1;
            len = h.len() as u64;
        }
        sync_dir(path)?;
        let sync_handle = file.try_clone().map_err(io)?;
        let journal = Journal {
            path: path.to_path_buf(),
            inner: Mutex::new(Inner { file, records, len }),
            written: AtomicU64::new(0),
            synced: Mutex::new((0, sync_handle)),
            _lock: lock,
        };
        Ok(Opened { journal, events: found.events, torn_bytes: found.torn_bytes as u64 })
    }

    /// The writer's lock: hold it to make a change to memory and its line
    /// one step (see `EventStore::put`).
    pub fn lock_inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Append one event record (under the writer's lock) with one `write`;
    /// returns its sequence number for [`Journal::sync_to`].
    pub fn write(&self, inner: &mut Inner, rec: &EventRecord) -> Result<u64, JournalError> {
        let l = line(&crate::journal_record::event_json(rec));
        if let Err(e) = inner.file.write_all(l.as_bytes()) {
            // A partial line would glue the next record to it: cut it off.
            let _ = inner.file.set_len(inner.len);
            return Err(JournalError::io(&self.path, e));
        }
        inner.records += 1;
        inner.len += l.len() as u64;
        Ok(self.written.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Return once line `seq` is on disk (one `fdatasync` for everything
    /// written so far; others waiting find their line already covered).
    pub fn sync_to(&self, seq: u64) -> Result<(), JournalError> {
        let mut synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
        if synced.0 >= seq {
            return Ok(());
        }
        let upto = self.written.load(Ordering::SeqCst);
        synced.1.sync_data().map_err(|e| JournalError::io(&self.path, e))?;
        synced.0 = upto;
        Ok(())
    }

    /// Whether a journal of `records` records with `live` live events is due
    /// for compaction.
    pub fn compaction_due(records: u64, live: u64) -> bool {
        records >= COMPACT_MIN_RECORDS && records > 2 * live
    }

    /// Rewrite the journal as a header and `keep` (the newest record of each
    /// pending or dead-lettered event), under the writer's lock: temp file,
    /// fsync, rename, fsync directory.
    pub fn compact<'a>(
        &self,
        inner: &mut Inner,
        keep: impl Iterator<Item = &'a EventRecord>,
    ) -> Result<(), JournalError> {
        let tmp = with_suffix(&self.path, ".compact");
        let mut buf = line(&header(crate::shared::now_ms()));
        let mut n = 1;
        for r in keep {
            buf.push_str(&line(&crate::journal_record::event_json(r)));
            n += 1;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| JournalError::io(&tmp, e))?;
        f.write_all(buf.as_bytes()).and_then(|()| f.sync_all()).map_err(|e| JournalError::io(&tmp, e))?;
        drop(f);
        fs::rename(&tmp, &self.path).map_err(|e| JournalError::io(&self.path, e))?;
        sync_dir(&self.path)?;
        let file = OpenOptions::new().append(true).open(&self.path).map_err(|e| JournalError::io(&self.path, e))?;
        let handle = file.try_clone().map_err(|e| JournalError::io(&self.path, e))?;
        *inner = Inner { file, records: n, len: buf.len() as u64 };
        let mut synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
        // Everything written so far is in the compacted, fsynced file.
        *synced = (self.written.load(Ordering::SeqCst), handle);
        Ok(())
    }
}
