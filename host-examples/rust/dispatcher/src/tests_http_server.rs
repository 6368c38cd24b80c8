//! The server on raw sockets: keep-alive under a burst of clients, the
//! request as the handler sees it, bounded bodies, invalid responses, stop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use super::*;

/// One response on a kept-alive connection: (status, body).
fn read_response(r: &mut BufReader<TcpStream>) -> std::io::Result<(u16, String)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        if h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

fn echo_server() -> Server {
    Server::start("127.0.0.1:0", |req| {
        let body = format!(
            "{} {} q={} x-attempt={} body={}",
            req.method,
            req.path,
            req.query,
            req.header("x-attempt").unwrap_or("-"),
            String::from_utf8_lossy(&req.body)
        );
        Response::text(200, body)
    })
    .unwrap()
}

#[test]
fn eight_keep_alive_clients_at_once_are_all_answered() {
    let server = echo_server();
    let addr = server.addr();
    let barrier = Arc::new(Barrier::new(8));
    let clients: Vec<_> = (0..8)
        .map(|i| {
            let barrier = barrier.clone();
            std::thread::spawn(move || -> std::io::Result<Vec<u16>> {
                let conn = TcpStream::connect(addr)?;
                conn.set_read_timeout(Some(Duration::from_secs(3)))?;
                let mut reader = BufReader::new(conn.try_clone()?);
                let mut w = conn;
                barrier.wait();
                let mut statuses = Vec::new();
                for n in 0..3 {
                    write!(w, "POST /c{i} HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\n{n}")?;
                    statuses.push(read_response(&mut reader)?.0);
                }
                Ok(statuses)
            })
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().unwrap().expect("every request answered within 3 s"), vec![200, 200, 200]);
    }
}

#[test]
fn the_handler_sees_method_path_query_lower_cased_headers_and_body() {
    let server = echo_server();
    let mut conn = TcpStream::connect(server.addr()).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    write!(conn, "POST /webhook?a=1 HTTP/1.1\r\nHost: t\r\nX-Attempt: 2\r\nContent-Length: 5\r\n\r\nhello").unwrap();
    let (status, body) = read_response(&mut BufReader::new(conn)).unwrap();
    assert_eq!((status, body.as_str()), (200, "POST /webhook q=a=1 x-attempt=2 body=hello"));
}

#[test]
fn a_body_over_one_mib_is_answered_413_without_reaching_the_handler() {
    let server = Server::start("127.0.0.1:0", |_| panic!("the handler must not see it")).unwrap();
    let mut conn = TcpStream::connect(server.addr()).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let len = MAX_BODY + 1;
    // The declared length is enough: the answer comes before any body byte.
    write!(conn, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: {len}\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut BufReader::new(conn)).unwrap().0, 413);
}

#[test]
fn a_response_hyper_refuses_becomes_a_500_and_the_server_keeps_serving() {
    let server = Server::start("127.0.0.1:0", |req| match req.path.as_str() {
        "/bad-status" => Response::text(1000, "?"),
        "/bad-header" => Response::new(200, "text/plain\r\nX-Injected: 1", "?"),
        _ => Response::text(200, "fine"),
    })
    .unwrap();
    let conn = TcpStream::connect(server.addr()).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut w = conn;
    for (path, want) in [("/bad-status", 500), ("/bad-header", 500), ("/ok", 200)] {
        write!(w, "GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
        assert_eq!(read_response(&mut reader).unwrap().0, want, "{path}");
    }
}

#[test]
fn stop_closes_the_listener_and_open_connections() {
    let server = echo_server();
    let addr = server.addr();
    let mut conn = TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    server.stop();
    assert!(TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err(), "the port is closed");
    let mut buf = [0u8; 16];
    let _ = write!(conn, "GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert!(matches!(conn.read(&mut buf), Ok(0) | Err(_)), "the kept connection is closed");
}
