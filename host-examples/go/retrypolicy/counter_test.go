package retrypolicy

import (
	"context"
	"testing"
)

func TestMemoryCounterReadsTheCurrentAndPreviousBuckets(t *testing.T) {
	ctx := context.Background()
	c := NewMemoryCounter()
	rec := func(bucket uint64, retry bool) {
		if err := c.RecordAttempt(ctx, "ep", 1000, bucket, retry); err != nil {
			t.Fatal(err)
		}
	}
	rec(0, false)
	rec(5, false)
	rec(5, true)
	rec(6, false)
	got, _ := c.Read(ctx, "ep", 1000, 6)
	want := BudgetCounts{Current: BucketCounts{Total: 1}, Previous: BucketCounts{Total: 2, Retries: 1}}
	if got != want {
		t.Fatalf("bucket 6: %+v, want %+v", got, want)
	}
	rec(5, false) // a late record in the previous bucket still counts
	if got, _ := c.Read(ctx, "ep", 1000, 6); got.Previous.Total != 3 {
		t.Fatalf("late record lost: %+v", got)
	}
	rec(9, true) // a gap: the buckets before 9 are gone
	if got, _ := c.Read(ctx, "ep", 1000, 9); got != (BudgetCounts{Current: BucketCounts{Total: 1, Retries: 1}}) {
		t.Fatalf("after a gap: %+v", got)
	}
	if got, _ := c.Read(ctx, "other", 1000, 9); got != (BudgetCounts{}) {
		t.Fatalf("an unknown endpoint: %+v", got)
	}
}
