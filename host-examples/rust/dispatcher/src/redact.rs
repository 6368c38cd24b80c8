//! Secrets stay out of what is logged, dead-lettered or exported: a target
//! URL is shown without its userinfo, query string and fragment (where
//! tokens live: `?token=...`, `user:password@`). Redis URLs are never
//! echoed ([`crate::redis_pool`] has no `Debug`), and signing secrets by
//! [`crate::signing::Secret`]'s.

/// `scheme://host[:port]/path` of `url`, without userinfo, query or
/// fragment; `<unparsable url>` when it has no `scheme://`.
pub fn target(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "<unparsable url>".into();
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let clean = |s: &str| s.chars().filter(|c| !c.is_control()).collect::<String>();
    format!("{}://{}{}", clean(scheme), clean(host), clean(path))
}

/// `msg` as one log line: control characters (CR, LF, ESC, ...) in ids or
/// error texts, which a producer or an endpoint may choose, are written as
/// escapes (`\r`, `\n`, `\u{1b}`), so no one can forge a log line or
/// drive a terminal through the dispatcher's log.
pub fn log_line(msg: &str) -> String {
    if !msg.chars().any(char::is_control) {
        return msg.to_string();
    }
    msg.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(test)]
#[path = "tests_redact.rs"]
mod tests;
