// What may leave the dispatcher in an error or a log line: never a query
// string (tokens live there), userinfo, an Authorization header, a signing
// secret or a Redis password. (Dead-letter records' targets are the engine's.)

/** Blank secrets inside free text (a URL's password or query, whsec_ keys, bearer tokens). */
export function redactText(text) {
  return String(text)
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:@/\s"']*:)[^@/\s"']*@/gi, '$1***@')
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s?#"']*)\?[^\s#"']*/gi, '$1?***')
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_***')
    .replace(/(authorization\s*[:=]\s*)(?:(?:bearer|basic)\s+)?[^\s,;]+/gi, '$1***');
}
