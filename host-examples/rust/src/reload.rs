//! Policy documents reloaded without a restart.
//!
//! A [`Policies`] holds the current document and every class policy it was
//! ever admitted under, by policy hash. [`Policies::reload`] validates a new
//! document in the component before swapping it in: a bad document keeps
//! the old one and says why. New events are admitted under the current
//! document; an event already admitted keeps its schedule (persisted with
//! it) and is decided under the policy its hash names ([`Policies::by_hash`]),
//! so a policy change never alters the promise made to an event in flight.
//!
//! [`watch`] polls a file's modification time and content and reloads on
//! change (polling: no platform file-notification dependency, and a
//! bounded, predictable cost of one `stat` per interval).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use retry_policy_core::health::Health;
use retry_policy_core::{Policy, PolicyError};

use crate::{document_classes, Admission, HealthClass, HealthDocument, HostError, PolicyDocument, PolicyInstance};

/// Old class policies kept for events in flight (oldest dropped first).
pub const KEPT_POLICIES: usize = 1024;

/// One loaded document.
pub struct Loaded {
    pub document: PolicyDocument,
    pub version: String,
    /// How many reloads preceded this one (0: the first document).
    pub generation: u64,
    /// The document as `load-health-document` read it when a class has a
    /// `health` section (format 3); `None`: a format-2 document.
    pub health: Option<HealthDocument>,
}

impl Loaded {
    /// `text` read ([`load`]) and passed by `check`, as reload `generation`.
    fn read(
        inst: &mut PolicyInstance,
        text: &str,
        check: impl FnOnce(&PolicyDocument) -> Result<(), PolicyError>,
        generation: u64,
    ) -> Result<Loaded, HostError> {
        let (document, health) = load(inst, text)?;
        check(&document)?;
        Ok(Loaded { version: document.version.clone(), document, generation, health })
    }

    /// `class`'s effective `health` section (`None`: format 2, or no such class).
    pub fn health_of(&self, class: &str) -> Option<&HealthClass> {
        self.health.as_ref()?.classes.iter().find(|c| c.name == class && c.health.is_some())
    }
}

/// The current document and the policies events were admitted under.
pub struct Policies {
    current: RwLock<Arc<Loaded>>,
    by_hash: Mutex<BTreeMap<String, Remembered>>,
}

/// A remembered class policy: the generation that first had it, the policy
/// and its `health` section.
type Remembered = (u64, Policy, Option<Health>);

/// A document read as format 2 exactly as before (`load-document`), unless
/// `load-health-document` finds a `health` section in it: then it is
/// format 3 (its classes' policies also make the format-2 view).
fn load(inst: &mut PolicyInstance, text: &str) -> Result<(PolicyDocument, Option<HealthDocument>), HostError> {
    match inst.load_health_document(text) {
        Ok(h) if h.classes.iter().any(|c| c.health.is_some()) => Ok((h.policy_document(), Some(h))),
        Ok(_) => Ok((inst.load_document(text)?, None)),
        // Refused as format 3: format 2's error, unless it is about a
        // `health` member (then the section's own error says what is wrong).
        Err(health_error) => match inst.load_document(text) {
            Ok(d) => Ok((d, None)),
            Err(HostError::Policy(e)) if e.field.split('.').any(|part| part == "health") => Err(health_error),
            Err(e) => Err(e),
        },
    }
}

impl Policies {
    /// Load the first document (refused like any reload when invalid).
    pub fn new(inst: &mut PolicyInstance, text: &str) -> Result<Policies, HostError> {
        Self::new_checked(inst, text, |_| Ok(()))
    }

    /// [`Policies::new`], refusing a document that `check` refuses (e.g. one
    /// without a class the host's events need); the document is parsed once.
    pub fn new_checked(
        inst: &mut PolicyInstance,
        text: &str,
        check: impl FnOnce(&PolicyDocument) -> Result<(), PolicyError>,
    ) -> Result<Policies, HostError> {
        let loaded = Loaded::read(inst, text, check, 0)?;
        let p = Policies { current: RwLock::new(Arc::new(loaded)), by_hash: Mutex::new(BTreeMap::new()) };
        p.remember(inst, &p.current())?;
        Ok(p)
    }

    /// The document new events are admitted under.
    pub fn current(&self) -> Arc<Loaded> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Validate `text` in the component, then make it current. On error the
    /// current document stays and the error says why.
    pub fn reload(&self, inst: &mut PolicyInstance, text: &str) -> Result<Arc<Loaded>, HostError> {
        let loaded = Arc::new(Loaded::read(inst, text, |_| Ok(()), self.current().generation + 1)?);
        self.remember(inst, &loaded)?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = loaded.clone();
        Ok(loaded)
    }

