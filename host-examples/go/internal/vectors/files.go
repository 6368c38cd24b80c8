package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Case is one vector case.
type Case struct {
	Name   string
	Op     string
	Input  json.RawMessage
	Expect json.RawMessage
	// Health: a case of a format-3 file (HealthFormat).
	Health bool
	// Format and Raw: the file's format value and the whole case, as JSON
	// text exactly as in the file (what vector-case takes).
	Format, Raw json.RawMessage
}

// File is one vector file; Err is set when the file itself is broken.
type File struct {
	Path  string
	Suite string
	Cases []Case
	Err   error
	// Trace: the text of an engine trace file (EngineFormat), run by reportTraces.
	Trace []byte
}

// LoadDir reads every *.json file of dir, in name order.
func LoadDir(dir string) ([]File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	sort.Strings(paths)
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		files = append(files, loadFile(p))
	}
	return files, nil
}

func loadFile(path string) File {
	f := File{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Err = err
		return f
	}
	var top map[string]json.RawMessage
	if err := strictJSON(data, &top); err != nil {
		f.Err = fmt.Errorf("not a JSON object: %w", err)
		return f
	}
	if string(bytes.TrimSpace(top["format"])) == `"`+EngineFormat+`"` {
		f.Trace = data
		return f
	}
	d := &decoder{}
	health := string(bytes.TrimSpace(top["format"])) == `"`+HealthFormat+`"`
	var optional []string
	if health {
		optional = []string{"spec", "regenerate"}
	}
	o, err := d.object("", data, []string{"format", "suite", "cases"}, optional)
	if err != nil {
		f.Err = err
		return f
	}
	if format := o.u64("format"); !health && (d.first != nil || (format != 1 && format != 2)) {
		f.Err = broken("format must be 1, 2 or %q", HealthFormat)
		return f
	}
	d.first = nil
	f.Suite = o.str("suite")
	var cases []json.RawMessage
	if err := json.Unmarshal(o.raw("cases"), &cases); err != nil || d.first != nil {
		f.Err = broken("suite must be a string and cases a list")
		return f
	}
	for i, raw := range cases {
		c := loadCase(i, raw)
		c.Health, c.Format, c.Raw = health, bytes.TrimSpace(top["format"]), raw
		f.Cases = append(f.Cases, c)
	}
	return f
}

// loadCase keeps a malformed case as a case whose Op is empty and whose
// Input carries the reason, so it is reported with its index.
func loadCase(i int, raw json.RawMessage) Case {
	d := &decoder{}
	o, err := d.object(fmt.Sprintf("cases[%d]", i), raw, []string{"name", "op", "input", "expect"}, nil)
	if err != nil {
		return Case{Name: fmt.Sprintf("#%d", i), Op: "", Input: json.RawMessage(fmt.Sprintf("%q", err.Error()))}
	}
	c := Case{Name: o.str("name"), Op: o.str("op"), Input: o.raw("input"), Expect: o.raw("expect")}
	if d.first != nil {
		c.Name, c.Op = fmt.Sprintf("#%d", i), ""
		c.Input = json.RawMessage(fmt.Sprintf("%q", "name and op must be strings"))
	}
	return c
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// Check runs a case and returns "" when it passes, or what differed.
func Check(ctx context.Context, e *rp.Engine, c Case) string {
	if c.Op == "" {
		var why string
		_ = json.Unmarshal(c.Input, &why)
		return "broken vector: " + why
	}
	if slices.Contains(CaseOps[c.Health], c.Op) {
		err := e.VectorCase(ctx, string(c.Format), string(c.Raw))
		var failed *rp.CaseFailure
		if errors.As(err, &failed) {
			return failed.Message
		} else if err != nil {
			return "host error: " + err.Error()
		}
		return ""
	}
	if c.Health {
		if c.Op != "parse_document" {
			return broken("unknown op %q", c.Op).Error()
		}
		return checkHealth(ctx, e, c)
	}
	got, err := Evaluate(ctx, e, c.Op, c.Input)
	want, have, gotJSON, problem := answered(got, err, c.Expect)
	if problem != "" {
		return problem
	}
	if reflect.DeepEqual(want, have) {
		return ""
	}
	return fmt.Sprintf("expected %s, got %s", compact(c.Expect), gotJSON)
}

// answered reads a host's answer (got, or the error that replaced it) and
// the case's expectation as generic JSON for comparison: want, have, the
// answer's JSON text, or the problem that stops the comparison (a broken
// vector, a host error).
func answered(got any, err error, expect json.RawMessage) (want, have any, gotJSON []byte, problem string) {
	if err != nil {
		var be *BrokenError
		if errors.As(err, &be) {
			return nil, nil, nil, be.Error()
		}
		return nil, nil, nil, "host error: " + err.Error()
	}
	gotJSON, err = json.Marshal(got)
	if err != nil {
		return nil, nil, nil, "host error: " + err.Error()
	}
	if err := strictJSON(expect, &want); err != nil {
		return nil, nil, nil, "broken vector: expect is not JSON"
	}
	if err := strictJSON(gotJSON, &have); err != nil {
		return nil, nil, nil, "host error: " + err.Error()
	}
	return want, have, gotJSON, ""
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
