//! Secrets stay out of what is logged, dead-lettered or exported: a target
//! URL is shown without its userinfo, query string and fragment (where
//! tokens live: `?token=...`, `user:password@`). Redis URLs are redacted by
//! [`crate::resp::RedisUrl`]'s `Debug`, and signing secrets by
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

#[cfg(test)]
mod tests {
    use super::target;

    #[test]
    fn userinfo_query_and_fragment_are_dropped_and_the_rest_is_kept() {
        assert_eq!(target("http://user:pw@hooks.test:8080/in?token=s3cret#x"), "http://hooks.test:8080/in");
        assert_eq!(target("http://hooks.test?sig=abc"), "http://hooks.test");
        assert_eq!(target("http://a@b@hooks.test/p"), "http://hooks.test/p");
        assert_eq!(target("http://h/p\r\nX: y"), "http://h/pX: y");
        assert_eq!(target("token=abc"), "<unparsable url>");
    }
}