    /// Admit a new event of `class` under the current document (a class
    /// with `health`: the hash is the one `load-health-document` gave it,
    /// covering the section; the schedule does not depend on the section).
    pub fn admit(&self, inst: &mut PolicyInstance, class: &str, now_ms: u64) -> Result<Admission, HostError> {
        let current = self.current();
        let mut admission = inst.admit(&current.document, class, now_ms)?;
        if let Some(c) = current.health_of(class) {
            admission.policy_hash = c.policy_hash.clone();
        }
        Ok(admission)
    }

    /// The policy an event was admitted under (its persisted `policy_hash`),
    /// whatever has been loaded since.
    pub fn by_hash(&self, policy_hash: &str) -> Option<Policy> {
        self.by_hash_health(policy_hash).map(|(p, _)| p)
    }

    /// [`Policies::by_hash`] with the class's `health` section (`None`: format 2).
    pub fn by_hash_health(&self, policy_hash: &str) -> Option<(Policy, Option<Health>)> {
        self.by_hash.lock().unwrap_or_else(|e| e.into_inner()).get(policy_hash).map(|(_, p, h)| (*p, *h))
    }

    /// Record every class policy of `loaded` by the hash its admission gives it.
    fn remember(&self, inst: &mut PolicyInstance, loaded: &Loaded) -> Result<(), HostError> {
        let mut hashes = Vec::new();
        for (name, policy) in document_classes(&loaded.document) {
            match loaded.health_of(&name) {
                Some(c) => hashes.push((c.policy_hash.clone(), policy, c.health)),
                None => hashes.push((inst.admit(&loaded.document, &name, 0)?.policy_hash, policy, None)),
            }
        }
        let mut map = self.by_hash.lock().unwrap_or_else(|e| e.into_inner());
        for (hash, policy, health) in hashes {
            map.entry(hash).or_insert((loaded.generation, policy, health));
        }
        while map.len() > KEPT_POLICIES {
            let oldest = map.iter().min_by_key(|(_, (g, _, _))| *g).map(|(h, _)| h.clone());
            match oldest {
                Some(h) => map.remove(&h),
                None => break,
            };
        }
        Ok(())
    }
}

/// What a watch reports after each reload attempt.
pub type OnReload = Box<dyn Fn(Result<Arc<Loaded>, HostError>) + Send>;

/// What [`poll_file`] hands its callback at each tick: `None` when the file
/// is unchanged, else its new text (or why it could not be read).
pub type Tick = Option<Result<String, std::io::Error>>;

/// Check `path`'s modification time and length every `interval` on a new
/// thread; call `on_tick` each time (with the new text when it changed),
/// until `on_tick` returns false. The state at the call is the baseline, so
/// a write right after this returns is never missed.
pub fn poll_file(
    path: impl Into<PathBuf>,
    interval: Duration,
    mut on_tick: impl FnMut(Tick) -> bool + Send + 'static,
) -> std::io::Result<JoinHandle<()>> {
    let path = path.into();
    let mut seen = stamp(&path);
    std::thread::Builder::new().name("policy-watch".into()).spawn(move || loop {
        std::thread::sleep(interval);
        let now = stamp(&path);
        let tick = if now == seen {
            None
        } else {
            seen = now;
            Some(std::fs::read_to_string(&path))
        };
        if !on_tick(tick) {
            return;
        }
    })
}

/// Reload `path` into `policies` whenever its modification time or length
/// changes, checking every `interval`, until `policies` is dropped by
/// everyone else. Each attempt (success, or the reason the document was
/// refused and the old one kept) goes to `on_reload`.
pub fn watch(
    policies: Arc<Policies>,
    mut inst: PolicyInstance,
    path: impl Into<PathBuf>,
    interval: Duration,
    on_reload: OnReload,
) -> std::io::Result<JoinHandle<()>> {
    let path = path.into();
    let shown = path.display().to_string();
    poll_file(path, interval, move |tick| {
        match tick {
            None => {}
            Some(Ok(text)) => on_reload(policies.reload(&mut inst, &text)),
            Some(Err(e)) => on_reload(Err(HostError::Load(format!("{shown}: {e}")))),
        }
        Arc::strong_count(&policies) > 1
    })
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
}
