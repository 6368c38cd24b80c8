package main

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// Which health section a new event runs under: --policy's, or without
// it the artifact's embedded document's (docs/artifact.md step 6: its
// health sections count as the document's own).

// sectionOf is class's entry of doc when it has a health section (nil:
// format 2), and doc's version.
func sectionOf(doc rp.HealthDocument, class string) (*rp.HealthClass, string) {
	for i := range doc.Classes {
		if c := doc.Classes[i]; c.Name == class && c.Health != nil {
			return &c, doc.Version
		}
	}
	return nil, ""
}

// classNow is the class (with its section) and version a new event is
// admitted under now: --policy's, fixed for the run; the artifact's
// document's, read at each event, so a swap's health is what new events
// run under (nil: format 2).
func (h *healthRun) classNow(engine *rp.Engine, class string) (*rp.HealthClass, string) {
	if !h.follow {
		return h.class, h.version
	}
	doc, _, ok := engine.ArtifactHealthDocument()
	if !ok {
		return nil, ""
	}
	return sectionOf(doc, class)
}
