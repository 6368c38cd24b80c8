package main

import (
	"context"
	"strings"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestAReloadedDocumentAppliesToNewEventsWhileAdmittedOnesKeepTheirSchedule(t *testing.T) {
	h := newHarness(t, "")
	docs, err := rp.NewDocuments(context.Background(), h.engine, []byte(testDocument))
	if err != nil {
		t.Fatal(err)
	}
	h.d.cfg.Documents = docs
	before := h.enqueue("evt_before", "ep_503", h.endpoints.Unavailable.URL, "notification")
	longer := strings.Replace(strings.Replace(testDocument, `"version": "test-1"`, `"version": "test-2"`, 1), `"window_ms": 900000`, `"window_ms": 1800000`, 1)
	if err := docs.Reload(context.Background(), []byte(longer)); err != nil {
		t.Fatal(err)
	}
	if err := docs.Reload(context.Background(), []byte(`{"version":"broken"`)); err == nil {
		t.Fatal("a broken document was accepted")
	}
	after := h.enqueue("evt_after", "ep_503", h.endpoints.Unavailable.URL, "notification")
	if after.Admission.PolicyVersion != "test-2" || after.Admission.PolicyHash == before.Admission.PolicyHash || after.Policy.WindowMs != 1_800_000 {
		t.Fatalf("the event after the reload: %+v", after.Admission)
	}
	h.run()
	dls := h.deadLetters()
	if dls["evt_before"].PolicyVersion != "test-1" || dls["evt_before"].PolicyHash != before.Admission.PolicyHash || dls["evt_before"].ElapsedMs > 900_000 {
		t.Fatalf("the event admitted before the reload: %+v", dls["evt_before"])
	}
	if dls["evt_after"].PolicyVersion != "test-2" {
		t.Fatalf("the event admitted after the reload: %+v", dls["evt_after"])
	}
}
