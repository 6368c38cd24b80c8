package vectors

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Report runs every case of every *.json file in dir, writes one line per
// failing case (file, case name, what differed) and then the summary line
// "go: N passed, M failed". A broken file counts as one failure.
func Report(ctx context.Context, e *rp.Engine, dir string, w io.Writer) (passed, failed int, err error) {
	files, err := LoadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	if len(files) == 0 {
		return 0, 0, fmt.Errorf("no *.json vector files in %s", dir)
	}
	for _, f := range files {
		name := filepath.Base(f.Path)
		if f.Err != nil {
			failed++
			fmt.Fprintf(w, "FAIL %s: %v\n", name, f.Err)
			continue
		}
		if f.Trace != nil {
			p, fl := reportTraces(ctx, e, name, f.Trace, w)
			passed, failed = passed+p, failed+fl
			continue
		}
		for _, c := range f.Cases {
			if why := Check(ctx, e, c); why != "" {
				failed++
				fmt.Fprintf(w, "FAIL %s: %s: %s\n", name, c.Name, why)
			} else {
				passed++
			}
		}
	}
	fmt.Fprintf(w, "go: %d passed, %d failed\n", passed, failed)
	return passed, failed, nil
}
