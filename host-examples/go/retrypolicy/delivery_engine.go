package retrypolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// DeliveryEngine is the component's sans-IO delivery engine (docs/engine.md)
// behind the WIT functions engine-open, engine-feed, engine-resume and
// engine-close: inputs go in as one JSON batch per call, the engine's
// answer comes back parsed. It holds no logic of its own: the engine
// decides everything; this type only moves JSON across.
//
// An engine lives in the memory of one instance, so a DeliveryEngine keeps
// one instance of the Engine's current artifact for its whole life (a
// swap leaves it on the artifact it opened on) and gives it back at Close.
// Calls on one DeliveryEngine are serialized; it is safe for any number of
// goroutines. Close it when done: the component keeps at most 64 engines
// per instance.
type DeliveryEngine struct {
	e  *Engine
	mu sync.Mutex
	in *instance // nil once closed or broken
	// handle is the engine's handle in the instance.
	handle uint32
}

// EngineAnswer is the engine's answer to a batch (docs/engine.md section 14).
type EngineAnswer struct {
	// Outputs are the actions, in order ({"action": "send", ...}); numbers
	// are json.Number, as the engine wrote them.
	Outputs []map[string]any `json:"outputs"`
	// Errors are the refused inputs (each refusal changed nothing).
	Errors []EngineRefusal `json:"errors"`
	// TimeoutMs is when to feed the engine next (a tick), nil for never.
	TimeoutMs *uint64 `json:"timeout_ms"`
}

