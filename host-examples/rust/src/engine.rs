//! Compiling the component once and running instances of it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use retry_policy_core as core_;
use retry_policy_core::{BudgetStore, Clock};
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Config, Engine, Store};

use crate::artifact::{ArtifactError, ArtifactInfo};
use crate::bindings::{webhook, wit, RetryPolicy, RetryPolicyPre};
use crate::convert::{from_wit, to_wit};

/// Why a call did not produce a result.
#[non_exhaustive]
#[derive(Debug)]
pub enum HostError {
    /// The policy refused the input (the contract's code and field).
    Policy(core_::PolicyError),
    /// The artifact was refused (its code: [`ArtifactError::code`]).
    Artifact(ArtifactError),
    /// A checked artifact could not be instantiated, or a precompiled one loaded.
    Load(String),
    /// The guest trapped; the instance has been discarded and is rebuilt on
    /// the next call.
    Trap(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Policy(e) => write!(f, "{e}"),
            HostError::Artifact(e) => write!(f, "{e}"),
            HostError::Load(m) => write!(f, "cannot load the policy component: {m}"),
            HostError::Trap(m) => write!(f, "the policy component trapped: {m}"),
        }
    }
}

impl std::error::Error for HostError {}

impl From<ArtifactError> for HostError {
    fn from(e: ArtifactError) -> Self {
        HostError::Artifact(e)
    }
}

impl From<core_::PolicyError> for HostError {
    fn from(e: core_::PolicyError) -> Self {
        HostError::Policy(e)
    }
}

type DynStore = Box<dyn BudgetStore<Error = String> + Send>;

/// Store data: the host side of the component's imports.
pub struct HostState {
    clock: Box<dyn Clock + Send>,
    store: DynStore,
}

impl webhook::retry_policy::clock::Host for HostState {
    fn now_ms(&mut self) -> u64 {
        self.clock.now_ms()
    }
}

impl webhook::retry_policy::types::Host for HostState {}

impl webhook::retry_policy::budget_store::Host for HostState {
    fn call(
        &mut self,
        request: wit::StoreRequest,
        budget: wit::Budget,
        now_ms: u64,
    ) -> Result<wit::Reservation, String> {
        let reply = self.store.call(&from_wit::request(request), &from_wit::budget(budget), now_ms)?;
        Ok(to_wit::reservation(&reply))
    }
}

/// Adapts any store to the object-safe one the wasmtime store holds.
struct Adapt<S>(S);

impl<S: BudgetStore> BudgetStore for Adapt<S>
where
    S::Error: fmt::Display,
{
    type Error = String;
    fn call(&mut self, r: &core_::StoreRequest, b: &core_::Budget, now_ms: u64) -> Result<core_::Reservation, String> {
        self.0.call(r, b, now_ms).map_err(|err| err.to_string())
    }
}

/// A loaded, checked artifact (see [`crate::artifact`]): the component
/// compiled and pre-linked once. Clone it freely (`Send + Sync`); load it
/// with [`PolicyEngine::load`], [`PolicyEngine::load_default`],
/// [`PolicyEngine::from_file`] or [`PolicyEngine::from_bytes`].
#[derive(Clone)]
pub struct PolicyEngine {
    engine: Engine,
    pre: RetryPolicyPre<HostState>,
    pub(crate) info: Arc<ArtifactInfo>,
    pub(crate) document: Option<Arc<wit::PolicyDocument>>,
    pub(crate) health_document: Option<Arc<crate::HealthDocument>>,
}

impl PolicyEngine {
    pub(crate) fn wasmtime_engine() -> Result<Engine, HostError> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.cache(crate::cache::compile_cache());
        Engine::new(&config).map_err(|e| HostError::Load(e.to_string()))
    }

    /// Write this engine's component, compiled, to `path` (a wasmtime
    /// artifact for this wasmtime version and machine), so a later process
    /// can skip compilation with [`PolicyEngine::from_precompiled_file`].
    pub fn precompile_to(&self, path: impl AsRef<Path>) -> Result<(), HostError> {
        let bytes = self.pre.instance_pre().component().serialize().map_err(|e| HostError::Load(format!("{e:#}")))?;
        std::fs::write(path, bytes).map_err(|e| HostError::Load(e.to_string()))
    }

    /// Load a file written by [`PolicyEngine::precompile_to`] of the engine
    /// whose `info` is given (the artifact it was compiled from). Only load
    /// files this program wrote itself: wasmtime runs a precompiled
    /// artifact's machine code as is (it checks the version and settings,
    /// not the code), which is why this is the one `unsafe` call here.
    pub fn from_precompiled_file(path: impl AsRef<Path>, info: &ArtifactInfo) -> Result<Self, HostError> {
        let engine = Self::wasmtime_engine()?;
        // SAFETY: the file was produced by `precompile_to` of this program
        // (see the doc comment); wasmtime refuses artifacts of other versions.
        let component =
            unsafe { Component::deserialize_file(&engine, path) }.map_err(|e| HostError::Load(format!("{e:#}")))?;
        let mut this = Self::link(engine, component)?;
        this.info = Arc::new(info.clone());
        Ok(this)
    }

    /// The component linked, with an empty [`ArtifactInfo`] (the caller sets it).
    pub(crate) fn link(engine: Engine, component: Component) -> Result<Self, HostError> {
        let mut linker = Linker::<HostState>::new(&engine);
        RetryPolicy::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .map_err(|e| HostError::Load(e.to_string()))?;
        let pre = linker.instantiate_pre(&component).map_err(|e| HostError::Load(format!("{e:#}")))?;
        let pre = RetryPolicyPre::new(pre).map_err(|e| HostError::Load(format!("{e:#}")))?;
        let info = Arc::default();
        Ok(PolicyEngine { engine, pre, info, document: None, health_document: None })
    }

    /// What this artifact is: sha256, ABI, size, source, embedded document, build.
    pub fn info(&self) -> &ArtifactInfo {
        &self.info
    }

    /// The document embedded in the artifact (`retry-policy bundle`), in
    /// its format-2 view (class policies, no `health` sections); hosts take
    /// it as their current document unless the caller pins another.
    pub fn document(&self) -> Option<&wit::PolicyDocument> {
        self.document.as_deref()
    }

    /// The embedded document as the artifact's own `load-health-document`
    /// read it (format 2 or 3): each class with its effective `health`
    /// section (`None` for every class of a format-2 document). A dispatcher
    /// running on the embedded document runs the format-3 send loop for the
    /// classes that have one, as it would with `--policy` (`docs/artifact.md`).
    pub fn health_document(&self) -> Option<&crate::HealthDocument> {
        self.health_document.as_deref()
    }

    /// A new instance with its own clock and budget store (the imports of
    /// [`PolicyInstance::decide`]; the other calls never touch them).
    pub fn instantiate<C, B>(&self, clock: C, store: B) -> Result<PolicyInstance, HostError>
    where
        C: Clock + Send + 'static,
        B: BudgetStore + Send + 'static,
        B::Error: fmt::Display,
    {
        let state = HostState { clock: Box::new(clock), store: Box::new(Adapt(store)) };
        let mut inst = PolicyInstance { engine: self.clone(), store: Store::new(&self.engine, state), bindings: None };
        inst.ensure()?;
        Ok(inst)
    }
}

