package retrypolicy

import (
	"runtime"
	"testing"
)

// Regression tests for what fuzzing the glue found (abi_fuzz_test.go).

// allocated is the bytes the Go heap allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A guest can alias: N list elements whose strings all point at one long
// string. Each lift is in bounds, but copying them all is N times the
// memory (11,170 classes x 28 KiB = 320 MB from the fake guest's 1 MiB
// memory; from a 64 MiB guest, terabytes). A well-formed answer never lifts more bytes of
// strings and lists than the memory holds, so the glue refuses beyond that.
func TestALiftOfAliasedStringsLongerThanTheMemoryIsAnABIErrorNotAnAllocation(t *testing.T) {
	g := newFakeGuest(t)
	g.load(nil)
	const name = 0x7000 // in [0x100, fakeHeap): zeros, valid UTF-8
	size := g.in.mem.Size()
	list := uint32(0x10000)
	n := (size - list) / 88
	for i := uint32(0); i < n; i++ {
		g.w32(list+88*i, 0x100) // every class's name is the same 28 KiB
		g.w32(list+88*i+4, name)
	}
	doc, b := g.area(16)
	g.w32(doc+8, list)
	g.w32(doc+12, n)
	var err error
	bytes := allocated(func() { _, err = g.in.liftPolicyDocument(b) })
	if !isABIError(err) {
		t.Fatalf("want an ABI error, got %v (after allocating %d bytes)", err, bytes)
	}
	if bytes > 2*uint64(size) { // the []EventClass itself is ~1.1 x the list's bytes

		t.Fatalf("lifting %d aliased strings allocated %d bytes from a memory of %d", n, bytes, size)
	}
}

// The budget is per call: each call may lift up to the memory's size.
func TestTheLiftBudgetIsPerCall(t *testing.T) {
	g := newFakeGuest(t)
	g.load(nil)
	p, _ := g.area(8)
	g.w32(p, 0)
	g.w32(p+4, fakeHeap) // half the memory: allowed once per call
	for i := 0; i < 3; i++ {
		g.ret = uint64(p)
		if _, err := g.in.callStoreKey(t.Context(), &seedRequest); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	g.load(nil)
	half := g.in.mem.Size() / 2
	if _, err := g.in.liftString(0, half); err != nil {
		t.Fatal(err)
	}
	if _, err := g.in.liftString(half, half); err != nil {
		t.Fatal(err)
	}
	if _, err := g.in.liftString(0, 1); !isABIError(err) {
		t.Fatalf("the budget of one call is the memory's size: %v", err)
	}
}

// The canonical ABI traps on a misaligned return area or list (the guest's
// allocator never hands one out); the glue took any address.
func TestAMisalignedReturnAreaOrListIsAnABIError(t *testing.T) {
	g := newFakeGuest(t)
	g.load(nil)
	ret, _ := g.area(48)
	sched := Schedule{OffsetsMs: []uint64{1, 2}}
	g.encSchedule(ret+8, &sched)
	g.ret = uint64(ret)
	if _, err := g.in.callPlan(t.Context(), &seedPolicy.Backoff, 1, 1); err != nil {
		t.Fatalf("aligned: %v", err)
	}
	g.ret = uint64(ret + 4) // result<schedule, policy-error> is 8-aligned
	if _, err := g.in.callPlan(t.Context(), &seedPolicy.Backoff, 1, 1); !isABIError(err) {
		t.Fatalf("a return area at %#x: want an ABI error, got %v", g.ret, err)
	}
	g.ret = uint64(ret)
	g.w32(ret+8+16, g.r32(ret+8+16)+4) // the list<u64> moved to a 4-aligned address
	if _, err := g.in.callPlan(t.Context(), &seedPolicy.Backoff, 1, 1); !isABIError(err) {
		t.Fatalf("a misaligned list<u64>: want an ABI error, got %v", err)
	}
}

func TestAMisalignedReturnAreaOfTheImportIsAnABIError(t *testing.T) {
	g := newFakeGuest(t)
	g.load(nil)
	ret, _ := g.area(48)
	s := []uint64{uint64(StoreOpReserve), 0, 0, 60000, 7, 0, 60000, 50, 1, 10, uint64(ret)}
	if err := g.callImport(importBudgetStoreCall(fakeStore{}), append([]uint64(nil), s...)); err != nil {
		t.Fatalf("aligned: %v", err)
	}
	s[10] = uint64(ret + 4) // result<reservation, string> is 8-aligned
	if err := g.callImport(importBudgetStoreCall(fakeStore{}), s); !isABIError(err) {
		t.Fatalf("a return area at %#x: want an ABI error, got %v", ret+4, err)
	}
}