// EngineRefusal is one refused input of a batch: its index in the batch,
// the engine's code (e.g. "time_went_backwards") and its sentence.
type EngineRefusal struct {
	Index   int    `json:"index"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

// EngineError is a call the engine refused as a whole: a config it does
// not accept (engine-open), a batch that is not a JSON array of inputs, a
// stale handle. Code is the engine's code (e.g. "invalid_input",
// "invalid_document"), Message its sentence. Match it with errors.As.
type EngineError struct {
	Code    string
	Message string
}

func (e *EngineError) Error() string {
	return fmt.Sprintf("retrypolicy: delivery engine: %s: %s", e.Code, e.Message)
}

// errStale is what a DeliveryEngine answers after Close (or after a trap
// took its instance): the component's own words for a handle not live. It
// is answered here, since the handle's number may be live again in another
// instance.
var errStale = &EngineError{Code: "invalid_input", Message: "handle: not a live engine (never opened, or closed)"}

// OpenDeliveryEngine opens an engine on config: JSON text (string,
// []byte, json.RawMessage) or a value json.Marshal turns into the config
// object of docs/engine.md section 1 ({"document": ..., "memory_store":
// true, ...}). A config the engine refuses is an *EngineError.
func (e *Engine) OpenDeliveryEngine(ctx context.Context, config any) (*DeliveryEngine, error) {
	text, err := jsonText(config)
	if err != nil {
		return nil, err
	}
	in, err := e.acquireOn(ctx, nil, false)
	if err != nil {
		return nil, err
	}
	e.leave() // held by d, not a call in flight: Engine.Close does not wait for it
	d := &DeliveryEngine{e: e, in: in}
	err = d.call(ctx, "engine-open", func() error {
		h, err := in.callEngineOpen(ctx, text)
		d.handle = h
		return err
	}, false)
	if err != nil {
		if d.in != nil {
			d.giveBack(ctx)
		}
		return nil, err
	}
	return d, nil
}

// Feed hands the engine a batch of inputs, in order: JSON text of an
// array (string, []byte, json.RawMessage) or a value json.Marshal turns
// into one (e.g. []any{map[string]any{"op": "tick", "now_ms": now}}: the
// objects of docs/engine.md section 2). Its answer is decoded into out:
// an *EngineAnswer, or a struct of the caller's own with "outputs",
// "errors" and "timeout_ms" fields (e.g. typed actions: one decode, no
// maps). A refused input is in the answer's errors (the batch goes on); an
// *EngineError is a batch refused whole.
func (d *DeliveryEngine) Feed(ctx context.Context, inputs any, out any) error {
	batch, err := jsonText(inputs)
	if err != nil {
		return err
	}
	return d.answerInto(ctx, "engine-feed", func(in *instance) (string, error) { return in.callEngineFeed(ctx, d.handle, batch) }, out)
}

// Resume hands the engine a journal's bytes (docs/engine.md section 10),
// answered into out as Feed.
func (d *DeliveryEngine) Resume(ctx context.Context, nowMs uint64, journal []byte, out any) error {
	return d.answerInto(ctx, "engine-resume", func(in *instance) (string, error) {
		return in.callEngineResume(ctx, d.handle, nowMs, journal)
	}, out)
}

// Close forgets the engine and gives its instance back. Closing twice is
// a no-op; later calls are an *EngineError (invalid_input: the handle).
func (d *DeliveryEngine) Close(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.in == nil {
		return nil
	}
	return d.call(ctx, "engine-close", func() error { return d.in.callEngineClose(ctx, d.handle) }, true)
}

func (d *DeliveryEngine) answerInto(ctx context.Context, op string, fn func(*instance) (string, error), out any) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.in == nil {
		return errStale
	}
	var text string
	err := d.call(ctx, op, func() (err error) {
		text, err = fn(d.in)
		return err
	}, false)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &TrapError{Op: op, Err: fmt.Errorf("the engine's answer is not {outputs, errors, timeout_ms}: %w", err)}
	}
	return nil
}

// call runs fn on d's instance as one call of the Engine (an Engine.Close
// waits for it; after Engine.Close it is ErrClosed). The guest's Err text
// becomes an *EngineError; a trap a *TrapError, and the instance goes
// (the engine in it with it). With last, the instance is given back after
// fn (a close).
func (d *DeliveryEngine) call(ctx context.Context, op string, fn func() error, last bool) (err error) {
	e, in := d.e, d.in
	if err := ctx.Err(); err != nil {
		return err
	}
	e.inFlight.Add(1)
	defer e.leave()
	if e.closed.Load() {
		d.in = nil // the runtime closed the instance with the rest
		in.gen.leave()
		return ErrClosed
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in the host glue: %v", r)
		}
		err = judgeEngine(ctx, op, in, err)
		if last || in.broken {
			d.giveBack(ctx)
		}
	}()
	in.allocs = 0
	return fn()
}

// giveBack ends d's hold on its instance (what acquire took, less the
// call in flight OpenDeliveryEngine left at once).
func (d *DeliveryEngine) giveBack(ctx context.Context) {
	in := d.in
	d.in = nil
	g := in.gen
	d.e.release(ctx, in)
	g.leave()
}

// judgeEngine: the guest's Err text ({"error", "message"}) is the engine's
// refusal, an *EngineError; so is a value the WIT cannot carry (invalid
// UTF-8: invalid_input); anything else is what in.judge makes of it (a
// trap: a *TrapError, the instance marked broken).
func judgeEngine(ctx context.Context, op string, in *instance, err error) error {
	if err == nil {
		return nil
	}
	if isGuestErr(err) { // the glue's Err case: the engine's text
		var v struct {
			Error   *string `json:"error"`
			Message string  `json:"message"`
		}
		if json.Unmarshal([]byte(err.Error()), &v) == nil && v.Error != nil {
			return &EngineError{Code: *v.Error, Message: v.Message}
		}
	}
	err = in.judge(ctx, op, err)
	var pe *PolicyError
	if errors.As(err, &pe) {
		return &EngineError{Code: pe.Code.String(), Message: pe.Field + ": " + pe.Message}
	}
	return err
}

func jsonText(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case []byte:
		return string(t), nil
	case json.RawMessage:
		return string(t), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("retrypolicy: delivery engine: not JSON: %w", err)
	}
	return string(b), nil
}
