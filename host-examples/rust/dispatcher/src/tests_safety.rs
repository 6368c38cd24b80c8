//! End-to-end through the driver: signed deliveries with a secret reloaded
//! after a 401 (the engine's `refresh_credentials` on the retry's send), and
//! no unsigned request to an endpoint without a secret.

use std::sync::{Arc, Mutex};

use crate::http_server::{Response, Server};
use crate::signing::{verify, Secret, SecretSource, Signer};
use crate::tests::{dispatch_with, doc, events, local_config};

/// Gives `key-1` first, `key-2` after the first reload.
struct Rotating(Arc<Mutex<u32>>);

impl SecretSource for Rotating {
    fn load(&self, _endpoint: &str) -> Result<Vec<Secret>, String> {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        Ok(vec![Secret::from_bytes(format!("key-{n}").into_bytes())])
    }
}

/// Accepts only webhooks signed with `key-2` (401 otherwise).
fn receiver() -> Server {
    let key = [Secret::from_bytes(b"key-2".to_vec())];
    Server::start("127.0.0.1:0", move |req| {
        let now_s = crate::clock::now_ms() / 1000;
        let h = |n| req.header(n);
        match verify(&key, h("webhook-id"), h("webhook-timestamp"), h("webhook-signature"), &req.body, now_s, 300) {
            Ok(()) => Response::text(200, "ok\n"),
            Err(e) => Response::text(401, format!("{e}\n")),
        }
    })
    .unwrap()
}

#[test]
fn a_401_reloads_the_endpoints_secret_and_the_retry_signed_with_it_is_delivered() {
    let server = receiver();
    let loads = Arc::new(Mutex::new(0));
    let mut config = local_config();
    config.concurrency = 1;
    config.signer = Some(Arc::new(Signer::new(Box::new(Rotating(loads.clone())))));
    let (stops, _) = dispatch_with(config, &doc(50), events(3, "signed", &server.url("/")));
    assert!(stops.iter().all(|s| s.reason == "delivered"), "{stops:?}");
    // The first event got a 401 with key-1, its retry reloaded to key-2;
    // the others were signed with key-2 from their first attempt.
    assert_eq!((stops.iter().map(|s| s.attempts).sum::<u64>(), *loads.lock().unwrap()), (4, 2));
}

struct Missing;

impl SecretSource for Missing {
    fn load(&self, endpoint: &str) -> Result<Vec<Secret>, String> {
        Err(format!("no signing secret for endpoint `{endpoint}`"))
    }
}

#[test]
fn an_endpoint_without_a_secret_gets_no_unsigned_request() {
    let server = receiver();
    let mut config = local_config();
    config.signer = Some(Arc::new(Signer::new(Box::new(Missing))));
    let (stops, m) = dispatch_with(config, &doc(50), events(2, "nosecret", &server.url("/")));
    assert!(stops.iter().all(|s| (s.reason.as_str(), s.attempts) == ("terminal_response", 1)), "{stops:?}");
    assert_eq!(m.counter("webhook_transport_errors_total", Some(("kind", "credentials_unavailable"))), 2);
}
