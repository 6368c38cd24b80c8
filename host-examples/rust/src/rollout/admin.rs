//! The publisher's side (docs/rollout.md, "The commands"), on the `redis`
//! crate: read the record, change it with a compare-and-set (a small Lua
//! script on the record's key: the whole current text must still be what
//! was read, so the epoch cannot move under it; retried on a race), write
//! an artifact's hash, delete the hashes no record names, and list the
//! replicas' status records. Every key carries the `{rollout}` hash tag, so
//! on a Redis Cluster each script runs on the one node that holds them all.

use std::time::Duration;

use redis::cluster::ClusterClientBuilder;
use redis::{Client, ConnectionLike, IntoConnectionInfo, TlsCertificates, Value};

use super::{
    artifact_key, Canary, Record, ARTIFACT_KEY_PREFIX, MAX_PREVIOUS, MAX_RECORD_BYTES, REPLICAS_KEY, STATE_KEY,
};
use crate::tls::TrustRoots;

/// Why a command could not change or read the rollout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminError {
    /// The URL is not a Redis URL (a usage error; the message never echoes it).
    Url(String),
    /// The store failed: unreachable, timed out, or it answered an error.
    Store(String),
    /// The change was refused (no canary to promote, a canary in progress, an invalid record, ...).
    Refused(String),
}

impl std::fmt::Display for AdminError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdminError::Url(m) | AdminError::Refused(m) => f.write_str(m),
            AdminError::Store(m) => write!(f, "the store failed: {m}"),
        }
    }
}

impl std::error::Error for AdminError {}

fn store(e: redis::RedisError) -> AdminError {
    // The crate's text; it never holds the URL's password.
    AdminError::Store(e.to_string())
}

/// How many times a change is retried when another writer moved the record.
const CAS_TRIES: u32 = 16;

/// Set the record to ARGV[2] only if it is still ARGV[1] ("" = none), and
/// (with KEYS[2]) only if that artifact hash exists: 1 done, 0 the record
/// moved, -1 the artifact is gone.
const CAS_LUA: &str = r"
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
";

/// One page of SCAN on the node holding KEYS[1]: the artifact keys.
const SCAN_LUA: &str = r"
return redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', 500)
";

/// Delete each of KEYS[2..] whose sha256 (after ARGV[1] prefix bytes) the
/// current record does not name; the number deleted.
const GC_LUA: &str = r"
local rec = redis.call('GET', KEYS[1]) or ''
local n = 0
for i = 2, #KEYS do
  local sha = string.sub(KEYS[i], tonumber(ARGV[1]) + 1)
  if not string.find(rec, sha, 1, true) then n = n + redis.call('DEL', KEYS[i]) end
end
return n
";

/// A connection to the fleet's Redis: `redis://[USER[:PASSWORD]@]HOST:PORT[/DB]`
/// or `rediss://` (TLS, verified against `trust`: the platform's roots plus
/// `--ca-file`'s), standalone or a Cluster seed, every command bounded by `timeout`.
pub fn connect(
    url: &str,
    cluster: bool,
    timeout: Duration,
    trust: &TrustRoots,
) -> Result<Box<dyn ConnectionLike>, AdminError> {
    const FORM: &str = "the Redis URL must be redis://[user[:password]@]host[:port][/db] or rediss://... (TLS)";
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) || url.contains('#') {
        return Err(AdminError::Url(FORM.into()));
    }
    let certs = if url.starts_with("rediss://") {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Some(TlsCertificates { client_tls: None, root_cert: Some(trust.pem()) })
    } else {
        None
    };
    let info = url.into_connection_info().map_err(|_| AdminError::Url(FORM.into()))?;
    if cluster {
        let mut builder = ClusterClientBuilder::new(vec![info]).connection_timeout(timeout).response_timeout(timeout);
        if let Some(c) = certs {
            builder = builder.certs(c);
        }
        let client = builder.build().map_err(|_| AdminError::Url(FORM.into()))?;
        return Ok(Box::new(client.get_connection().map_err(store)?));
    }
    let client = match certs {
        Some(c) => Client::build_with_tls(info, c),
        None => Client::open(info),
    }
    .map_err(|_| AdminError::Url(FORM.into()))?;
    let conn = client.get_connection_with_timeout(timeout).map_err(store)?;
    conn.set_read_timeout(Some(timeout)).and_then(|_| conn.set_write_timeout(Some(timeout))).map_err(store)?;
    Ok(Box::new(conn))
}

