package retrypolicy

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// wantInvalid fails t unless err is an artifact_invalid *ArtifactError
// whose message contains want.
func wantInvalid(t *testing.T, err error, want string) {
	t.Helper()
	var ae *ArtifactError
	if !errors.As(err, &ae) || ae.Code != ArtifactInvalid {
		t.Fatalf("want an artifact_invalid *ArtifactError, got %T %v", err, err)
	}
	if !strings.Contains(ae.Message, want) {
		t.Fatalf("the message %q does not say %q", ae.Message, want)
	}
}

func TestTheReaderFindsTheMainModuleAndTheBuildSectionOfTheShippedArtifact(t *testing.T) {
	c, err := readContainer(embeddedArtifact)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(c.core, moduleHeader) {
		t.Fatalf("the main module does not start with a core module header: %x", c.core[:8])
	}
	for _, name := range exportNames {
		if !bytes.Contains(c.core, []byte(name)) {
			t.Errorf("the main module lacks the export %s", name)
		}
	}
	if !bytes.Contains(c.custom[buildSection], []byte(`"wit_package":"webhook:retry-policy@1.0.0"`)) &&
		!bytes.Contains(c.custom[buildSection], []byte(`"wit_package": "webhook:retry-policy@1.0.0"`)) {
		t.Errorf("the build section does not name the WIT package: %s", c.custom[buildSection])
	}
	if _, ok := c.custom[documentSection]; ok {
		t.Error("the shipped artifact embeds a document")
	}
}

func TestAnAppendedCustomSectionIsReadBackByName(t *testing.T) {
	doc := []byte(`{"version":"v7","classes":{}}`)
	c, err := readContainer(AppendCustomSection(embeddedArtifact, documentSection, doc))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.custom[documentSection], doc) {
		t.Fatalf("read back %q, wrote %q", c.custom[documentSection], doc)
	}
	// an unknown custom section is skipped, even twice
	twice := AppendCustomSection(AppendCustomSection(embeddedArtifact, "other", nil), "other", nil)
	if _, err := readContainer(twice); err != nil {
		t.Fatal(err)
	}
}

func TestADuplicateKnownCustomSectionIsRefused(t *testing.T) {
	for _, name := range []string{documentSection, buildSection} {
		twice := AppendCustomSection(AppendCustomSection(embeddedArtifact, documentSection, []byte("{}")), name, []byte("{}"))
		if name == buildSection { // the shipped artifact has one already
			twice = AppendCustomSection(embeddedArtifact, buildSection, []byte("{}"))
		}
		_, err := readContainer(twice)
		wantInvalid(t, err, "a second custom section \""+name+"\"")
	}
}

func TestEveryTruncationOfTheArtifactIsRefusedWithAnOffset(t *testing.T) {
	// every cut inside a section's header or body; cuts at a section
	// boundary leave a shorter, still well-formed list of sections
	boundaries := map[int]bool{}
	_ = walkSections(embeddedArtifact, 0, func(_ byte, _ []byte, at, _ int) error {
		boundaries[at] = true
		return nil
	})
	step := 1
	if testing.Short() {
		step = 97
	}
	for n := 0; n < len(embeddedArtifact); n += step {
		_, err := readContainer(embeddedArtifact[:n])
		if boundaries[n] {
			continue // may succeed (a missing main module) or fail; never panic
		}
		var ae *ArtifactError
		if !errors.As(err, &ae) || ae.Code != ArtifactInvalid {
			t.Fatalf("cut at %d: want artifact_invalid, got %v", n, err)
		}
		if n >= 8 && !strings.Contains(ae.Message, "byte") {
			t.Fatalf("cut at %d: the message names no offset: %s", n, ae.Message)
		}
	}
}

func TestAnOversizedSectionIsRefused(t *testing.T) {
	huge := append(append([]byte(nil), componentHeader...), 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 'x')
	_, err := readContainer(huge)
	wantInvalid(t, err, "claims 4294967295 bytes")
	long := append(append([]byte(nil), componentHeader...), 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00)
	_, err = readContainer(long)
	wantInvalid(t, err, "longer than 5 bytes")
	over := append(append([]byte(nil), componentHeader...), 0x00, 0xff, 0xff, 0xff, 0xff, 0x7f)
	_, err = readContainer(over)
	wantInvalid(t, err, "exceeds 32 bits")
}

func TestACoreModuleOrAnotherFileIsNotAComponent(t *testing.T) {
	core := embeddedCore(t)
	_, err := readContainer(core)
	wantInvalid(t, err, "not a component")
	_, err = readContainer([]byte("PK\x03\x04 a zip"))
	wantInvalid(t, err, "not a WebAssembly file")
	_, err = readContainer(nil)
	wantInvalid(t, err, "not a WebAssembly file")
}

func TestAComponentWithoutOrWithTwoMainModulesIsRefused(t *testing.T) {
	_, err := readContainer(componentHeader)
	wantInvalid(t, err, "no main module")
	c, _ := readContainer(embeddedArtifact)
	section := append([]byte{sectionCoreModule}, appendULEB(nil, uint32(len(c.core)))...)
	two := append(append(append([]byte(nil), embeddedArtifact...), section...), c.core...)
	_, err = readContainer(two)
	wantInvalid(t, err, "2 core modules export cabi_realloc")
}

// FuzzTheReaderRefusesOrReadsButNeverPanics feeds the reader mutations of
// the shipped artifact and of small hand-made containers: every input is
// read or refused as artifact_invalid, and whatever is read lies inside
// the input.
func FuzzTheReaderRefusesOrReadsButNeverPanics(f *testing.F) {
	f.Add(embeddedArtifact[:200])
	f.Add(AppendCustomSection(componentHeader, documentSection, []byte("{}")))
	f.Add(append(append([]byte(nil), componentHeader...), 0x01, 0x08, 0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00))
	f.Add(append(append([]byte(nil), componentHeader...), 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := readContainer(b)
		if err != nil {
			var ae *ArtifactError
			if !errors.As(err, &ae) || ae.Code != ArtifactInvalid {
				t.Fatalf("want artifact_invalid, got %T %v", err, err)
			}
			return
		}
		if len(c.core) > len(b) || !bytes.Contains(b, c.core) {
			t.Fatal("the main module is not a part of the input")
		}
		for name, payload := range c.custom {
			if !bytes.Contains(b, payload) {
				t.Fatalf("the section %s is not a part of the input", name)
			}
		}
	})
}
