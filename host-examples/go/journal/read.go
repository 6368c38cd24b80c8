package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"strconv"
	"unicode/utf8"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Hasher is the policy hash the component's admit gives a one-class
// document (an error when the component refuses the document).
type Hasher func(documentJSON []byte, class string) (string, error)

// ComponentHasher hashes through the policy artifact: load
// {"version": policy_version, "classes": {class: policy}} as a format-3
// document (load-health-document: a policy with its health section, or a
// format-2 one), compile the class and admit-compiled.
func ComponentHasher(ctx context.Context, engine *rp.Engine) Hasher {
	return func(doc []byte, class string) (string, error) {
		d, err := engine.LoadHealthDocument(ctx, doc)
		if err != nil {
			return "", err
		}
		for _, c := range d.Classes {
			if c.Name != class {
				continue
			}
			compiled, err := engine.Compile(ctx, c.Policy, c.Health)
			if err != nil {
				return "", err
			}
			defer compiled.Close()
			a, err := compiled.Admit(ctx, class, d.Version, 0)
			if err != nil {
				return "", err
			}
			return a.PolicyHash, nil
		}
		return "", fmt.Errorf("journal: the document has no class %q", class)
	}
}

// Entry is the newest record of an event and its line.
type Entry struct {
	Line   int
	Record Record
}

// Recovered is what a journal holds (docs/journal.md, "Reading").
type Recovered struct {
	Events    []Entry // the newest record of each event, in first-seen order
	Records   int     // complete records kept, the header included
	GoodLen   int64   // bytes of the good prefix (a torn tail is cut back to it)
	TornBytes int64   // bytes of a torn last line (0: none)
}

// checked is the JSON of a `<crc> <json>` line whose CRC checks out.
func checked(content []byte) ([]byte, error) {
	if len(content) < 10 || content[8] != ' ' {
		return nil, errors.New("not `<crc> <json>`")
	}
	if !isLowerHex(string(content[:8])) {
		return nil, errors.New("the CRC is not 8 lowercase hex digits")
	}
	want, _ := strconv.ParseUint(string(content[:8]), 16, 32)
	payload := content[9:]
	if crc32.ChecksumIEEE(payload) != uint32(want) {
		return nil, errors.New("the CRC does not match")
	}
	if !utf8.Valid(payload) || !json.Valid(payload) {
		return nil, errors.New("not JSON")
	}
	return payload, nil
}

// Read reads a whole journal's bytes: CRC and JSON per line, a torn tail
// (the last line only), a bad line anywhere else refused, the newest
// record per event, each one's policy checked against its policy_hash
// through hash. Every refusal is an *Error.
func Read(data []byte, hash Hasher) (*Recovered, error) {
	index := map[string]int{} // event_id -> position in out.Events
	out := &Recovered{}
	start, line := 0, 0
	for start < len(data) {
		line++
		nl := bytes.IndexByte(data[start:], '\n')
		if nl < 0 {
			break // no LF: a torn tail
		}
		end := start + nl
		isLast := end+1 == len(data)
		payload, err := checked(data[start:end])
		if err != nil {
			if isLast {
				break
			}
			if line == 1 {
				return nil, &Error{Code: CodeUnsupported, Line: 1, Message: "the first line is not a header: " + err.Error()}
			}
			return nil, &Error{Code: CodeCorrupt, Line: line, Message: err.Error()}
		}
		t, version, kerr := kind(payload, line)
		if kerr != nil {
			return nil, kerr
		}
		switch {
		case line == 1 && t == "header":
			if herr := checkHeader(payload, line); herr != nil {
				return nil, herr
			}
		case line == 1:
			return nil, &Error{Code: CodeUnsupported, Line: 1, Message: fmt.Sprintf("the first record is %q, not a header", t)}
		case t == "event":
			rec, perr := parseEvent(payload, line, version)
			if perr != nil {
				return nil, perr
			}
			if i, ok := index[rec.EventID]; ok { // an update keeps the first-seen position
				out.Events[i] = Entry{line, rec}
			} else {
				index[rec.EventID] = len(out.Events)
				out.Events = append(out.Events, Entry{line, rec})
			}
		case t == "header":
			return nil, invalid(line, "type", "a header after the first line")
		default:
			return nil, invalid(line, "type", strconv.Quote(t)+" is not header or event")
		}
		out.Records++
		start = end + 1
		out.GoodLen = int64(start)
	}
	out.TornBytes = int64(len(data)) - out.GoodLen
	markReplayed(out.Events)
	if err := checkPolicies(out.Events, hash); err != nil {
		return nil, err
	}
	return out, nil
}

// checkPolicies checks that each event's policy hashes to its policy_hash
// (one component call per distinct document and class).
func checkPolicies(events []Entry, hash Hasher) error {
	type result struct {
		hash string
		err  error
	}
	seen := map[[2]string]result{}
	for _, e := range events {
		doc, err := hashDocument(&e.Record)
		if err != nil {
			return invalid(e.Line, "policy", "cannot be hashed: "+err.Error())
		}
		key := [2]string{string(doc), e.Record.Class}
		got, ok := seen[key]
		if !ok {
			got.hash, got.err = hash(doc, e.Record.Class)
			seen[key] = got
		}
		if got.err != nil {
			return &Error{Code: CodeRecordInvalid, Line: e.Line, Field: "policy", Message: "refused by the component", Err: got.err}
		}
		if got.hash != e.Record.PolicyHash {
			return invalid(e.Line, "policy", "hashes to "+got.hash+", not to policy_hash "+e.Record.PolicyHash)
		}
	}
	return nil
}

// ReadFile reads another process's journal: no lock taken, nothing
// written (a torn tail is left as it is). The newest record of each
// event, in first-seen order.
func ReadFile(path string, hash Hasher) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	found, err := Read(data, hash)
	if err != nil {
		if je := (*Error)(nil); errors.As(err, &je) {
			je.Path = path
		}
		return nil, err
	}
	out := make([]Record, len(found.Events))
	for i, e := range found.Events {
		out[i] = e.Record
	}
	return out, nil
}
