package rollout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestATrustFileThatIsAFifoADirectoryOrTooLargeIsRefusedWithoutWaitingOrReadingIt(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "keys.pub")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no fifo here: %v", err)
	}
	big := filepath.Join(dir, "big.pub")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", MaxTrustFileBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "not a regular file (a fifo)", dir: "not a regular file (a directory)",
		big: "is 1048577 bytes; at most 1048576", filepath.Join(dir, "none.pub"): "no such file"} {
		_, err := ReadTrustFile(path) // a fifo with no writer would block a plain open: this returns
		var re *Error
		if !errors.As(err, &re) || re.Code != CodeTrustInvalid || !strings.Contains(re.Message, path) || !strings.Contains(re.Message, want) {
			t.Errorf("%s: %v; want rollout_trust_invalid naming the file and %q", path, err, want)
		}
	}
}
