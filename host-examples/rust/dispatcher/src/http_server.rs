//! A tiny HTTP/1.1 server on `std::net` for the local endpoints and
//! `/metrics`: one thread per connection, keep-alive, `Content-Length`
//! bodies only, every read bounded (a line 8 KiB, 100 headers, a body
//! 1 MiB). Enough for loopback demos and tests (bind it to loopback, the
//! default everywhere in this crate); not an internet-facing server.
//!
//! Not `tiny_http`, for a measured reason: with 8 keep-alive clients
//! (`ureq`, the dispatcher's workers) a fresh `tiny_http` 0.12 server left
//! about 4 of the first requests unanswered until the client gave up
//! (3 of 4 fresh runs, 20 events, concurrency 8; none at concurrency 1).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

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

/// Longest request line or header line read.
const MAX_LINE: u64 = 8 * 1024;

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A running server; stops when dropped or on [`Server::stop`].
pub struct Server {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
}

impl Server {
    /// Listen on `bind` (e.g. `127.0.0.1:0` for a free port) and serve.
    pub fn start(bind: &str, handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> io::Result<Server> {
        let listener = TcpListener::bind(bind)?;
        let addr = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let stop = stopping.clone();
        thread::Builder::new().name(format!("http-{addr}")).spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (h, s) = (handler.clone(), stop.clone());
                let _ = thread::Builder::new().name("http-conn".into()).spawn(move || serve(conn, &*h, &s));
            }
        })?;
        Ok(Server { addr, stopping })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn stop(&self) {
        if !self.stopping.swap(true, Ordering::Relaxed) {
            let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
            // wake accept()
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(conn: TcpStream, handler: &Handler, stopping: &AtomicBool) {
    let _ = conn.set_nodelay(true);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
    let mut reader = BufReader::new(match conn.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut writer = conn;
    loop {
        let req = match read_request(&mut reader, stopping) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(_) => {
                let _ = write_response(&mut writer, &Response::text(400, "bad request\n"), true);
                return;
            }
        };
        let close = req.header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let resp = handler(&req);
        if write_response(&mut writer, &resp, close).is_err() || close {
            return;
        }
    }
}

/// `None` when the peer closed (or the server stops) between requests.
fn read_request(reader: &mut BufReader<TcpStream>, stopping: &AtomicBool) -> io::Result<Option<Request>> {
    let mut first = String::new();
    loop {
        match reader.by_ref().take(MAX_LINE).read_line(&mut first) {
            Ok(0) => return Ok(None),
            Ok(_) if first.trim().is_empty() => first.clear(),
            Ok(_) => break,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) && first.is_empty() => {
                if stopping.load(Ordering::Relaxed) {
                    return Ok(None);
                }
            }
            Err(e) => return Err(e),
        }
    }
    let mut parts = first.split_whitespace();
    let (method, target) = match (parts.next(), parts.next()) {
        (Some(m), Some(t)) => (m.to_string(), t.to_string()),
        _ => return Err(io::ErrorKind::InvalidData.into()),
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target, String::new()),
    };
    let mut req = Request { method, path, query, ..Request::default() };
    loop {
        let mut line = String::new();
        if reader.by_ref().take(MAX_LINE).read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').ok_or(io::ErrorKind::InvalidData)?;
        req.headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        if req.headers.len() > 100 {
            return Err(io::ErrorKind::InvalidData.into());
        }
    }
    let len: u64 = match req.header("content-length") {
        Some(v) => v.parse().map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?,
        None => 0,
    };
    if len > 1 << 20 {
        return Err(io::ErrorKind::InvalidData.into());
    }
    reader.by_ref().take(len).read_to_end(&mut req.body)?;
    Ok(Some(req))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        410 => "Gone",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn write_response(w: &mut TcpStream, resp: &Response, close: bool) -> io::Result<()> {
    let mut out = Vec::with_capacity(128 + resp.body.len());
    write!(out, "HTTP/1.1 {} {}\r\nContent-Length: {}\r\n", resp.status, reason(resp.status), resp.body.len())?;
    for (k, v) in &resp.headers {
        write!(out, "{k}: {v}\r\n")?;
    }
    if close {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&resp.body);
    w.write_all(&out)
}
