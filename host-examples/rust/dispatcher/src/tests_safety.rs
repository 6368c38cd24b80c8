//! End-to-end: signed deliveries with a secret reloaded after a 401, and
//! secrets that stay out of records, logs and metrics.

use std::sync::{Arc, Mutex};

use retry_policy_core::StopReason;

use crate::http_server::{Response, Server};
use crate::signing::{verify, Secret, SecretSource, Signer};
use crate::tests::{dispatch_with, doc, events, local_config};
use crate::BudgetStore;

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
        let now_s = crate::dispatcher::now_ms() / 1000;
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
    let (recs, _) =
        dispatch_with(config, BudgetStore::local(), &doc(50), Vec::new(), events(3, "signed", &server.url("/")));
    for r in &recs {
        assert_eq!(r.stop_reason, Some(StopReason::Delivered), "{r:?}");
    }
    // The first event got a 401 with key-1, the reload gave key-2; the
    // others were signed with key-2 from their first attempt.
    assert_eq!(recs.iter().filter(|r| r.credentials_refreshed).count(), 1);
    assert_eq!((recs.iter().map(|r| r.attempts).sum::<u32>(), *loads.lock().unwrap()), (4, 2));
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
    let (recs, _) =
        dispatch_with(config, BudgetStore::local(), &doc(50), Vec::new(), events(2, "nosecret", &server.url("/")));
    for r in &recs {
        assert_eq!(
            (r.last_outcome.as_str(), r.stop_reason),
            ("credentials_unavailable", Some(StopReason::TerminalResponse))
        );
    }
}
