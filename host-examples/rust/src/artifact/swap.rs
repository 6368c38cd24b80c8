//! Swapping the artifact without a restart (`docs/artifact.md`, "Swapping
//! without a restart"). [`LiveArtifact::swap_artifact`] runs every load
//! check on the new file before anything changes; on success the new
//! engine replaces the old one atomically, on failure the old one stays and
//! the error says why. Instances are per thread: a [`LiveInstance`] moves to
//! the new artifact at its next [`LiveInstance::get`], so a call already
//! running finishes on the instance it began on.
//!
//! [`LiveArtifact::watch_artifact`] polls a path (not inotify: deploys
//! replace files by rename or symlink swap, which a watch on the old inode
//! misses) and swaps when the file's sha256 differs from the current
//! artifact's; a refused file is reported once per distinct sha256.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use super::container::sha256_hex;
use super::read::{pin, read_file};
use super::{ArtifactError, ArtifactInfo, ArtifactRef, ArtifactSource};
use crate::{HostError, PolicyEngine, PolicyInstance};

/// A check of the caller's, run on a loaded artifact before it is swapped
/// in (e.g. "its embedded document has every class my events need").
pub type Check = Box<dyn Fn(&PolicyEngine) -> Result<(), ArtifactError> + Send + Sync>;

/// The current artifact, replaceable while instances run.
pub struct LiveArtifact {
    current: RwLock<PolicyEngine>,
    generation: AtomicU64,
    check: Check,
}

/// A swap that happened.
#[derive(Clone, Debug)]
pub struct Swapped {
    pub old: ArtifactInfo,
    pub new: ArtifactInfo,
    /// How many swaps, this one included.
    pub generation: u64,
}

impl Swapped {
    /// `policy artifact swapped sha256=<old> -> <new> abi=... document_version=... source=...`
    pub fn line(&self) -> String {
        format!(
            "policy artifact swapped sha256={} -> {} abi={} document_version={} source={}",
            self.old.sha256,
            self.new.sha256,
            self.new.abi,
            self.new.document_version.as_deref().unwrap_or(""),
            self.new.source
        )
    }
}

/// What a watch reports.
#[derive(Clone, Debug)]
pub enum WatchEvent {
    /// The file changed and was swapped in.
    Swapped(Swapped),
    /// The file changed but was refused; `kept` still runs.
    Refused { path: PathBuf, sha256: Option<String>, error: ArtifactError, kept: ArtifactInfo },
}

