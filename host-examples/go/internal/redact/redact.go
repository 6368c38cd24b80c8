// Package redact makes URLs fit for logs, error messages, metrics and
// dead letters: no user info (Redis passwords, basic-auth credentials), no
// query string and no fragment (where tokens live).
package redact

import "net/url"

// URL is raw without user info, query or fragment. A URL that does not
// parse is not echoed at all.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparseable URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
