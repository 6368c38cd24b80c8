// Command docs is the Go driver of the cross-host document run
// (tests/differential/docs): {"name", "text"} lines in, one result line per
// document out, the shape tests/differential/src/bin/docs.rs documents:
// Engine.LoadDocument on the text, then Admit of every class at 1000 ms; under
// "health" the text through Engine.LoadHealthDocument.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

const nowMs = 1000

func result(ctx context.Context, e *retrypolicy.Engine, text string) map[string]any {
	refused := func(err error) map[string]any {
		var pe *retrypolicy.PolicyError
		if errors.As(err, &pe) {
			return map[string]any{"error": []string{pe.Code.String(), pe.Field}}
		}
		return map[string]any{"trap": err.Error()}
	}
	doc, err := e.LoadDocument(ctx, []byte(text))
	if err != nil {
		return refused(err)
	}
	classes := [][]any{}
	for _, c := range doc.Classes {
		a, err := e.Admit(ctx, doc, c.Name, nowMs)
		if err != nil {
			r := refused(err)
			r["admitting"] = c.Name
			return r
		}
		classes = append(classes, []any{a.Class, a.PolicyHash, a.DeadlineMs, a.Schedule.MaxAttempts, a.Schedule.ExpectedSpanMs})
	}
	return map[string]any{"version": doc.Version, "classes": classes}
}

// health loads text as a format-3 document: its version and each class's
// name and policy hash (the hash covers the class's effective section).
func health(ctx context.Context, e *retrypolicy.Engine, text string) map[string]any {
	d, err := e.LoadHealthDocument(ctx, []byte(text))
	if err != nil {
		var pe *retrypolicy.PolicyError
		if errors.As(err, &pe) {
			return map[string]any{"error": []string{pe.Code.String(), pe.Field}}
		}
		return map[string]any{"trap": err.Error()}
	}
	classes := [][]any{}
	for _, c := range d.Classes {
		classes = append(classes, []any{c.Name, c.PolicyHash})
	}
	return map[string]any{"version": d.Version, "classes": classes}
}

func main() {
	ctx := context.Background()
	engine, err := retrypolicy.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs:", err)
		os.Exit(2)
	}
	defer engine.Close(ctx)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var c struct{ Name, Text string }
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, "docs: a line is not {name, text}:", err)
			os.Exit(2)
		}
		r := result(ctx, engine, c.Text)
		r["health"] = health(ctx, engine, c.Text)
		r["name"] = c.Name
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(os.Stderr, "docs:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "docs:", err)
		os.Exit(2)
	}
}
