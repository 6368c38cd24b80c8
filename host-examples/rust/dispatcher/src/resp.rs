//! A minimal Redis client (RESP2 over `std::net`): connect from a
//! `redis://[:password@]host[:port][/db]` URL, send commands (several in one
//! write = one round trip), read replies. What the budget counter needs and
//! nothing more, so the dispatcher pulls in no async runtime and no crates.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Where Redis is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisUrl {
    pub authority: String,
    pub password: Option<String>,
    pub db: u32,
}

impl RedisUrl {
    /// `redis://[:password@]host[:port][/db]`; a clear message otherwise.
    pub fn parse(url: &str) -> Result<RedisUrl, String> {
        let rest = url
            .strip_prefix("redis://")
            .ok_or_else(|| format!("redis URL `{url}` must start with redis:// (rediss:// is not supported)"))?;
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((a, r)) => (Some(a), r),
            None => (None, rest),
        };
        let password = auth.map(|a| a.split_once(':').map_or(a, |(_, p)| p).to_string()).filter(|p| !p.is_empty());
        let (hostport, db) = match rest.split_once('/') {
            Some((h, "")) => (h, 0),
            Some((h, d)) => (h, d.parse().map_err(|_| format!("redis URL `{url}`: database `{d}` is not a number"))?),
            None => (rest, 0),
        };
        if hostport.is_empty() {
            return Err(format!("redis URL `{url}` has no host"));
        }
        let authority = match hostport.rsplit_once(':') {
            Some((_, port)) if port.parse::<u16>().is_err() => {
                return Err(format!("redis URL `{url}`: port `{port}` is not a number"))
            }
            Some(_) => hostport.to_string(),
            None => format!("{hostport}:6379"),
        };
        Ok(RedisUrl { authority, password, db })
    }
}

/// A reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

/// Why a command failed.
#[derive(Debug)]
pub enum RedisError {
    /// Connection refused, reset, timed out: the store is unreachable.
    Io(io::Error),
    /// Redis answered with an error reply (e.g. `NOSCRIPT ...`).
    Server(String),
    /// A reply that does not parse or has the wrong shape.
    Protocol(String),
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisError::Io(e) => write!(f, "redis unreachable: {e}"),
            RedisError::Server(m) => write!(f, "redis error: {m}"),
            RedisError::Protocol(m) => write!(f, "redis protocol error: {m}"),
        }
    }
}

impl From<io::Error> for RedisError {
    fn from(e: io::Error) -> Self {
        RedisError::Io(e)
    }
}

/// One connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
}

impl Connection {
    /// Connect (and AUTH / SELECT when the URL asks).
    pub fn open(url: &RedisUrl, timeout: Duration) -> Result<Connection, RedisError> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{}: no address", url.authority));
        for addr in url.authority.to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    s.set_nodelay(true)?;
                    s.set_read_timeout(Some(timeout))?;
                    s.set_write_timeout(Some(timeout))?;
                    let mut c = Connection { reader: BufReader::new(s) };
                    if let Some(p) = &url.password {
                        c.command(&[b"AUTH", p.as_bytes()])?;
                    }
                    if url.db != 0 {
                        c.command(&[b"SELECT", url.db.to_string().as_bytes()])?;
                    }
                    return Ok(c);
                }
                Err(e) => last = e,
            }
        }
        Err(RedisError::Io(last))
    }

    /// One command, one round trip; an error reply is `RedisError::Server`.
    pub fn command(&mut self, args: &[&[u8]]) -> Result<Reply, RedisError> {
        self.pipeline(&[args.to_vec()])?.pop().ok_or_else(|| RedisError::Protocol("no reply".into()))?
    }

    /// Several commands in one write and one round trip; one result each.
    pub fn pipeline(&mut self, commands: &[Vec<&[u8]>]) -> Result<Vec<Result<Reply, RedisError>>, RedisError> {
        let mut out = Vec::new();
        for args in commands {
            write!(out, "*{}\r\n", args.len())?;
            for a in args {
                write!(out, "${}\r\n", a.len())?;
                out.extend_from_slice(a);
                out.extend_from_slice(b"\r\n");
            }
        }
        self.reader.get_mut().write_all(&out)?;
        let mut replies = Vec::with_capacity(commands.len());
        for _ in commands {
            replies.push(match read_reply(&mut self.reader, 0)? {
                Reply::Error(m) => Err(RedisError::Server(m)),
                r => Ok(r),
            });
        }
        Ok(replies)
    }
}

fn line(r: &mut BufReader<TcpStream>) -> Result<String, RedisError> {
    let mut s = String::new();
    if r.read_line(&mut s)? == 0 {
        return Err(RedisError::Io(io::ErrorKind::UnexpectedEof.into()));
    }
    if !s.ends_with("\r\n") {
        return Err(RedisError::Protocol(format!("unterminated line {s:?}")));
    }
    s.truncate(s.len() - 2);
    Ok(s)
}

fn int(s: &str) -> Result<i64, RedisError> {
    s.parse().map_err(|_| RedisError::Protocol(format!("not an integer: {s:?}")))
}

fn read_reply(r: &mut BufReader<TcpStream>, depth: u32) -> Result<Reply, RedisError> {
    if depth > 8 {
        return Err(RedisError::Protocol("reply nested too deep".into()));
    }
    let l = line(r)?;
    let (kind, rest) = (l.get(..1).unwrap_or(""), l.get(1..).unwrap_or(""));
    Ok(match kind {
        "+" => Reply::Simple(rest.to_string()),
        "-" => Reply::Error(rest.to_string()),
        ":" => Reply::Int(int(rest)?),
        "$" => match int(rest)? {
            -1 => Reply::Bulk(None),
            n if (0..=512 << 20).contains(&n) => {
                let mut buf = vec![0; n as usize + 2];
                r.read_exact(&mut buf)?;
                buf.truncate(n as usize);
                Reply::Bulk(Some(buf))
            }
            n => return Err(RedisError::Protocol(format!("bulk length {n}"))),
        },
        "*" => match int(rest)? {
            -1 => Reply::Array(None),
            n if (0..=1 << 20).contains(&n) => {
                let mut items = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    items.push(read_reply(r, depth + 1)?);
                }
                Reply::Array(Some(items))
            }
            n => return Err(RedisError::Protocol(format!("array length {n}"))),
        },
        _ => return Err(RedisError::Protocol(format!("unknown reply {l:?}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_gives_host_port_password_and_db() {
        let u = RedisUrl::parse("redis://:s3cret@10.0.0.5:6380/2").unwrap();
        assert_eq!(u, RedisUrl { authority: "10.0.0.5:6380".into(), password: Some("s3cret".into()), db: 2 });
    }

    #[test]
    fn a_bare_host_gets_the_default_port_and_db_zero() {
        let u = RedisUrl::parse("redis://localhost").unwrap();
        assert_eq!((u.authority.as_str(), u.db, u.password), ("localhost:6379", 0, None));
    }

    #[test]
    fn urls_that_are_not_redis_urls_are_refused_with_a_reason() {
        assert!(RedisUrl::parse("http://x").unwrap_err().contains("redis://"));
        assert!(RedisUrl::parse("redis://h:port").unwrap_err().contains("port"));
        assert!(RedisUrl::parse("redis://h:1/x").unwrap_err().contains("database"));
    }
}
