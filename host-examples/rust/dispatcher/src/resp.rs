//! A minimal Redis client (RESP2 over `std::net`) for the budget store:
//! connect from a `redis://[:password@]host[:port][/db]` URL, send one
//! command, read its reply. Not the `redis` crate, for the reason in
//! `Cargo.toml` (it would compile wasmtime a second time).
//!
//! Every read is bounded, whatever the server sends: a line is at most
//! 64 KiB, a bulk string at most 64 KiB (read as it arrives, never
//! pre-allocated from the length the server claims), an array at most 64
//! items and 4 levels deep. The budget script answers five integers.
//! Messages never echo the URL (it may carry a password).

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

const MAX_LINE: u64 = 64 * 1024;
const MAX_BULK: i64 = 64 * 1024;
const MAX_ITEMS: i64 = 64;
const MAX_DEPTH: u32 = 4;

/// Where Redis is.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisUrl {
    pub authority: String,
    pub password: Option<String>,
    pub db: u32,
}

impl fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pw = if self.password.is_some() { "Some(<redacted>)" } else { "None" };
        write!(f, "RedisUrl {{ authority: {:?}, password: {pw}, db: {} }}", self.authority, self.db)
    }
}

impl RedisUrl {
    /// `redis://[[user]:password@]host[:port][/db]`; a clear message otherwise.
    pub fn parse(url: &str) -> Result<RedisUrl, String> {
        let rest = url
            .strip_prefix("redis://")
            .ok_or("the Redis URL must start with redis:// (rediss:// is not supported)")?;
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((a, r)) => (Some(a), r),
            None => (None, rest),
        };
        let password = auth.map(|a| a.split_once(':').map_or(a, |(_, p)| p).to_string()).filter(|p| !p.is_empty());
        let (hostport, db) = match rest.split_once('/') {
            Some((h, "")) => (h, 0),
            Some((h, d)) => (h, d.parse().map_err(|_| "the Redis URL's database is not a number".to_string())?),
            None => (rest, 0),
        };
        if hostport.is_empty() || hostport.chars().any(|c| c.is_control() || c == ' ') {
            return Err("the Redis URL has no valid host".into());
        }
        let authority = match hostport.rsplit_once(':') {
            Some((_, port)) if !hostport.ends_with(']') && port.parse::<u16>().is_err() => {
                return Err("the Redis URL's port is not a number".into())
            }
            Some(_) if !hostport.ends_with(']') => hostport.to_string(),
            _ => format!("{hostport}:6379"),
        };
        Ok(RedisUrl { authority, password, db })
    }
}

/// A reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

/// Why a command failed.
#[derive(Debug)]
pub enum RedisError {
    /// Connection refused, reset, timed out: the connection is unusable.
    Io(io::Error),
    /// Redis answered an error reply (`NOSCRIPT ...`, the script's own errors).
    Server(String),
    /// A reply that does not parse or breaks a bound: the connection is unusable.
    Protocol(String),
}

impl RedisError {
    pub fn is_noscript(&self) -> bool {
        matches!(self, RedisError::Server(m) if m.starts_with("NOSCRIPT"))
    }
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisError::Io(e) if matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
                write!(f, "redis: the store call timed out")
            }
            RedisError::Io(e) => write!(f, "redis unreachable: {e}"),
            RedisError::Server(m) => write!(f, "redis error: {}", m.chars().take(200).collect::<String>()),
            RedisError::Protocol(m) => write!(f, "redis protocol error: {m}"),
        }
    }
}

impl From<io::Error> for RedisError {
    fn from(e: io::Error) -> Self {
        RedisError::Io(e)
    }
}

fn left(deadline: Instant) -> io::Result<Duration> {
    let d = deadline.saturating_duration_since(Instant::now());
    if d.is_zero() {
        Err(io::ErrorKind::TimedOut.into())
    } else {
        Ok(d)
    }
}

/// One connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
}

impl Connection {
    /// Connect (and AUTH / SELECT when the URL asks) before `deadline`.
    pub fn open(url: &RedisUrl, deadline: Instant) -> Result<Connection, RedisError> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the Redis host has no address");
        for addr in url.authority.to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, left(deadline)?) {
                Ok(s) => {
                    s.set_nodelay(true)?;
                    let mut c = Connection { reader: BufReader::new(s) };
                    if let Some(p) = &url.password {
                        c.command(&[b"AUTH", p.as_bytes()], deadline)?;
                    }
                    if url.db != 0 {
                        c.command(&[b"SELECT", url.db.to_string().as_bytes()], deadline)?;
                    }
                    return Ok(c);
                }
                Err(e) => last = e,
            }
        }
        Err(RedisError::Io(last))
    }

    /// One command, one round trip, done before `deadline`.
    pub fn command(&mut self, args: &[&[u8]], deadline: Instant) -> Result<Reply, RedisError> {
        let mut out = Vec::new();
        write!(out, "*{}\r\n", args.len())?;
        for a in args {
            write!(out, "${}\r\n", a.len())?;
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        let s = self.reader.get_mut();
        s.set_write_timeout(Some(left(deadline)?))?;
        s.write_all(&out)?;
        read_reply(&mut self.reader, deadline, 0)
    }
}

