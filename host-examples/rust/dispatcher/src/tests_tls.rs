//! HTTPS against a loopback server whose certificates are made at test
//! time (`rcgen`): a CA, a server certificate for 127.0.0.1/localhost and
//! one for another name. Delivered when the CA is trusted (`--ca-file`);
//! `tls_certificate` (terminal, nothing sent) without it or for the wrong
//! name; another handshake failure is the retryable `connect_error`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::http_client::{ClientConfig, Delivery, HttpClient};
use crate::tests::{dispatch_with, doc, events, local_config};
use retry_policy_host::tls::{TrustConfig, TrustRoots};

pub(crate) struct Pki {
    pub(crate) ca_pem: String,
    pub(crate) ca_der: CertificateDer<'static>,
    /// (certificate chain, key) for 127.0.0.1 and localhost.
    pub(crate) loopback: (Vec<CertificateDer<'static>>, Vec<u8>),
    /// (certificate chain, key) for other.test only.
    pub(crate) other_name: (Vec<CertificateDer<'static>>, Vec<u8>),
}

pub(crate) fn pki() -> Pki {
    let ca_key = KeyPair::generate().expect("a CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "retry-policy test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let ca_cert = ca.self_signed(&ca_key).expect("the CA certificate");
    let leaf = |names: &[&str]| {
        let key = KeyPair::generate().expect("a server key");
        let params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
        let cert = params.signed_by(&key, &ca_cert, &ca_key).expect("a server certificate");
        (vec![cert.der().clone()], key.serialize_der())
    };
    Pki {
        ca_pem: ca_cert.pem(),
        ca_der: ca_cert.der().clone(),
        loopback: leaf(&["127.0.0.1", "localhost"]),
        other_name: leaf(&["other.test"]),
    }
}

/// An HTTPS server on 127.0.0.1 answering 200 to every request it reads in
/// full; returns its URL and how many requests it received.
fn https_server(identity: (Vec<CertificateDer<'static>>, Vec<u8>)) -> (String, Arc<AtomicUsize>) {
    slow_https_server(identity, Duration::ZERO)
}

/// [`https_server`] that waits `handshake_delay` after accepting a
/// connection before its TLS handshake.
pub(crate) fn slow_https_server(
    identity: (Vec<CertificateDer<'static>>, Vec<u8>),
    handshake_delay: Duration,
) -> (String, Arc<AtomicUsize>) {
    let (chain, key) = identity;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key));
    let config = rustls::ServerConfig::builder_with_provider(TrustRoots::provider())
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("a server configuration");
    let config = Arc::new(config);
    let l = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("https://{}/hook", l.local_addr().expect("an address"));
    let received = Arc::new(AtomicUsize::new(0));
    let count = received.clone();
    thread::spawn(move || {
        for tcp in l.incoming().flatten() {
            let (config, count) = (config.clone(), count.clone());
            thread::spawn(move || {
                thread::sleep(handshake_delay);
                serve(tcp, config, &count)
            });
        }
    });
    (url, received)
}

fn serve(tcp: TcpStream, config: Arc<rustls::ServerConfig>, received: &AtomicUsize) {
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(5)));
    let Ok(conn) = rustls::ServerConnection::new(config) else { return };
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // The head, then Content-Length bytes of body.
    loop {
        match tls.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
            .unwrap_or(0);
        if buf.len() >= end + 4 + len {
            break;
        }
    }
    received.fetch_add(1, Ordering::SeqCst);
    let _ = tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
}

fn ca_file(pem: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    let p = std::env::temp_dir().join(format!("rpd-tls-ca-{}-{n}.pem", std::process::id()));
    std::fs::write(&p, pem).expect("write the CA file");
    p
}

fn client(trust: TrustRoots) -> HttpClient {
    HttpClient::new(ClientConfig {
        allow_private_targets: true,
        attempt_deadline_ms: 5_000,
        trust,
        ..Default::default()
    })
}

#[test]
fn an_https_target_is_delivered_when_the_ca_file_trusts_its_issuer() {
    let p = pki();
    let (url, received) = https_server(p.loopback);
    let trust = TrustRoots::load(&TrustConfig { ca_file: Some(ca_file(&p.ca_pem)) }).expect("the CA file loads");
    assert_eq!(trust.extra(), 1);
    let got = client(trust).post_before(&url, &[("X-Attempt", "1")], b"{\"event_id\":\"e\"}", None);
    assert_eq!(got, Delivery::Response { status: 200, retry_after: None });
    assert_eq!(received.load(Ordering::SeqCst), 1);
}

#[test]
fn an_untrusted_issuer_is_tls_certificate_and_nothing_is_sent() {
    let p = pki();
    let (url, received) = https_server(p.loopback);
    let got = client(TrustRoots::default()).post_before(&url, &[], b"{}", None);
    assert_eq!(got, Delivery::Failed("tls_certificate"));
    assert_eq!(received.load(Ordering::SeqCst), 0);
}

#[test]
fn a_certificate_for_another_name_is_tls_certificate_even_with_the_ca() {
    let p = pki();
    let (url, received) = https_server(p.other_name);
    let got = client(TrustRoots::only(vec![p.ca_der])).post_before(&url, &[], b"{}", None);
    assert_eq!(got, Delivery::Failed("tls_certificate"));
    assert_eq!(received.load(Ordering::SeqCst), 0);
}

#[test]
fn a_handshake_cut_by_the_server_is_a_retryable_connect_error() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/hook", l.local_addr().unwrap());
    thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 512];
            let _ = c.read(&mut buf); // the ClientHello
            let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n"); // not TLS
        }
    });
    assert_eq!(client(TrustRoots::default()).post_before(&url, &[], b"{}", None), Delivery::Failed("connect_error"));
}

#[test]
fn an_event_to_an_untrusted_https_target_is_dead_lettered_terminal_after_one_attempt() {
    let p = pki();
    let (url, received) = https_server(p.loopback);
    let (records, metrics) = dispatch_with(local_config(), &doc(1000), events(2, "tls", &url));
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!((r.reason.as_str(), r.attempts), ("terminal_response", 1), "{r:?}");
    }
    assert_eq!(metrics.counter("webhook_transport_errors_total", Some(("kind", "tls_certificate"))), 2);
    assert_eq!(metrics.counter("webhook_attempts_total", Some(("kind", "retry"))), 0);
    assert_eq!(received.load(Ordering::SeqCst), 0);
}

#[test]
fn the_destination_guard_refuses_a_loopback_https_target_before_any_handshake() {
    let p = pki();
    let (url, received) = https_server(p.loopback);
    let guarded = HttpClient::new(ClientConfig { trust: TrustRoots::only(vec![p.ca_der]), ..ClientConfig::default() });
    assert_eq!(guarded.post_before(&url, &[], b"{}", None), Delivery::Failed("destination_refused"));
    assert_eq!(received.load(Ordering::SeqCst), 0);
}
