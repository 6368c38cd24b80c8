package component

import (
	"errors"
	"unicode/utf8"
)

var errTruncated = errors.New("component: truncated binary")

// reader decodes the few primitives of the wasm binary format needed here.
type reader struct {
	buf []byte
	pos int
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.buf) {
		return 0, errTruncated
	}
	b := r.buf[r.pos]
	r.pos++
	return b, nil
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := uint(0); shift < 35; shift += 7 {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		if shift == 28 && b > 0x0f {
			return 0, errors.New("component: LEB128 u32 overflows")
		}
		v |= uint32(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("component: LEB128 u32 too long")
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.buf)-r.pos {
		return nil, errTruncated
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(int(n))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", errors.New("component: a name is not valid UTF-8")
	}
	return string(b), nil
}
