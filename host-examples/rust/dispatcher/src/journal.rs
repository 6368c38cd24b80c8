//! The event store's JSON-lines journal, crash-safe:
//!
//! * **one writer**: `<journal>.lock` is held with `flock(LOCK_EX|LOCK_NB)`
//!   for the life of the process (the kernel drops it when the process
//!   dies, SIGKILL included, so a crash leaves no stale lock);
//! * **durable before acknowledged**: [`Journal::append`] returns only once
//!   the line is on disk (`fdatasync`), with group commit: one `fdatasync`
//!   covers every line written before it, so concurrent workers share it;
//! * **torn tail recovery**: on open, a last line without its newline or
//!   that is not JSON (the writer died mid-write) is cut off (`set_len` +
//!   `fsync`) before anything is appended, so the next record starts on a
//!   line of its own; a bad line anywhere else is an error naming it;
//! * **compaction**: when the file holds many more lines than live events,
//!   it is rewritten with the newest record of each event into
//!   `<journal>.compact`, fsynced, renamed over the journal, and the
//!   directory fsynced; a leftover `.compact` from a crash is removed.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Compact once the journal has this many lines and 4x more than live events.
pub const COMPACT_MIN_LINES: u64 = 4096;

/// What [`Journal::open`] found.
pub struct Opened {
    pub journal: Journal,
    /// Every complete JSON line, oldest first.
    pub lines: Vec<serde_json::Value>,
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
    _lock: File,
}

pub struct Inner {
    file: File,
    /// Lines in the file (for the compaction trigger).
    pub lines: u64,
    /// Bytes of complete lines: a failed write (disk full) is cut back to it.
    len: u64,
}

fn err(path: &Path, e: impl std::fmt::Display) -> String {
    format!("event store {}: {e}", path.display())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn sync_dir(path: &Path) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

fn lock(path: &Path) -> Result<File, String> {
    let lock_path = with_suffix(path, ".lock");
    let f =
        OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| err(&lock_path, e))?;
    // SAFETY: flock on a descriptor we own; no memory is shared with the call.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(format!(
            "event store {} is in use by another process (lock {} is held)",
            path.display(),
            lock_path.display()
        ));
    }
    Ok(f)
}

impl Journal {
    /// Lock, read, cut a torn tail, and open for appending (created if missing).
    pub fn open(path: &Path) -> Result<Opened, String> {
        let lock = lock(path)?;
        let _ = fs::remove_file(with_suffix(path, ".compact"));
        // 0600: pending records hold the full target URL (query included).
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| err(path, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| err(path, e))?;
        let (lines, good_len) = parse_lines(path, &bytes)?;
        let torn_bytes = (bytes.len() - good_len) as u64;
        if torn_bytes > 0 {
            file.set_len(good_len as u64).map_err(|e| err(path, e))?;
            file.sync_all().map_err(|e| err(path, e))?;
        }
        sync_dir(path).map_err(|e| err(path, e))?;
        let sync_handle = file.try_clone().map_err(|e| err(path, e))?;
        let n = lines.len() as u64;
        let journal = Journal {
            path: path.to_path_buf(),
            inner: Mutex::new(Inner { file, lines: n, len: good_len as u64 }),
            written: AtomicU64::new(0),
            synced: Mutex::new((0, sync_handle)),
            _lock: lock,
        };
        Ok(Opened { journal, lines, torn_bytes })
    }

    /// The writer's lock: hold it to make a change to memory and its line
    /// one step (see `EventStore::put`).
    pub fn lock_inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Write one line (under the writer's lock); returns its sequence number
    /// for [`Journal::sync_to`].
    pub fn write(&self, inner: &mut Inner, line: &str) -> Result<u64, String> {
        if let Err(e) = inner.file.write_all(line.as_bytes()) {
            // A partial line would glue the next record to it: cut it off.
            let _ = inner.file.set_len(inner.len);
            return Err(err(&self.path, e));
        }
        inner.lines += 1;
        inner.len += line.len() as u64;
        Ok(self.written.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Return once line `seq` is on disk (one `fdatasync` for everything
    /// written so far; others waiting find their line already covered).
    pub fn sync_to(&self, seq: u64) -> Result<(), String> {
        let mut synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
        if synced.0 >= seq {
            return Ok(());
        }
        let upto = self.written.load(Ordering::SeqCst);
        synced.1.sync_data().map_err(|e| err(&self.path, e))?;
        synced.0 = upto;
        Ok(())
    }

    /// Rewrite the journal as `lines` (the newest record of each event),
    /// under the writer's lock: temp file, fsync, rename, fsync directory.
    pub fn compact(&self, inner: &mut Inner, lines: impl Iterator<Item = String>) -> Result<(), String> {
        let tmp = with_suffix(&self.path, ".compact");
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| err(&tmp, e))?;
        let mut n = 0;
        let mut buf = Vec::new();
        for l in lines {
            buf.extend_from_slice(l.as_bytes());
            n += 1;
        }
        f.write_all(&buf).and_then(|()| f.sync_all()).map_err(|e| err(&tmp, e))?;
        let len = buf.len() as u64;
        drop(f);
        fs::rename(&tmp, &self.path).map_err(|e| err(&self.path, e))?;
        sync_dir(&self.path).map_err(|e| err(&self.path, e))?;
        let file = OpenOptions::new().append(true).open(&self.path).map_err(|e| err(&self.path, e))?;
        let handle = file.try_clone().map_err(|e| err(&self.path, e))?;
        *inner = Inner { file, lines: n, len };
        let mut synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
        // Everything written so far is in the compacted, fsynced file.
        *synced = (self.written.load(Ordering::SeqCst), handle);
        Ok(())
    }
}

/// Complete JSON lines and the length of the good prefix. A last line that
/// has no newline or is not JSON is torn; a bad line before it is an error.
pub(crate) fn parse_lines(path: &Path, bytes: &[u8]) -> Result<(Vec<serde_json::Value>, usize), String> {
    let mut out = Vec::new();
    let mut good = 0;
    let mut start = 0;
    let mut lineno = 0;
    while start < bytes.len() {
        lineno += 1;
        let Some(nl) = bytes[start..].iter().position(|&b| b == b'\n') else { break };
        let end = start + nl + 1;
        let line = &bytes[start..end - 1];
        if !line.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice(line) {
                Ok(v) => out.push(v),
                Err(_) if end == bytes.len() => break,
                Err(e) => return Err(format!("{}:{lineno}: not JSON: {e}", path.display())),
            }
        }
        good = end;
        start = end;
    }
    Ok((out, good))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_tail_is_cut_and_a_bad_middle_line_is_named() {
        let p = Path::new("j");
        let (lines, good) = parse_lines(p, b"{\"a\":1}\n{\"a\":2}\n{\"a\":").unwrap();
        assert_eq!((lines.len(), good), (2, 16));
        let (lines, good) = parse_lines(p, b"{\"a\":1}\n{\"a\n").unwrap();
        assert_eq!((lines.len(), good), (1, 8));
        assert!(parse_lines(p, b"{\"a\":1}\nnope\n{\"a\":2}\n").unwrap_err().starts_with("j:2: not JSON"));
    }
}
