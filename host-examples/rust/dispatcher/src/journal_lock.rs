//! The journal's one-writer lock (docs/journal.md, "One writer: the lock"):
//! `<journal>.lock`, created with `O_CREAT|O_EXCL`, holds
//! `{"pid", "host", "started_at_ms"}`. A lock left by a writer of this host
//! whose process is gone (`kill(pid, 0)` fails with `ESRCH`: it was killed)
//! is stale: removed, and the create retried once. Any other holder is
//! `journal_locked`, named. The lock is removed when it is dropped (a clean
//! exit). Not `flock`: one lock every language understands (Node has none).

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use retry_policy_host::rollout::follower::hostname;
use serde_json::{json, Value};

use crate::journal_error::JournalError;

pub struct JournalLock {
    path: PathBuf,
}

/// `path` with `suffix` appended (`<journal>.lock`, `<journal>.compact`).
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether process `pid` of this host is gone (`kill(pid, 0)` gives `ESRCH`).
fn is_gone(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    unsafe { libc::kill(pid, 0) != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) }
}

impl JournalLock {
    /// Take the lock of `journal` for this process.
    pub fn acquire(journal: &Path, now_ms: u64) -> Result<JournalLock, JournalError> {
        let path = with_suffix(journal, ".lock");
        let body = json!({"pid": std::process::id(), "host": hostname(), "started_at_ms": now_ms}).to_string();
        for retry in [false, true] {
            match OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
                Ok(mut f) => {
                    let lock = JournalLock { path: path.clone() };
                    f.write_all(body.as_bytes()).and_then(|()| f.sync_all()).map_err(|e| JournalError::io(&path, e))?;
                    return Ok(lock);
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let holder: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                    let pid = holder.get("pid").and_then(Value::as_i64);
                    let host = holder.get("host").and_then(Value::as_str);
                    let stale = !retry && host == Some(hostname().as_str()) && pid.is_some_and(is_gone);
                    if !stale {
                        let who = match (pid, host) {
                            (Some(p), Some(h)) => format!("pid {p} on {h} ({})", path.display()),
                            _ => format!("{} (unreadable holder: {text:?})", path.display()),
                        };
                        return Err(JournalError::Locked { holder: who });
                    }
                    eprintln!(
                        "dispatcher: journal lock {} was left by pid {} (gone): removed",
                        path.display(),
                        pid.unwrap_or(0)
                    );
                    std::fs::remove_file(&path).or_else(|e| match e.kind() {
                        ErrorKind::NotFound => Ok(()),
                        _ => Err(JournalError::io(&path, e)),
                    })?;
                }
                Err(e) => return Err(JournalError::io(&path, e)),
            }
        }
        Err(JournalError::Locked { holder: format!("{} (taken again while a stale lock was removed)", path.display()) })
    }
}

impl Drop for JournalLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
