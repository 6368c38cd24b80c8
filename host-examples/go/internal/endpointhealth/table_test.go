package endpointhealth

import (
	"fmt"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheTableDropsTheLeastRecentlyUsedEndpointPastItsBound(t *testing.T) {
	tab := New(3)
	a := tab.Entry("a")
	a.KeepView(&rp.HealthView{AsOfMs: 5})
	tab.Entry("b")
	tab.Entry("c")
	tab.Entry("a") // a is used again: b is now the oldest
	tab.Entry("d")
	if tab.Len() != 3 {
		t.Fatalf("%d entries, want 3", tab.Len())
	}
	if tab.Entry("a").View == nil {
		t.Fatal("a (recently used) lost its view")
	}
	if tab.Entry("b").View != nil || tab.Len() != 3 {
		t.Fatal("b should have been dropped and come back empty")
	}
}

func TestTheDefaultBoundIsTenThousandEndpoints(t *testing.T) {
	tab := New(0)
	for i := 0; i < Max+50; i++ {
		tab.Entry(fmt.Sprint(i))
	}
	if tab.Len() != Max {
		t.Fatalf("%d entries, want %d", tab.Len(), Max)
	}
}

func TestAnOlderViewDoesNotReplaceANewerOne(t *testing.T) {
	var e Entry
	e.KeepView(&rp.HealthView{AsOfMs: 10, PausedUntilMs: 99})
	e.KeepView(&rp.HealthView{AsOfMs: 9})
	e.KeepView(nil)
	if e.View == nil || e.View.PausedUntilMs != 99 {
		t.Fatalf("view %+v, want the one as of 10", e.View)
	}
}

func TestAdmissionsRollToTheNextBucketAndZeroAfterAGap(t *testing.T) {
	var e Entry
	e.Admit(1_000, 1_000) // bucket 1
	e.Admit(1_500, 1_000)
	e.Admit(2_100, 1_000) // bucket 2: 2 move to previous
	if c, p := e.Admissions(2_200, 1_000); c != 1 || p != 2 {
		t.Fatalf("current %d previous %d, want 1 and 2", c, p)
	}
	if c, p := e.Admissions(5_000, 1_000); c != 0 || p != 0 {
		t.Fatalf("after a gap: current %d previous %d, want zeros", c, p)
	}
}
