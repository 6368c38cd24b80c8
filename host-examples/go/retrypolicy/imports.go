package retrypolicy

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// The component's imports, as the core module sees them (checked against
// the module in imports_test.go):
//
//	webhook:retry-policy/clock@0.1.0 now-ms () -> i64
//	webhook:retry-policy/budget-counter@0.1.0 read
//	    (endpoint ptr i32, len i32, window-ms i64, bucket i64, retptr i32) -> ()
//	webhook:retry-policy/budget-counter@0.1.0 record-attempt
//	    (endpoint ptr i32, len i32, window-ms i64, bucket i64, is-retry i32, retptr i32) -> ()
//
// The results (result<budget-counts, string>, result<_, string>) have more
// than one flat value, so the guest passes a return-area pointer and the
// host writes the result there; an error string is allocated with the
// guest's cabi_realloc, and the guest frees it.
const (
	clockModule   = "webhook:retry-policy/clock@0.1.0"
	counterModule = "webhook:retry-policy/budget-counter@0.1.0"
)

var (
	i32, i64 = api.ValueTypeI32, api.ValueTypeI64
)

func (e *Engine) instantiateImports(ctx context.Context) error {
	_, err := e.rt.NewHostModuleBuilder(clockModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(e.hostNowMs), nil, []api.ValueType{i64}).
		Export("now-ms").
		Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("retrypolicy: host module %s: %w", clockModule, err)
	}
	_, err = e.rt.NewHostModuleBuilder(counterModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(e.hostRead), []api.ValueType{i32, i32, i64, i64, i32}, nil).
		Export("read").
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(e.hostRecordAttempt), []api.ValueType{i32, i32, i64, i64, i32, i32}, nil).
		Export("record-attempt").
		Instantiate(ctx)
	if err != nil {
		return fmt.Errorf("retrypolicy: host module %s: %w", counterModule, err)
	}
	return nil
}

// hostNowMs implements clock.now-ms.
func (e *Engine) hostNowMs(_ context.Context, _ api.Module, stack []uint64) {
	stack[0] = e.clock.NowMs()
}

// hostRead implements budget-counter.read.
func (e *Engine) hostRead(ctx context.Context, mod api.Module, stack []uint64) {
	endpoint := guestString(mod, stack[0], stack[1])
	window, bucket, ret := stack[2], stack[3], uint32(stack[4])
	var counts BudgetCounts
	err := shielded("read", func() (err error) {
		counts, err = e.counter.Read(ctx, endpoint, window, bucket)
		return err
	})
	if err != nil {
		writeErrResult(ctx, mod, ret, offReadPayload, err)
		return
	}
	var b [offReadPayload + sizeBudgetCounts]byte // tag 0 = ok
	putCounts(b[:], offReadPayload, counts)
	mustWrite(mod, ret, b[:])
}

// hostRecordAttempt implements budget-counter.record-attempt.
func (e *Engine) hostRecordAttempt(ctx context.Context, mod api.Module, stack []uint64) {
	endpoint := guestString(mod, stack[0], stack[1])
	window, bucket, isRetry, ret := stack[2], stack[3], uint32(stack[4]) != 0, uint32(stack[5])
	err := shielded("record-attempt", func() error {
		return e.counter.RecordAttempt(ctx, endpoint, window, bucket, isRetry)
	})
	if err != nil {
		writeErrResult(ctx, mod, ret, offRecordPayload, err)
		return
	}
	mustWrite(mod, ret, []byte{0}) // tag 0 = ok
}

// shielded runs a BudgetCounter method, turning a panic into an error: a
// broken counter then fails the budget closed (budget_unavailable) rather
// than crashing the host.
func shielded(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("budget counter %s panicked: %v", what, r)
		}
	}()
	return fn()
}

// guestString copies a string the guest passed (the guest keeps ownership).
// An out-of-bounds string is the guest's bug: panicking here makes wazero
// fail the whole call, which the engine reports as a *TrapError.
func guestString(mod api.Module, ptr, n uint64) string {
	b, ok := mod.Memory().Read(uint32(ptr), uint32(n))
	if !ok {
		panic(fmt.Errorf("canonical ABI: import string of %d bytes at %#x is outside memory", n, ptr))
	}
	return string(b)
}

func mustWrite(mod api.Module, ptr uint32, b []byte) {
	if !mod.Memory().Write(ptr, b) {
		panic(fmt.Errorf("canonical ABI: import return area at %#x is outside memory", ptr))
	}
}

// writeErrResult writes the err case (tag 1) with err's message as a
// guest-allocated string at payload.
func writeErrResult(ctx context.Context, mod api.Module, ret uint32, payload int, err error) {
	msg := strings.ToValidUTF8(err.Error(), "\uFFFD")
	res, callErr := mod.ExportedFunction(reallocExport).Call(ctx, 0, 0, 1, uint64(len(msg)))
	if callErr != nil {
		panic(fmt.Errorf("cabi_realloc for an import error string: %w", callErr))
	}
	ptr := uint32(res[0])
	if !mod.Memory().WriteString(ptr, msg) {
		panic(fmt.Errorf("canonical ABI: cabi_realloc returned %#x, outside memory", ptr))
	}
	b := make([]byte, payload+8)
	b[0] = 1
	putString(b, payload, ptr, uint32(len(msg)))
	mustWrite(mod, ret, b)
}
