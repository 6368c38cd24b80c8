// Package regularfile reads a file a program was told to read (an
// artifact, a trust file) without ever blocking on it or reading it
// unbounded: only a regular file is read (opened non-blocking, so a fifo
// never blocks the open, then judged by fstat), one longer than the cap is
// refused from its size alone, and the read stops at the cap + 1 byte, so
// a file that grows while it is read (or whose size stat does not know) is
// refused the same way.
package regularfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
)

// NotRegularError is a path that is not a regular file (Kind: "a fifo",
// "a directory", ...): nothing was read.
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string { return "not a regular file (" + e.Kind + ")" }

// TooLargeError is a file over the cap: Size from stat, or -1 when the
// read found more bytes than stat said.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("has more than %d bytes", e.Max)
	}
	return fmt.Sprintf("is %d bytes; at most %d", e.Size, e.Max)
}

// Read returns the bytes of the regular file at path, at most max of them;
// else a *NotRegularError, a *TooLargeError or the OS's error.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Kind: kind(st.Mode())}
	}
	if st.Size() > max {
		return nil, &TooLargeError{Size: st.Size(), Max: max}
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, &TooLargeError{Size: -1, Max: max}
	}
	return buf.Bytes(), nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a fifo"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a file"
}