fn line<R: BufRead>(r: &mut R) -> Result<String, RedisError> {
    let mut buf = Vec::new();
    if r.take(MAX_LINE).read_until(b'\n', &mut buf)? == 0 {
        return Err(RedisError::Io(io::ErrorKind::UnexpectedEof.into()));
    }
    if !buf.ends_with(b"\r\n") {
        return Err(RedisError::Protocol("a reply line is unterminated or longer than 64 KiB".into()));
    }
    buf.truncate(buf.len() - 2);
    String::from_utf8(buf).map_err(|_| RedisError::Protocol("a reply line is not UTF-8".into()))
}

fn int(s: &str) -> Result<i64, RedisError> {
    s.parse().map_err(|_| RedisError::Protocol("a reply length or integer is not a number".into()))
}

/// Read one reply; the read timeout follows the deadline.
pub(crate) fn read_reply(r: &mut BufReader<TcpStream>, deadline: Instant, depth: u32) -> Result<Reply, RedisError> {
    r.get_ref().set_read_timeout(Some(left(deadline)?))?;
    parse(r, depth, &mut |r| {
        r.get_ref().set_read_timeout(Some(left(deadline)?))?;
        Ok(())
    })
}

fn parse<R: BufRead>(
    r: &mut R,
    depth: u32,
    tick: &mut dyn FnMut(&mut R) -> io::Result<()>,
) -> Result<Reply, RedisError> {
    if depth > MAX_DEPTH {
        return Err(RedisError::Protocol("a reply is nested too deep".into()));
    }
    tick(r)?;
    let l = line(r)?;
    let (kind, rest) = (l.get(..1).unwrap_or(""), l.get(1..).unwrap_or(""));
    Ok(match kind {
        "+" => Reply::Simple(rest.to_string()),
        "-" => return Err(RedisError::Server(rest.to_string())),
        ":" => Reply::Int(int(rest)?),
        "$" => match int(rest)? {
            -1 => Reply::Bulk(None),
            n if (0..=MAX_BULK).contains(&n) => {
                let mut buf = Vec::new();
                r.take(n as u64 + 2).read_to_end(&mut buf)?;
                if buf.len() as i64 != n + 2 || !buf.ends_with(b"\r\n") {
                    return Err(RedisError::Protocol("a bulk reply was cut short".into()));
                }
                buf.truncate(n as usize);
                Reply::Bulk(Some(buf))
            }
            _ => return Err(RedisError::Protocol("a bulk reply is longer than 64 KiB".into())),
        },
        "*" => match int(rest)? {
            -1 => Reply::Array(None),
            n if (0..=MAX_ITEMS).contains(&n) => {
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(parse(r, depth + 1, tick)?);
                }
                Reply::Array(Some(items))
            }
            _ => return Err(RedisError::Protocol("an array reply has more than 64 items".into())),
        },
        _ => return Err(RedisError::Protocol("an unknown reply type".into())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_bytes(b: &[u8]) -> Result<Reply, RedisError> {
        parse(&mut io::BufReader::new(b), 0, &mut |_| Ok(()))
    }

    #[test]
    fn a_full_url_gives_host_port_password_and_db_and_debug_hides_the_password() {
        let u = RedisUrl::parse("redis://:s3cret@10.0.0.5:6380/2").unwrap();
        assert_eq!((u.authority.as_str(), u.password.as_deref(), u.db), ("10.0.0.5:6380", Some("s3cret"), 2));
        assert!(!format!("{u:?}").contains("s3cret"));
        let u = RedisUrl::parse("redis://localhost").unwrap();
        assert_eq!((u.authority.as_str(), u.db, u.password), ("localhost:6379", 0, None));
    }

    #[test]
    fn urls_that_are_not_redis_urls_are_refused_without_echoing_them() {
        for bad in ["http://:pw@x", "redis://h:port", "redis://:pw@h:1/x", "redis://"] {
            let e = RedisUrl::parse(bad).unwrap_err();
            assert!(e.contains("Redis URL") && !e.contains("pw"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_scripts_reply_and_error_replies_parse() {
        let r = parse_bytes(b"*5\r\n:1\r\n:10\r\n:2\r\n:7\r\n:0\r\n").unwrap();
        assert_eq!(r, Reply::Array(Some([1, 10, 2, 7, 0].map(Reply::Int).to_vec())));
        assert!(parse_bytes(b"-NOSCRIPT No matching script.\r\n").unwrap_err().is_noscript());
    }

    #[test]
    fn hostile_replies_are_refused_without_allocating_what_they_claim() {
        for bad in [
            &b"$536870912\r\nab"[..],
            b"*100000000\r\n",
            b"$5\r\nab",
            b"*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
            b"?what\r\n",
            b":12x\r\n",
        ] {
            assert!(matches!(parse_bytes(bad), Err(RedisError::Protocol(_)) | Err(RedisError::Io(_))), "{bad:?}");
        }
        let endless = vec![b'+'; 200_000];
        assert!(matches!(parse_bytes(&endless), Err(RedisError::Protocol(_))));
    }
}