/// The record text as stored, its first 4,097 bytes at most (more is
/// refused as the record's reader refuses it; `None`: nothing published).
fn record_text(conn: &mut dyn ConnectionLike) -> Result<Option<String>, AdminError> {
    let v: Vec<u8> = redis::cmd("GETRANGE").arg(STATE_KEY).arg(0).arg(MAX_RECORD_BYTES).query(conn).map_err(store)?;
    Ok((!v.is_empty()).then(|| String::from_utf8_lossy(&v).into_owned()))
}

/// The current record (`None`: nothing published); an invalid one is refused.
pub fn read_record(conn: &mut dyn ConnectionLike) -> Result<Option<Record>, AdminError> {
    parsed(record_text(conn)?.as_deref())
}

fn parsed(text: Option<&str>) -> Result<Option<Record>, AdminError> {
    text.map(|t| Record::parse(t).map_err(|e| AdminError::Refused(format!("the stored record: {e}")))).transpose()
}

/// Change the record with `change` (given the current one) by compare-and-set,
/// retried when another writer moved it; `must_exist` is an artifact hash
/// the new record needs (`publish`: re-written by `rewrite` if it vanished).
fn change(
    conn: &mut dyn ConnectionLike,
    must_exist: Option<&str>,
    mut rewrite: impl FnMut(&mut dyn ConnectionLike) -> Result<(), AdminError>,
    next: impl Fn(Option<&Record>) -> Result<Record, AdminError>,
) -> Result<Record, AdminError> {
    for _ in 0..CAS_TRIES {
        let text = record_text(conn)?;
        let current = parsed(text.as_deref())?;
        let new = next(current.as_ref())?;
        new.check().map_err(|e| AdminError::Refused(e.to_string()))?;
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(CAS_LUA).arg(1 + usize::from(must_exist.is_some())).arg(STATE_KEY);
        if let Some(key) = must_exist {
            cmd.arg(key);
        }
        let done: i64 = cmd.arg(text.unwrap_or_default()).arg(new.canonical()).query(conn).map_err(store)?;
        match done {
            1 => return Ok(new),
            -1 => rewrite(conn)?,
            _ => {}
        }
    }
    Err(AdminError::Refused(format!("the record kept changing under this command ({CAS_TRIES} tries): try again")))
}

/// `stable` becomes `sha`, the old stable first in `previous` (at most 5).
fn promote_to(r: &Record, sha: &str) -> Record {
    let mut previous = vec![r.stable.clone()];
    previous.extend(r.previous.iter().filter(|p| *p != sha && **p != r.stable).cloned());
    previous.truncate(MAX_PREVIOUS);
    Record { epoch: r.epoch + 1, stable: sha.to_string(), canary: None, previous }
}

/// The seven fields of an artifact's hash.
pub struct ArtifactFields<'a> {
    pub bytes: &'a [u8],
    pub sha256: &'a str,
    pub signature: &'a str,
    pub key_id: &'a str,
    pub abi: &'a str,
    pub document_version: &'a str,
    pub published_at_ms: u64,
}

fn write_artifact(conn: &mut dyn ConnectionLike, a: &ArtifactFields<'_>) -> Result<(), AdminError> {
    let mut cmd = redis::cmd("HSET");
    cmd.arg(artifact_key(a.sha256)).arg("bytes").arg(a.bytes);
    for (field, value) in
        [("signature", a.signature), ("key_id", a.key_id), ("abi", a.abi), ("document_version", a.document_version)]
    {
        cmd.arg(field).arg(value);
    }
    cmd.arg("size").arg(a.bytes.len()).arg("published_at_ms").arg(a.published_at_ms);
    cmd.query::<Value>(conn).map(drop).map_err(store)
}

