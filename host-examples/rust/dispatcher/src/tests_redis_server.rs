//! Throwaway `redis-server`s for the store's tests (Debian's, on a free
//! loopback port, nothing saved), and certificates made at test time with
//! the `openssl` CLI. A test needing a server it cannot start says so on
//! stderr and returns (Redis is not installed here).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running redis-server, killed on drop.
pub struct RedisServer {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

/// A free loopback port (bound then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// A fresh directory under the system's temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rpd-redis-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

fn installed(exe: &str) -> bool {
    Command::new(exe).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

impl RedisServer {
    /// `redis-server` listening on a free port (plain TCP unless `args`
    /// say `--port 0 --tls-port PORT`: then pass `port`), with `args`
    /// added; `None` when redis-server is not installed.
    pub fn start(name: &str, args: &[String], port: Option<u16>) -> Option<RedisServer> {
        if !installed("redis-server") {
            eprintln!("SKIPPED: redis-server is not installed (scripts/ensure-test-deps installs Debian's)");
            return None;
        }
        let dir = temp_dir(name);
        let port = port.unwrap_or_else(free_port);
        let mut cmd = Command::new("redis-server");
        cmd.args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd.spawn().expect("redis-server starts");
        let server = RedisServer { child, port, dir };
        let t = Instant::now();
        while TcpStream::connect(("127.0.0.1", server.port)).is_err() {
            assert!(t.elapsed() < Duration::from_secs(10), "redis-server did not listen on {}", server.port);
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    /// A plain admin connection (default user, no password).
    pub fn admin(&self) -> redis::Connection {
        let client = redis::Client::open(format!("redis://127.0.0.1:{}/0", self.port)).expect("a client");
        client.get_connection_with_timeout(Duration::from_secs(5)).expect("an admin connection")
    }

    /// SIGSTOP (`true`) or SIGCONT (`false`): a hung Redis and its waking.
    pub fn pause(&self, stop: bool) {
        let sig = if stop { libc::SIGSTOP } else { libc::SIGCONT };
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(self.child.id() as libc::pid_t, sig) }, 0);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.pause(false);
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A private CA and a server certificate it signed for 127.0.0.1 and
/// localhost, made with the `openssl` CLI: (ca.pem, server.pem, server.key).
pub fn make_certs(dir: &Path) -> Option<(PathBuf, PathBuf, PathBuf)> {
    if !Command::new("openssl").arg("version").stdout(Stdio::null()).status().is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: the openssl CLI is not installed");
        return None;
    }
    let p = |f: &str| dir.join(f);
    let ext = p("san.ext");
    std::fs::write(&ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n").expect("write san.ext");
    let run = |args: &[&str]| {
        let out = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    // The CA (openssl's v3_ca: basicConstraints CA:TRUE), then the server's.
    run(&[&["req", "-x509", "-days", "2", "-subj", "/CN=rpd test CA", "-keyout", "ca.key", "-out", "ca.pem"][..], &ec]
        .concat());
    run(&[&["req", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"][..], &ec].concat());
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "server.pem",
    ]);
    Some((p("ca.pem"), p("server.pem"), p("server.key")))
}
