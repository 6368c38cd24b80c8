//! The compiled-code cache every engine uses by default (issue 20: cold
//! start). wasmtime's own cache (its `cache` feature), not a hand-written
//! one: wasmtime keys, writes and checks the entries itself.

/// The environment variable that places the compiled-code cache
/// (`off` or `0`: no cache), shared in name with the Python package.
pub const CACHE_ENV: &str = "WEBHOOK_RETRY_POLICY_CACHE";

/// The cache, set up on the first load (the variable is read then; one
/// wasmtime cache worker thread per process): a process that loads an
/// artifact compiled before skips Cranelift. Directory:
/// `$WEBHOOK_RETRY_POLICY_CACHE`, else wasmtime's (`~/.cache/wasmtime`); a
/// cache that cannot be set up (read-only home) means compiling every time,
/// never a failed load.
pub(crate) fn compile_cache() -> Option<wasmtime::Cache> {
    static CACHE: std::sync::OnceLock<Option<wasmtime::Cache>> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| cache_from(&std::env::var(CACHE_ENV).unwrap_or_default())).clone()
}

/// The cache the variable's value names (None: off, or unusable).
fn cache_from(value: &str) -> Option<wasmtime::Cache> {
    if value == "off" || value == "0" {
        return None;
    }
    let mut config = wasmtime::CacheConfig::new();
    if !value.is_empty() {
        config.with_directory(value);
    }
    wasmtime::Cache::new(config).ok()
}

#[cfg(test)]
#[path = "tests_cache.rs"]
mod cache_tests;
