//! The HTTP/1.1 server of `/metrics` and of the local test endpoints, on
//! `hyper` (server, keep-alive, bounded header reads) with a small `tokio`
//! runtime of its own, behind a sync API: a handler is a plain
//! `Fn(&Request) -> Response`, called with the whole request (its body read
//! up to 1 MiB; a larger one is answered 413). Bind it to loopback (the
//! default everywhere in this crate).
//!
//! Not `tiny_http` 0.12 (why: `Cargo.toml`): an `accept` error ends its
//! accept thread, it sets no read timeout, and a burst of keep-alive
//! clients can wait behind connections that never close (a race;
//! `tests_http_server.rs` keeps the burst case as a regression test).

use std::convert::Infallible;
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

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

/// Largest request body read (a larger one is answered 413).
const MAX_BODY: usize = 1 << 20;
/// Runtime threads per server: the handlers are short (counters, a render).
const WORKER_THREADS: usize = 2;

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A running server; stops when dropped or on [`Server::stop`].
pub struct Server {
    addr: SocketAddr,
    stop: Mutex<Option<(tokio::sync::oneshot::Sender<()>, JoinHandle<()>)>>,
}

impl Server {
    /// Listen on `bind` (e.g. `127.0.0.1:0` for a free port) and serve.
    pub fn start(bind: &str, handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> io::Result<Server> {
        let listener = TcpListener::bind(bind)?;
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name(format!("http-{addr}"))
            .enable_all()
            .build()?;
        let listener = {
            let _guard = runtime.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let handler: Arc<Handler> = Arc::new(handler);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = thread::Builder::new().name(format!("http-{addr}")).spawn(move || {
            runtime.block_on(async move {
                tokio::spawn(accept_loop(listener, handler));
                // Until stop() or the Server is dropped (the sender with it).
                let _ = stop_rx.await;
            });
            // Ends the accept loop and every connection, closing the sockets.
            runtime.shutdown_timeout(Duration::from_secs(1));
        })?;
        Ok(Server { addr, stop: Mutex::new(Some((stop_tx, thread))) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Stop serving: the listener and every connection are closed on return.
    pub fn stop(&self) {
        let taken = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((tx, thread)) = taken {
            let _ = tx.send(());
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn accept_loop(listener: tokio::net::TcpListener, handler: Arc<Handler>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors and the like: try again shortly.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let h = handler.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let h = h.clone();
                async move { Ok::<_, Infallible>(answer(req, &*h).await) }
            });
            // A peer that breaks HTTP or goes away ends its connection only.
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// Read the request (body bounded), run the handler, build the response.
async fn answer(req: hyper::Request<Incoming>, handler: &Handler) -> hyper::Response<Full<Bytes>> {
    let (parts, body) = req.into_parts();
    // A declared length over the limit is refused before any of it is read.
    if hyper::body::Body::size_hint(&body).lower() > MAX_BODY as u64 {
        return to_hyper(Response::text(413, "request body over 1 MiB\n"));
    }
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes().to_vec(),
        Err(_) => return to_hyper(Response::text(413, "request body over 1 MiB, or cut short\n")),
    };
    let request = Request {
        method: parts.method.as_str().to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or_default().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body,
    };
    to_hyper(handler(&request))
}

/// A handler's response; one hyper refuses (a status outside 100-999, a
/// header that is not a header) becomes a 500 saying so.
fn to_hyper(resp: Response) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder().status(resp.status);
    for (k, v) in &resp.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    builder.body(Full::new(Bytes::from(resp.body))).unwrap_or_else(|e| {
        let mut r = hyper::Response::new(Full::new(Bytes::from(format!("the handler's response is invalid: {e}\n"))));
        *r.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}

#[cfg(test)]
#[path = "tests_http_server.rs"]
mod tests;
