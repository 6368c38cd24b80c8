package rollout

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io/fs"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/regularfile"
)

// Trusted is the set of Ed25519 public keys whose signatures a replica
// accepts, by key id.
type Trusted struct {
	ids  []string // in the file's order
	keys map[string]ed25519.PublicKey
}

// KeyID is a public key's id: the first 16 lowercase hex digits of
// sha256 of its raw 32 bytes.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// KeyIDs are the trusted keys' ids, in the order the file gives them.
func (t *Trusted) KeyIDs() []string { return append([]string(nil), t.ids...) }

// MaxTrustFileBytes is the largest trust file read (a few keys are ~120
// bytes each).
const MaxTrustFileBytes = 1 << 20

// ReadTrustFile reads ParseTrust's text from path; a file that cannot be
// read, is not a regular file (a fifo is never waited on) or is over
// MaxTrustFileBytes is CodeTrustInvalid too, its message naming the file.
func ReadTrustFile(path string) (*Trusted, error) {
	text, err := regularfile.Read(path, MaxTrustFileBytes)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the path is named once
			err = pe.Err
		}
		return nil, errorf(CodeTrustInvalid, "cannot read the trust file %s: %v", path, err)
	}
	t, err := ParseTrust(text)
	if re := (*Error)(nil); errors.As(err, &re) {
		return nil, errorf(CodeTrustInvalid, "%s: %s", path, re.Message)
	}
	return t, err
}

// ParseTrust reads a trust file: one or more PEM blocks "PUBLIC KEY"
// (SubjectPublicKeyInfo, algorithm Ed25519, as `openssl pkey -pubout`
// writes), other text between blocks ignored. No block, a block that does
// not decode, or a block that is not an Ed25519 public key is an *Error
// with CodeTrustInvalid.
func ParseTrust(text []byte) (*Trusted, error) {
	t := &Trusted{keys: map[string]ed25519.PublicKey{}}
	begins := bytes.Count(text, []byte("-----BEGIN"))
	blocks := 0
	for rest := text; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		blocks++
		if block.Type != "PUBLIC KEY" {
			return nil, errorf(CodeTrustInvalid, "PEM block %d is %q; want PUBLIC KEY (an Ed25519 public key)", blocks, block.Type)
		}
		key, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, errorf(CodeTrustInvalid, "PEM block %d is not a public key: %v", blocks, err)
		}
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return nil, errorf(CodeTrustInvalid, "PEM block %d is a %T, not an Ed25519 public key", blocks, key)
		}
		id := KeyID(pub)
		if _, dup := t.keys[id]; !dup {
			t.ids = append(t.ids, id)
			t.keys[id] = pub
		}
	}
	switch {
	case blocks == 0:
		return nil, errorf(CodeTrustInvalid, "no PEM block \"PUBLIC KEY\" (an Ed25519 public key, as openssl pkey -pubout writes)")
	case blocks != begins: // pem.Decode skips a block it cannot decode: never silently
		return nil, errorf(CodeTrustInvalid, "%d of %d PEM blocks do not decode (damaged base64 or a missing END line)", begins-blocks, begins)
	}
	return t, nil
}