/// `publish`: write the artifact's hash, then make it stable (or, with
/// `canary`, the canary at that percent), then delete the hashes the record
/// no longer names. The new record.
pub fn publish(
    conn: &mut dyn ConnectionLike,
    artifact: &ArtifactFields<'_>,
    canary: Option<u8>,
) -> Result<Record, AdminError> {
    write_artifact(conn, artifact)?;
    let sha = artifact.sha256;
    let key = artifact_key(sha);
    let changed = change(
        conn,
        Some(&key),
        |c| write_artifact(c, artifact),
        |cur| match (cur, canary) {
            (None, None) => Ok(Record { epoch: 1, stable: sha.into(), canary: None, previous: vec![] }),
            (None, Some(_)) => {
                Err(AdminError::Refused("no stable artifact yet: publish one without --canary first".into()))
            }
            (Some(r), _) if r.canary.is_some() => Err(AdminError::Refused(
                "a canary is in progress: `retry-policy rollout promote` or `rollback` it first".into(),
            )),
            (Some(r), _) if r.stable == sha => Err(AdminError::Refused(format!("{sha} is already stable"))),
            (Some(r), None) => Ok(promote_to(r, sha)),
            (Some(r), Some(percent)) => {
                Ok(Record { epoch: r.epoch + 1, canary: Some(Canary { sha256: sha.into(), percent }), ..r.clone() })
            }
        },
    );
    // A refused change leaves the hash written in step 3 unnamed: delete it too.
    collect_garbage(conn)?;
    changed
}

/// `rollout promote`: the canary becomes stable.
pub fn promote(conn: &mut dyn ConnectionLike) -> Result<Record, AdminError> {
    change(
        conn,
        None,
        |_| Ok(()),
        |cur| match cur.and_then(|r| r.canary.as_ref().map(|c| (r, c))) {
            Some((r, c)) => Ok(promote_to(r, &c.sha256)),
            None => Err(AdminError::Refused("no canary in progress: nothing to promote".into())),
        },
    )
}

/// `rollout rollback`: drop the canary, else return to `previous[0]`.
pub fn rollback(conn: &mut dyn ConnectionLike) -> Result<Record, AdminError> {
    change(
        conn,
        None,
        |_| Ok(()),
        |cur| {
            let r = cur.ok_or_else(|| AdminError::Refused("nothing is published: nothing to roll back".into()))?;
            if r.canary.is_some() {
                return Ok(Record { epoch: r.epoch + 1, canary: None, ..r.clone() });
            }
            match r.previous.split_first() {
                Some((back, rest)) => {
                    Ok(Record { epoch: r.epoch + 1, stable: back.clone(), canary: None, previous: rest.to_vec() })
                }
                None => Err(AdminError::Refused("no previous stable artifact to roll back to".into())),
            }
        },
    )
}

/// Delete the artifact hashes the current record does not name; how many.
pub fn collect_garbage(conn: &mut dyn ConnectionLike) -> Result<u64, AdminError> {
    let pattern = format!("{ARTIFACT_KEY_PREFIX}*");
    let (mut cursor, mut keys) = ("0".to_string(), Vec::<String>::new());
    loop {
        let (next, page): (String, Vec<String>) = redis::cmd("EVAL")
            .arg(SCAN_LUA)
            .arg(1)
            .arg(STATE_KEY)
            .arg(&cursor)
            .arg(&pattern)
            .query(conn)
            .map_err(store)?;
        keys.extend(page);
        cursor = next;
        if cursor == "0" {
            break;
        }
    }
    let mut deleted = 0;
    for chunk in keys.chunks(100) {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(GC_LUA).arg(1 + chunk.len()).arg(STATE_KEY).arg(chunk).arg(ARTIFACT_KEY_PREFIX.len());
        deleted += cmd.query::<u64>(conn).map_err(store)?;
    }
    Ok(deleted)
}

/// Every replica's status record (id, parsed JSON; unreadable ones are skipped).
pub fn replicas(conn: &mut dyn ConnectionLike) -> Result<Vec<(String, serde_json::Value)>, AdminError> {
    let all: Vec<(String, Vec<u8>)> = redis::cmd("HGETALL").arg(REPLICAS_KEY).query(conn).map_err(store)?;
    let mut out: Vec<(String, serde_json::Value)> =
        all.into_iter().filter_map(|(id, v)| serde_json::from_slice(&v).ok().map(|v| (id, v))).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
