//! A small HTTP/1.1 server on `tiny_http` for the local endpoints and
//! `/metrics`: a few handler threads share one listener; request bodies
//! are read up to 1 MiB. Enough for loopback demos, tests and a scrape
//! endpoint; bind it to loopback (the default everywhere in this crate).

use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread;

/// Largest request body read (the rest is left unread).
const MAX_REQUEST_BODY: u64 = 1 << 20;
/// Threads answering requests.
const HANDLERS: usize = 4;

/// A request as the handler sees it.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    pub query: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// A response: status, extra headers, body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Response { status, headers: vec![("Content-Type".into(), content_type.into())], body: body.into() }
    }
    pub fn text(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self::new(status, "text/plain; charset=utf-8", body)
    }
}

/// A running server; stops when dropped or on [`Server::stop`].
pub struct Server {
    addr: SocketAddr,
    inner: Arc<tiny_http::Server>,
}

impl Server {
    /// Listen on `bind` (e.g. `127.0.0.1:0` for a free port) and serve.
    pub fn start(bind: &str, handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> io::Result<Server> {
        let inner = Arc::new(tiny_http::Server::http(bind).map_err(|e| io::Error::other(e.to_string()))?);
        let addr = inner.server_addr().to_ip().ok_or_else(|| io::Error::other("not an IP listener"))?;
        let handler = Arc::new(handler);
        for i in 0..HANDLERS {
            let (srv, h) = (inner.clone(), handler.clone());
            thread::Builder::new().name(format!("http-{}-{i}", addr.port())).spawn(move || {
                // `recv` fails once the server is unblocked (stopped).
                while let Ok(rq) = srv.recv() {
                    answer(rq, &*h);
                }
            })?;
        }
        Ok(Server { addr, inner })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn stop(&self) {
        for _ in 0..HANDLERS {
            self.inner.unblock();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn answer(mut rq: tiny_http::Request, handler: &(dyn Fn(&Request) -> Response + Send + Sync)) {
    let (path, query) = match rq.url().split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (rq.url().to_string(), String::new()),
    };
    let headers = rq
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str().to_ascii_lowercase(), h.value.as_str().to_string()))
        .collect();
    let mut req = Request { method: rq.method().as_str().to_string(), path, query, headers, body: Vec::new() };
    let _ = rq.as_reader().take(MAX_REQUEST_BODY).read_to_end(&mut req.body);
    let resp = handler(&req);
    let mut out = tiny_http::Response::from_data(resp.body).with_status_code(resp.status);
    for (k, v) in &resp.headers {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            out.add_header(h);
        }
    }
    let _ = rq.respond(out);
}
