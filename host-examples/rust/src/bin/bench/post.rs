//! One loopback POST with ureq (the dispatcher's HTTP client) against a
//! tiny_http server answering 204, keep-alive: the cost a decision is
//! weighed against.

use std::time::Instant;

/// A server on 127.0.0.1 answering every request 204; returns its URL.
pub fn serve() -> Result<String, Box<dyn std::error::Error>> {
    let server = tiny_http::Server::http("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = server.server_addr().to_ip().ok_or("no ip address")?;
    std::thread::spawn(move || {
        for req in server.incoming_requests() {
            let _ = req.respond(tiny_http::Response::empty(204));
        }
    });
    Ok(format!("http://{addr}/hook"))
}

/// ns per POST of a small JSON body, over `iters` requests on one agent.
pub fn time_post_ns(url: &str, iters: u32) -> Result<f64, Box<dyn std::error::Error>> {
    let agent = ureq::Agent::new_with_defaults();
    let body = br#"{"event_id":"evt_00001","type":"invoice.paid"}"#;
    for _ in 0..iters / 10 + 1 {
        agent.post(url).header("content-type", "application/json").send(&body[..])?;
    }
    let t = Instant::now();
    for _ in 0..iters {
        agent.post(url).header("content-type", "application/json").send(&body[..])?;
    }
    Ok(t.elapsed().as_nanos() as f64 / f64::from(iters))
}