/// One instance of the component. Not `Sync`: one per thread, or a mutex.
/// Its delivery engines (`engine-open` handles) live in it and end with it
/// (or with a trap, which replaces it).
pub struct PolicyInstance {
    engine: PolicyEngine,
    store: Store<HostState>,
    bindings: Option<RetryPolicy>,
}

impl PolicyInstance {
    fn ensure(&mut self) -> Result<(), HostError> {
        if self.bindings.is_none() {
            let b = self.engine.pre.instantiate(&mut self.store).map_err(|e| HostError::Load(format!("{e:#}")))?;
            self.bindings = Some(b);
        }
        Ok(())
    }

    /// Run one export; a trap discards the instance (and its store, whose
    /// memory may be inconsistent) and is reported as [`HostError::Trap`].
    pub(crate) fn call<T>(
        &mut self,
        f: impl FnOnce(&RetryPolicy, &mut Store<HostState>) -> wasmtime::Result<T>,
    ) -> Result<T, HostError> {
        self.ensure()?;
        let bindings = self.bindings.as_ref().expect("ensured above");
        match f(bindings, &mut self.store) {
            Ok(v) => Ok(v),
            Err(trap) => {
                self.bindings = None;
                let data = std::mem::replace(self.store.data_mut(), HostState::placeholder());
                self.store = Store::new(&self.engine.engine, data);
                Err(HostError::Trap(format!("{trap:#}")))
            }
        }
    }

    /// The artifact this instance runs.
    pub fn artifact_info(&self) -> &ArtifactInfo {
        self.engine.info()
    }

    /// The component's ABI version.
    pub fn abi_version(&mut self) -> Result<u32, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_abi_version(s))
    }

    pub fn plan(&mut self, backoff: &core_::Backoff, window_ms: u64, hard_cap: u32) -> Result<core_::Plan, HostError> {
        let r = self
            .call(|b, s| b.webhook_retry_policy_policy().call_plan(s, to_wit::backoff(backoff), window_ms, hard_cap))?;
        Ok(r.map(from_wit::plan).map_err(from_wit::error)?)
    }

    pub fn classify_status(&mut self, status: u16) -> Result<core_::OutcomeClass, HostError> {
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_classify_status(s, status))?;
        Ok(r.map(from_wit::class).map_err(from_wit::error)?)
    }

    pub fn classify_error(&mut self, error_kind: &str) -> Result<core_::OutcomeClass, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_classify_error(s, error_kind)).map(from_wit::class)
    }

    /// Parse and validate a JSON policy document (in the component).
    pub fn load_document(&mut self, json: &str) -> Result<wit::PolicyDocument, HostError> {
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_load_document(s, json))?;
        Ok(r.map_err(from_wit::error)?)
    }

    /// The schedule a new event of `class` is admitted under at `now_ms`.
    pub fn admit(&mut self, doc: &wit::PolicyDocument, class: &str, now_ms: u64) -> Result<wit::Admission, HostError> {
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_admit(s, doc, class, now_ms))?;
        Ok(r.map_err(from_wit::error)?)
    }

    /// The whole step with this instance's clock and store: evaluate, ONE
    /// store call, settle (a store error fails a pending retry closed).
    pub fn decide(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
    ) -> Result<core_::Decision, HostError> {
        let (p, st, o) = (to_wit::policy(policy), to_wit::state(state), to_wit::outcome(outcome));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_decide(s, p, &st, &o))?;
        Ok(r.map(from_wit::decision).map_err(from_wit::error)?)
    }
}

impl HostState {
    /// Only ever held for the instant a trapped store is replaced.
    fn placeholder() -> Self {
        HostState { clock: Box::new(core_::FakeClock::new(0)), store: Box::new(Adapt(core_::InMemoryStore::new())) }
    }
}
