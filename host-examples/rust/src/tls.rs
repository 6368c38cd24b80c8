//! What a process of this crate trusts for TLS (docs/replica.md, "HTTPS"):
//! the platform's trust store (`rustls-native-certs`: on Linux the system's
//! CA bundle, `SSL_CERT_FILE`/`SSL_CERT_DIR` honoured) **plus** the PEM CA
//! certificates of `--ca-file`. Verification is never skipped; there is no
//! switch to. Behind the `rollout` feature (which brings rustls).
//!
//! One [`TrustRoots`] serves every use of TLS:
//!
//! * the dispatcher's `https://` targets (its HTTP client takes the
//!   certificates) and `rediss://` budget store;
//! * `retry-policy publish` and `rollout`'s `rediss://` connection
//!   ([`crate::rollout::admin::connect`]); the `redis` crate takes the roots
//!   as one PEM blob ([`TrustRoots::pem`]), with the same provider (`ring`).
//!
//! A `--ca-file` that cannot be read, is not PEM or holds no certificate is
//! a [`TrustError`] naming the file (the replica exits 2 on it).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;

/// Where the extra trust comes from (the replica's `--ca-file`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustConfig {
    /// PEM CA certificates trusted in addition to the platform's store.
    pub ca_file: Option<PathBuf>,
}

/// Why the trust could not be set up.
#[derive(Debug)]
pub enum TrustError {
    /// The CA file cannot be read.
    Unreadable { path: PathBuf, error: std::io::Error },
    /// The CA file is not PEM, or a certificate in it is not a certificate.
    NotPem { path: PathBuf, detail: String },
    /// The CA file holds no certificate.
    NoCertificate { path: PathBuf },
}

impl fmt::Display for TrustError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrustError::Unreadable { path, error } => write!(f, "--ca-file {}: {error}", path.display()),
            TrustError::NotPem { path, detail } => {
                write!(f, "--ca-file {}: not a PEM file of CA certificates ({detail})", path.display())
            }
            TrustError::NoCertificate { path } => {
                write!(f, "--ca-file {}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)", path.display())
            }
        }
    }
}

impl std::error::Error for TrustError {}

/// The certificates trusted: the platform's, then the CA file's.
#[derive(Clone, Debug)]
pub struct TrustRoots {
    roots: Arc<Vec<CertificateDer<'static>>>,
    /// How many came from the CA file (the last ones).
    extra: usize,
}

impl Default for TrustRoots {
    /// The platform's store alone.
    fn default() -> Self {
        TrustRoots { roots: platform_roots().clone(), extra: 0 }
    }
}

/// The platform's store, loaded once per process. Certificates it cannot
/// parse are skipped (a missing store trusts nothing from it: `--ca-file`
/// can still add roots).
fn platform_roots() -> &'static Arc<Vec<CertificateDer<'static>>> {
    static ROOTS: OnceLock<Arc<Vec<CertificateDer<'static>>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        if found.certs.is_empty() && !found.errors.is_empty() {
            eprintln!("dispatcher: the platform's trust store could not be read: {}", found.errors[0]);
        }
        Arc::new(found.certs)
    })
}

/// The CA certificates of a PEM file (other PEM sections, e.g. keys, are
/// skipped); at least one, each parsable as a trust anchor.
pub fn read_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, TrustError> {
    let bytes = std::fs::read(path).map_err(|error| TrustError::Unreadable { path: path.into(), error })?;
    let mut certs = Vec::new();
    for item in CertificateDer::pem_slice_iter(&bytes) {
        certs.push(item.map_err(|e| TrustError::NotPem { path: path.into(), detail: e.to_string() })?);
    }
    if certs.is_empty() {
        return Err(TrustError::NoCertificate { path: path.into() });
    }
    let mut store = RootCertStore::empty();
    for c in &certs {
        store.add(c.clone()).map_err(|e| TrustError::NotPem { path: path.into(), detail: e.to_string() })?;
    }
    Ok(certs)
}

impl TrustRoots {
    /// The platform's store plus `config.ca_file`'s certificates.
    pub fn load(config: &TrustConfig) -> Result<TrustRoots, TrustError> {
        let Some(path) = &config.ca_file else { return Ok(TrustRoots::default()) };
        let extra = read_ca_file(path)?;
        let mut roots: Vec<CertificateDer<'static>> = platform_roots().as_ref().clone();
        let n = extra.len();
        roots.extend(extra);
        Ok(TrustRoots { roots: Arc::new(roots), extra: n })
    }

    /// Only `certs` (tests: a private CA without the platform's store).
    pub fn only(certs: Vec<CertificateDer<'static>>) -> TrustRoots {
        let extra = certs.len();
        TrustRoots { roots: Arc::new(certs), extra }
    }

    /// Every trusted certificate (DER).
    pub fn certificates(&self) -> &[CertificateDer<'static>] {
        &self.roots
    }

    /// How many were added by the CA file.
    pub fn extra(&self) -> usize {
        self.extra
    }

    /// The crypto provider of every TLS connection made here.
    pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    /// Every trusted certificate as PEM, the one blob the `redis` crate
    /// takes its roots in (it replaces the platform's store, so the blob is both).
    pub fn pem(&self) -> Vec<u8> {
        use base64::Engine as _;
        let mut out = Vec::new();
        for der in self.roots.iter() {
            let b64 = base64::engine::general_purpose::STANDARD.encode(der);
            out.extend_from_slice(b"-----BEGIN CERTIFICATE-----\n");
            for line in b64.as_bytes().chunks(64) {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            out.extend_from_slice(b"-----END CERTIFICATE-----\n");
        }
        out
    }
}

/// Whether a rustls error is the server's certificate failing verification
/// (untrusted issuer, name mismatch, expired, not yet valid, ...).
pub fn is_certificate_error(e: &rustls::Error) -> bool {
    matches!(e, rustls::Error::InvalidCertificate(_))
}

#[cfg(test)]
#[path = "tests_tls_unit.rs"]
mod tests;
