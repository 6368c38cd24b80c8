package journal

// Code is one of docs/journal.md's error codes this package gives (the
// format's own codes are the engine's).
type Code string

const (
	// CodeLocked: another live writer holds `<journal>.lock` (Holder named).
	CodeLocked Code = "journal_locked"
	// CodeIO: the file system refused (Path and the OS error in Err).
	CodeIO Code = "journal_io"
)

// Error is every refusal of this package (errors.As; never a panic).
type Error struct {
	Code    Code
	Path    string // the file
	Holder  string // journal_locked: who holds the lock
	Message string
	Err     error // the cause (an OS error for journal_io)
}

func (e *Error) Error() string {
	s := string(e.Code) + ": "
	if e.Path != "" {
		s += e.Path + ": "
	}
	if s += e.Message; e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

func ioError(path string, err error) *Error {
	return &Error{Code: CodeIO, Path: path, Message: "the file system refused", Err: err}
}
