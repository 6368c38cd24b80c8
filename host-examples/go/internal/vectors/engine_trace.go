package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// EngineFormat is the format of an engine trace file (docs/engine.md
// section 14): cases run through the component's delivery engine
// (rp.DeliveryEngine), one input per batch.
const EngineFormat = "webhook-retry-policy/engine-trace 1"

type traceFile struct {
	Format     string            `json:"format"`
	Spec       json.RawMessage   `json:"spec"`
	Regenerate json.RawMessage   `json:"regenerate"`
	Cases      []json.RawMessage `json:"cases"`
}

type traceCase struct {
	Name    string            `json:"name"`
	Comment json.RawMessage   `json:"comment"`
	Config  json.RawMessage   `json:"config"`
	Steps   []json.RawMessage `json:"steps"`
}

// traceStep keeps expect, error and timeout_ms raw: absent (nil) and null
// differ.
type traceStep struct {
	Input     json.RawMessage `json:"input"`
	Expect    json.RawMessage `json:"expect"`
	Error     json.RawMessage `json:"error"`
	TimeoutMs json.RawMessage `json:"timeout_ms"`
}

// decodeStrict decodes one JSON value into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	return dec.Decode(v)
}

// reportTraces runs every case of an engine trace file (its text data):
// one FAIL line per failing case (file, case name, step number and what
// differed); a broken file is one failure.
func reportTraces(ctx context.Context, e *rp.Engine, name string, data []byte, w io.Writer) (passed, failed int) {
	var f traceFile
	if err := decodeStrict(data, &f); err != nil || f.Cases == nil {
		if err == nil {
			err = fmt.Errorf("cases: expected an array")
		}
		fmt.Fprintf(w, "FAIL %s: <file>: broken trace file: %v\n", name, err)
		return 0, 1
	}
	for i, raw := range f.Cases {
		var c traceCase
		if err := decodeStrict(raw, &c); err != nil {
			var named struct{ Name string }
			if json.Unmarshal(raw, &named) != nil || named.Name == "" {
				named.Name = fmt.Sprintf("#%d", i)
			}
			failed++
			fmt.Fprintf(w, "FAIL %s: %s: broken trace case: %v\n", name, named.Name, err)
			continue
		}
		if why := runTraceCase(ctx, e, c); why != "" {
			failed++
			fmt.Fprintf(w, "FAIL %s: %s: %s\n", name, c.Name, why)
		} else {
			passed++
		}
	}
	return passed, failed
}

// runTraceCase opens an engine on the case's config, feeds each step's
// input alone and checks the answer; "" when every step matched.
func runTraceCase(ctx context.Context, e *rp.Engine, c traceCase) string {
	if c.Name == "" || c.Config == nil || c.Steps == nil {
		return "broken trace case: name, config and steps are required"
	}
	d, err := e.OpenDeliveryEngine(ctx, c.Config)
	if err != nil {
		return "config refused: " + err.Error()
	}
	defer d.Close(ctx)
	for i, raw := range c.Steps {
		var s traceStep
		if err := decodeStrict(raw, &s); err != nil || s.Input == nil {
			if err == nil {
				err = fmt.Errorf("no input")
			}
			return fmt.Sprintf("step %d: broken step: %v", i, err)
		}
		var got rp.EngineAnswer
		if err := d.Feed(ctx, "["+string(s.Input)+"]", &got); err != nil {
			return fmt.Sprintf("step %d: %v", i, err)
		}
		if why := checkStep(s, got); why != "" {
			return fmt.Sprintf("step %d: %s", i, why)
		}
	}
	return ""
}

// checkStep compares an answer with a step: the first refusal's code with
// error (absent: none), the actions with expect (when given, in order),
// the timeout with timeout_ms (when given; null: none).
func checkStep(s traceStep, got rp.EngineAnswer) string {
	var want string
	if s.Error != nil {
		if err := json.Unmarshal(s.Error, &want); err != nil || want == "" {
			return "broken step: error must be a code"
		}
	}
	var have string
	if len(got.Errors) > 0 {
		have = got.Errors[0].Error
	}
	if have != want {
		return fmt.Sprintf("error %q, expected %q (%+v)", have, want, got.Errors)
	}
	if s.Expect != nil {
		var wantOut []any
		if err := decodeStrict(s.Expect, &wantOut); err != nil || wantOut == nil {
			return "broken step: expect must be a list of actions"
		}
		haveOut := make([]any, len(got.Outputs))
		for i, o := range got.Outputs {
			haveOut[i] = o
		}
		if !reflect.DeepEqual(wantOut, haveOut) {
			gotJSON, _ := json.Marshal(got.Outputs)
			return fmt.Sprintf("actions %s expected %s", gotJSON, compact(s.Expect))
		}
	}
	if s.TimeoutMs != nil {
		var wantT *uint64
		if err := json.Unmarshal(s.TimeoutMs, &wantT); err != nil {
			return "broken step: timeout_ms must be a number or null"
		}
		if !reflect.DeepEqual(wantT, got.TimeoutMs) {
			return fmt.Sprintf("timeout_ms %s expected %s", show(got.TimeoutMs), show(wantT))
		}
	}
	return ""
}

func show(t *uint64) string {
	if t == nil {
		return "null"
	}
	return fmt.Sprint(*t)
}
