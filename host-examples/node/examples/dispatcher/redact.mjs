// What may leave the dispatcher about a target or an error: never a query
// string (tokens live there), userinfo, an Authorization header, a signing
// secret or a Redis password.

/** `url` as scheme://host[:port]/path: no userinfo, no query, no fragment. */
export function safeTarget(url) {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** Blank secrets inside free text (a URL's password or query, whsec_ keys, bearer tokens). */
export function redactText(text) {
  return String(text)
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:@/\s"']*:)[^@/\s"']*@/gi, '$1***@')
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s?#"']*)\?[^\s#"']*/gi, '$1?***')
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_***')
    .replace(/(authorization\s*[:=]\s*)(?:(?:bearer|basic)\s+)?[^\s,;]+/gi, '$1***');
}
