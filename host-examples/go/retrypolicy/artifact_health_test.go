package retrypolicy

import (
	"context"
	"errors"
	"testing"
)

// formatThreeDocument has two classes: "x" with a health section of its
// own, "plain" without (format 2).
const formatThreeDocument = `{"version":"f3-embedded","classes":{
  "x":{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
       "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true},
       "health":{"pause":{"max_ms":30000}}},
  "plain":{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
       "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true}}}}`

func TestAnEmbeddedFormatThreeDocumentLoadsWithItsHealthSections(t *testing.T) {
	e := newEngine(t, WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, []byte(formatThreeDocument))))
	hdoc, text, ok := e.ArtifactHealthDocument()
	if !ok || hdoc.Version != "f3-embedded" || string(text) != formatThreeDocument || len(hdoc.Classes) != 2 {
		t.Fatalf("health document %+v (ok %v)", hdoc, ok)
	}
	for _, c := range hdoc.Classes {
		switch {
		case c.Name == "x" && (c.Health == nil || c.Health.PauseMaxMs != 30000):
			t.Fatalf("class x: health %+v, want its section (pause_max_ms 30000)", c.Health)
		case c.Name == "plain" && c.Health != nil:
			t.Fatalf("class plain: health %+v, want none (format 2)", c.Health)
		}
	}
	// the format-2 accessor keeps working: the same classes, no sections
	doc, _, ok := e.ArtifactDocument()
	if !ok || doc.Version != "f3-embedded" || len(doc.Classes) != 2 || e.Info().DocumentVersion != "f3-embedded" {
		t.Fatalf("format-2 view %+v (ok %v), info %+v", doc, ok, e.Info())
	}
}

func TestAFormatTwoEmbeddedDocumentHasNoHealthSection(t *testing.T) {
	text := []byte(`{"version":"f2","classes":{"c":{"window_ms":60000,
	  "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
	  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true}}}}`)
	e := newEngine(t, WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, text)))
	hdoc, _, ok := e.ArtifactHealthDocument()
	if !ok || len(hdoc.Classes) != 1 || hdoc.Classes[0].Health != nil {
		t.Fatalf("health document %+v (ok %v): want class c without a section", hdoc, ok)
	}
	if _, _, ok := newEngine(t).ArtifactHealthDocument(); ok {
		t.Fatal("the shipped artifact embeds no document, yet ArtifactHealthDocument says ok")
	}
}

func TestAnInvalidHealthSectionInTheEmbeddedDocumentIsArtifactDocumentInvalidNamingItsField(t *testing.T) {
	bad := []byte(`{"version":"bad","classes":{"x":{"window_ms":60000,
	  "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
	  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true},
	  "health":{"cache_ms":0}}}}`)
	_, err := New(context.Background(), WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, bad)))
	ae := wantCode(t, err, ArtifactDocumentInvalid, documentSection, "classes.x.health.cache_ms")
	var pe *PolicyError
	if !errors.As(ae, &pe) || pe.Field != "classes.x.health.cache_ms" {
		t.Fatalf("the cause is not the policy error on classes.x.health.cache_ms: %#v", ae.Err)
	}
}

func TestSwappingInAnArtifactWithAFormatThreeDocumentMakesItsHealthCurrent(t *testing.T) {
	ctx := context.Background()
	plain := []byte(`{"version":"f2","classes":{"x":{"window_ms":60000,
	  "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
	  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true}}}}`)
	e := newEngine(t, WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, plain)))
	if h, _, _ := e.ArtifactHealthDocument(); classHealth(h, "x") != nil {
		t.Fatalf("before the swap: %+v, want format 2", h)
	}
	if _, err := e.SwapArtifact(ctx, AppendCustomSection(embeddedArtifact, documentSection, []byte(formatThreeDocument)), ""); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := e.ArtifactHealthDocument(); classHealth(h, "x") == nil || h.Version != "f3-embedded" {
		t.Fatalf("after the swap: %+v, want f3-embedded with class x's section", h)
	}
}

func classHealth(d HealthDocument, name string) *Health {
	for _, c := range d.Classes {
		if c.Name == name {
			return c.Health
		}
	}
	return nil
}
