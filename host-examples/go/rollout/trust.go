package rollout

import (
	"errors"
	"fmt"
	"io/fs"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/regularfile"
)

// MaxTrustFileBytes is the largest trust file read (a few keys are ~120
// bytes each).
const MaxTrustFileBytes = 1 << 20

// ReadTrustFile reads the trust file's text for Config.TrustPEM: a file
// that cannot be read, is not a regular file (a fifo is never waited on)
// or is over MaxTrustFileBytes is an *Error with CodeTrustInvalid naming
// the file. Its keys are read by the component (NewFollower).
func ReadTrustFile(path string) ([]byte, error) {
	text, err := regularfile.Read(path, MaxTrustFileBytes)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the path is named once
			err = pe.Err
		}
		return nil, &Error{Code: CodeTrustInvalid, Message: fmt.Sprintf("cannot read the trust file %s: %v", path, err)}
	}
	return text, nil
}