impl WatchEvent {
    /// The log line of `docs/artifact.md`.
    pub fn line(&self) -> String {
        match self {
            WatchEvent::Swapped(s) => s.line(),
            WatchEvent::Refused { path, error, kept, .. } => format!(
                "policy artifact refused path={} code={}: {}; keeping sha256={}",
                path.display(),
                error.code(),
                error.message(),
                kept.sha256
            ),
        }
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

impl LiveArtifact {
    pub fn new(engine: PolicyEngine) -> Self {
        Self::with_check(engine, Box::new(|_| Ok(())))
    }

    /// A live artifact whose swaps must also pass `check`.
    pub fn with_check(engine: PolicyEngine, check: Check) -> Self {
        LiveArtifact { current: RwLock::new(engine), generation: AtomicU64::new(0), check }
    }

    /// The engine new instances are made from.
    pub fn current(&self) -> PolicyEngine {
        read(&self.current).clone()
    }

    /// The current artifact's info.
    pub fn info(&self) -> ArtifactInfo {
        read(&self.current).info().clone()
    }

    /// Swaps so far (0: the first artifact still runs).
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Load `artifact` with every check (and this live artifact's own),
    /// then make it current. On error nothing changes.
    pub fn swap_artifact(
        &self,
        artifact: ArtifactRef<'_>,
        expected_sha256: Option<&str>,
    ) -> Result<Swapped, ArtifactError> {
        let engine = PolicyEngine::load(artifact, expected_sha256)?;
        self.install(engine)
    }

    /// Swap in bytes already read (the fleet rollout's fetched artifact):
    /// every load check of docs/artifact.md from the size on (no sha256
    /// pin: the caller checked the digest it wanted), this live artifact's
    /// own check, then the swap. On error nothing changes.
    pub fn swap_bytes(&self, bytes: &[u8], source: ArtifactSource) -> Result<Swapped, ArtifactError> {
        let engine = PolicyEngine::check_bytes(bytes, source, None)?;
        self.install(engine)
    }

    fn install(&self, engine: PolicyEngine) -> Result<Swapped, ArtifactError> {
        (self.check)(&engine)?;
        let new = engine.info().clone();
        let mut cur = self.current.write().unwrap_or_else(|e| e.into_inner());
        let old = std::mem::replace(&mut *cur, engine).info().clone();
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        drop(cur);
        Ok(Swapped { old, new, generation })
    }

    /// Poll `path` every `interval` on a new thread and swap when its sha256
    /// differs from the current artifact's; every swap and every refusal
    /// (once per distinct content) goes to `on_event`. Stops when every
    /// other holder of this live artifact has dropped it.
    pub fn watch_artifact(
        self: &Arc<Self>,
        path: impl Into<PathBuf>,
        interval: Duration,
        on_event: impl Fn(&WatchEvent) + Send + 'static,
    ) -> std::io::Result<JoinHandle<()>> {
        let path = path.into();
        let live = Arc::downgrade(self);
        let mut reported: Option<String> = None;
        std::thread::Builder::new().name("artifact-watch".into()).spawn(move || loop {
            std::thread::sleep(interval);
            let Some(live) = live.upgrade() else { return };
            if let Some(event) = live.poll(&path, &mut reported) {
                on_event(&event);
            }
        })
    }

    /// One poll: `None` when nothing changed or the change was already reported.
    fn poll(&self, path: &Path, reported: &mut Option<String>) -> Option<WatchEvent> {
        let (key, result) = match read_file(path) {
            Err(e) => (e.to_string(), Err((None, e))),
            Ok(bytes) => {
                let sha = sha256_hex(&bytes);
                if sha == read(&self.current).info().sha256 {
                    *reported = None;
                    return None;
                }
                if reported.as_deref() == Some(sha.as_str()) {
                    return None;
                }
                let loaded = pin(None)
                    .and_then(|pin| {
                        PolicyEngine::check_bytes(&bytes, ArtifactSource::Path(path.to_path_buf()), pin.as_deref())
                    })
                    .and_then(|engine| self.install(engine));
                (sha.clone(), loaded.map_err(|e| (Some(sha), e)))
            }
        };
        match result {
            Ok(swapped) => {
                *reported = None;
                Some(WatchEvent::Swapped(swapped))
            }
            Err((sha256, error)) => {
                if reported.as_deref() == Some(key.as_str()) {
                    return None;
                }
                *reported = Some(key);
                Some(WatchEvent::Refused { path: path.to_path_buf(), sha256, error, kept: self.info() })
            }
        }
    }
}

/// How a [`LiveInstance`] makes an instance of an engine.
pub type MakeInstance = Box<dyn Fn(&PolicyEngine) -> Result<PolicyInstance, HostError> + Send>;

/// A thread's instance of a [`LiveArtifact`], moved to the new artifact at
/// the first [`LiveInstance::get`] after a swap.
pub struct LiveInstance {
    live: Arc<LiveArtifact>,
    generation: u64,
    instance: PolicyInstance,
    make: MakeInstance,
}

impl LiveInstance {
    /// An instance of the current artifact, made (now and after each swap) by `make`.
    pub fn new(
        live: Arc<LiveArtifact>,
        make: impl Fn(&PolicyEngine) -> Result<PolicyInstance, HostError> + Send + 'static,
    ) -> Result<Self, HostError> {
        let generation = live.generation();
        let instance = make(&live.current())?;
        Ok(LiveInstance { live, generation, instance, make: Box::new(make) })
    }

    /// Move to the current artifact if a swap happened since the last
    /// refresh (`Ok(true)`). If its instance cannot be made, the old one is
    /// kept and the error returned.
    pub fn refresh(&mut self) -> Result<bool, HostError> {
        let generation = self.live.generation();
        if generation == self.generation {
            return Ok(false);
        }
        self.instance = (self.make)(&self.live.current())?;
        self.generation = generation;
        Ok(true)
    }

    /// [`LiveInstance::refresh`], then the instance: the one to use for the
    /// next call(s). Call it between calls, never during one.
    pub fn get(&mut self) -> Result<&mut PolicyInstance, HostError> {
        self.refresh()?;
        Ok(&mut self.instance)
    }

    /// The artifact this instance runs (its `sha256`, ...).
    pub fn info(&self) -> &ArtifactInfo {
        self.instance.artifact_info()
    }
}
