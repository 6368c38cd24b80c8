//! Step 1 of `docs/artifact.md`: the pin's form, then the file's bytes,
//! bounded. Only a regular file is read (opened non-blocking, so a fifo
//! never blocks the open, then judged by `fstat`): `/dev/zero`, a fifo, a
//! directory or a socket is `artifact_unreadable` without a byte read. A
//! regular file longer than [`MAX_ARTIFACT_BYTES`] is `artifact_too_large`
//! from its size alone, and the read itself stops at the cap + 1 byte, so a
//! file that grows while it is read (or whose size `stat` does not know)
//! is refused the same way.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

use super::{ArtifactError, ARTIFACT_SHA256_ENV};

/// The most bytes an artifact may have: 4 MiB, the same in every host
/// (`docs/artifact.md`, `tests/vectors-artifact/artifact.json`). Today's is
/// ~166 KB; a bundle adds at most a 1 MiB document.
pub const MAX_ARTIFACT_BYTES: usize = 4 * 1024 * 1024;

/// The bytes of the artifact file at `path`, at most [`MAX_ARTIFACT_BYTES`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, ArtifactError> {
    read_regular(path, MAX_ARTIFACT_BYTES).map_err(|e| match e {
        Unread::Unreadable(reason) => ArtifactError::Unreadable { path: path.display().to_string(), reason },
        Unread::TooLarge(size) => ArtifactError::TooLarge { source: path.display().to_string(), size },
    })
}

/// Why [`read_regular`] refused a file.
#[derive(Debug)]
pub(crate) enum Unread {
    /// Cannot be opened or read, or not a regular file: the reason.
    Unreadable(String),
    /// Longer than the cap (its size when `stat` knew it).
    TooLarge(Option<u64>),
}

/// A regular file's bytes, at most `cap` (opened non-blocking, judged by
/// `fstat`, read at most `cap` + 1 bytes): the artifact's reader and the
/// rollout's trust file.
pub(crate) fn read_regular(path: &Path, cap: usize) -> Result<Vec<u8>, Unread> {
    let file = open(path).map_err(|e| Unread::Unreadable(e.to_string()))?;
    let meta = file.metadata().map_err(|e| Unread::Unreadable(e.to_string()))?;
    if !meta.is_file() {
        return Err(Unread::Unreadable(format!("not a regular file ({})", kind(&meta))));
    }
    if meta.len() > cap as u64 {
        return Err(Unread::TooLarge(Some(meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.take(cap as u64 + 1).read_to_end(&mut bytes).map_err(|e| Unread::Unreadable(e.to_string()))?;
    if bytes.len() > cap {
        return Err(Unread::TooLarge(None));
    }
    Ok(bytes)
}

/// `artifact_too_large` when `bytes` (from `source`) exceed the cap.
pub(crate) fn check_size(bytes: &[u8], source: &str) -> Result<(), ArtifactError> {
    if bytes.len() > MAX_ARTIFACT_BYTES {
        return Err(ArtifactError::TooLarge { source: source.into(), size: Some(bytes.len() as u64) });
    }
    Ok(())
}

/// The pin: the caller's when given and not empty, else
/// `RETRY_POLICY_ARTIFACT_SHA256` when set and not empty, else none. It must
/// be 64 hex digits, either case (`artifact_pin_invalid`); returned lower case.
pub(crate) fn pin(expected: Option<&str>) -> Result<Option<String>, ArtifactError> {
    let given = match expected.filter(|p| !p.is_empty()) {
        Some(p) => Some(p.to_string()),
        None => std::env::var_os(ARTIFACT_SHA256_ENV)
            .filter(|p| !p.is_empty())
            .map(|p| p.into_string().unwrap_or_else(|p| p.to_string_lossy().into_owned())),
    };
    match given {
        None => Ok(None),
        Some(p) if p.len() == 64 && p.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(Some(p.to_ascii_lowercase())),
        Some(p) => Err(ArtifactError::PinInvalid { pin: p }),
    }
}

fn open(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a fifo";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}
