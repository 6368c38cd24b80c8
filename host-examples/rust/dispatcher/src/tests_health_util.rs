//! What the format-3 dispatcher tests share: a scripted loopback receiver
//! (each request's event id, attempt and arrival instant, the answer chosen
//! by a function of the request's index and arrival) and a format-3
//! document for class `storm`.

use std::sync::{Arc, Mutex};

use crate::http_server::{Request, Response, Server};

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Arrival {
    pub event_id: String,
    pub attempt: u32,
    pub at_ms: u64,
    pub status: u16,
}

/// A loopback receiver answering by `answer(index, arrival_ms)`:
/// `(status, Retry-After)`.
pub struct Receiver {
    pub server: Server,
    pub log: Arc<Mutex<Vec<Arrival>>>,
}

pub type Answer = dyn Fn(usize, u64) -> (u16, Option<&'static str>) + Send + Sync;

impl Receiver {
    pub fn start(answer: Box<Answer>) -> Receiver {
        let log: Arc<Mutex<Vec<Arrival>>> = Arc::default();
        let kept = log.clone();
        let server = Server::start("127.0.0.1:0", move |req: &Request| {
            let at_ms = crate::dispatcher::now_ms();
            let mut log = kept.lock().unwrap();
            let (status, retry_after) = answer(log.len(), at_ms);
            log.push(Arrival {
                event_id: req.header("x-event-id").unwrap_or("").to_string(),
                attempt: req.header("x-attempt").and_then(|a| a.parse().ok()).unwrap_or(0),
                at_ms,
                status,
            });
            let mut resp = Response::text(status, "");
            if let Some(r) = retry_after {
                resp.headers.push(("retry-after".into(), r.into()));
            }
            resp
        })
        .expect("a loopback receiver");
        Receiver { server, log }
    }

    pub fn url(&self) -> String {
        self.server.url("/hook")
    }

    pub fn arrivals(&self) -> Vec<Arrival> {
        self.log.lock().unwrap().clone()
    }
}

/// A format-3 document: class `storm` with `health` (`circuit` and
/// `release` as JSON), a window of `window_ms`, retries `base_ms` apart
/// (no jitter), and the budget `{ratio, window 60 s, min_sample, not sliding}`.
pub fn health_doc(window_ms: u64, base_ms: u64, ratio: f64, min_sample: u64, circuit: &str, release: &str) -> String {
    format!(
        r#"{{"version":"h1","classes":{{"storm":{{"window_ms":{window_ms},"hard_cap":10,
        "backoff":{{"base_ms":{base_ms},"factor":1.0,"cap_ms":{base_ms},"jitter":"none"}},
        "budget":{{"ratio":{ratio},"window_ms":60000,"min_sample":{min_sample},"sliding":false}},
        "health":{{"hold_budget_refusals":true,"pause":{{"max_ms":600000}},"circuit":{circuit},
                   "release":{release},"cache_ms":60000}}}}}}}}"#
    )
}
