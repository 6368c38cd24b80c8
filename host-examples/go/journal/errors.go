package journal

import (
	"fmt"
	"strings"
)

// Code is one of docs/journal.md's error codes.
type Code string

// The error codes of docs/journal.md, "Errors".
const (
	// CodeUnsupported: no header, or a `v` other than 1 or 2.
	CodeUnsupported Code = "journal_unsupported"
	// CodeCorrupt: a bad line (CRC or JSON) before the last one.
	CodeCorrupt Code = "journal_corrupt"
	// CodeRecordInvalid: a complete record that breaks the record table
	// (Field named), or a policy that does not hash to its policy_hash.
	CodeRecordInvalid Code = "journal_record_invalid"
	// CodeLocked: another live writer holds `<journal>.lock` (Holder named).
	CodeLocked Code = "journal_locked"
	// CodeIO: the file system refused (Path and the OS error in Err).
	CodeIO Code = "journal_io"
)

// Error is every refusal of this package (errors.As; never a panic).
type Error struct {
	Code    Code
	Line    int    // 1-based line of the journal (0: not about a line)
	Field   string // the record's field, dotted ("policy.backoff.factor"; "" when none)
	Path    string // the file, for journal_io and journal_locked
	Holder  string // journal_locked: who holds the lock
	Message string
	Err     error // the cause (an OS error for journal_io)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "`%s` ", e.Field)
	}
	b.WriteString(e.Message)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

func invalid(line int, field, why string) *Error {
	return &Error{Code: CodeRecordInvalid, Line: line, Field: field, Message: why}
}

func ioError(path string, err error) *Error {
	return &Error{Code: CodeIO, Path: path, Message: "the file system refused", Err: err}
}
