package retrypolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// artifactVectors is tests/vectors-artifact/artifact.json; its "about" says
// how a case runs.
type artifactVectors struct {
	About    string `json:"about"`
	CapBytes int64  `json:"cap_bytes"`
	Cases    []struct {
		Name   string            `json:"name"`
		File   *vectorFile       `json:"file"`
		Via    string            `json:"via"`
		Env    map[string]string `json:"env"`
		Pin    *string           `json:"pin"`
		Expect string            `json:"expect"`
		Source string            `json:"source"`
	} `json:"cases"`
}

type vectorFile struct {
	Kind  string  `json:"kind"`
	Bytes *int64  `json:"bytes"`
	Text  *string `json:"text"`
	Path  *string `json:"path"`
}

// make writes the file f describes at path: its path, its bytes (nil when
// it has none) and, for a fifo, the watchdog that opens it for writing
// after 5 s (a loader blocked on it then reads an empty file).
func (f vectorFile) make(path string) (string, []byte, *exec.Cmd, error) {
	need := map[string][]string{"shipped": nil, "shipped_prefix": {"bytes"}, "zeros": {"bytes"}, "sparse": {"bytes"},
		"text": {"text"}, "missing": nil, "directory": nil, "device": {"path"}, "fifo": nil}
	fields, ok := need[f.Kind]
	if !ok {
		return "", nil, nil, errors.New("unknown kind " + f.Kind)
	}
	has := map[string]bool{"bytes": f.Bytes != nil, "text": f.Text != nil, "path": f.Path != nil}
	for k, v := range has {
		if v != strings.Contains(strings.Join(fields, ","), k) {
			return "", nil, nil, errors.New("kind " + f.Kind + ": field " + k + " wrong")
		}
	}
	var data []byte
	switch f.Kind {
	case "shipped":
		data = EmbeddedArtifact()
	case "shipped_prefix":
		data = EmbeddedArtifact()[:*f.Bytes]
	case "zeros":
		data = make([]byte, *f.Bytes)
	case "text":
		data = []byte(*f.Text)
	case "sparse":
		fh, err := os.Create(path)
		if err == nil {
			err = errors.Join(fh.Truncate(*f.Bytes), fh.Close())
		}
		return path, nil, nil, err
	case "missing":
		return path, nil, nil, nil
	case "directory":
		return path, nil, nil, os.Mkdir(path, 0o755)
	case "device":
		return *f.Path, nil, nil, nil
	case "fifo":
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			return "", nil, nil, err
		}
		w := exec.Command("sh", "-c", `sleep 5; : > "$0"`, path)
		return path, nil, w, w.Start()
	}
	return path, data, nil, os.WriteFile(path, data, 0o644)
}

// Every case of tests/vectors-artifact/artifact.json, each a subtest named by the case.
func TestEveryArtifactVector(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-artifact", "artifact.json"))
	if err != nil {
		t.Skipf("no artifact vectors: %v", err)
	}
	var doc artifactVectors
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("vectors: %v", err)
	}
	if doc.CapBytes != MaxArtifactBytes || len(doc.Cases) < 40 {
		t.Fatalf("cap_bytes %d (this host's %d), %d cases", doc.CapBytes, MaxArtifactBytes, len(doc.Cases))
	}
	for _, c := range doc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var path string
			var data []byte
			if c.File != nil {
				var w *exec.Cmd
				path, data, w, err = c.File.make(filepath.Join(t.TempDir(), "artifact.wasm"))
				if err != nil {
					t.Fatalf("case %q: file: %v", c.Name, err)
				}
				if w != nil {
					defer func() { _ = w.Process.Kill(); _ = w.Wait() }()
				}
			}
			subst := func(s string) string {
				d := digest(data)
				if strings.Contains(strings.ToLower(s), "sha256}") && data == nil {
					t.Fatalf("case %q: a digest of a file without bytes", c.Name)
				}
				return strings.NewReplacer("{path}", path, "{sha256}", d, "{SHA256}", strings.ToUpper(d),
					"{Sha256}", strings.ToUpper(d[:32])+d[32:]).Replace(s)
			}
			for _, k := range []string{EnvArtifact, EnvArtifactSHA256} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			for k, v := range c.Env {
				if k != EnvArtifact && k != EnvArtifactSHA256 {
					t.Fatalf("case %q: unknown env %s", c.Name, k)
				}
				t.Setenv(k, subst(v))
			}
			var opts []Option
			if c.Pin != nil {
				opts = append(opts, WithExpectedSHA256(subst(*c.Pin)))
			}
			switch {
			case c.Via == "path" && c.File != nil:
				opts = append(opts, WithArtifactPath(path))
			case c.Via == "bytes" && data != nil:
				opts = append(opts, WithArtifact(data))
			case c.Via != "default":
				t.Fatalf("case %q: via %q does not fit the file", c.Name, c.Via)
			}
			e, err := New(context.Background(), opts...)
			got := "ok"
			var ae *ArtifactError
			if errors.As(err, &ae) {
				got = string(ae.Code)
			} else if err != nil {
				got = "not an *ArtifactError: " + err.Error()
			}
			if got != c.Expect {
				t.Fatalf("case %q: expected %s, got %s (%v)", c.Name, c.Expect, got, err)
			}
			if e == nil {
				return
			}
			defer e.Close(context.Background())
			want := map[string]string{"path": path, "bytes": SourceBytes, "embedded": SourceEmbedded, "": e.Info().Source}[c.Source]
			if e.Info().Source != want {
				t.Fatalf("case %q: source %q, want %q", c.Name, e.Info().Source, want)
			}
		})
	}
}
