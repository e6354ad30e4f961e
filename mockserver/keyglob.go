package mockserver

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// A key pattern (--open-keys, and the key side of --fixtures PATTERN=SET) is
// a glob over the bytes of an API key: `*` is any run of bytes, empty
// included, `?` is one byte, every other byte stands for itself. It is
// matched in time that depends on the lengths of the key and the pattern
// only, never on how far the key agrees with the pattern: a client timing
// its 401s learns nothing of the pattern, as it learns nothing of a
// configured key (server.go compares digests in constant time).

// Bounds of key patterns and of the keys they are matched against.
const (
	maxPatternLen = 128 // bytes of one pattern
	maxMatchedKey = 256 // bytes of a key a pattern may match; longer keys match none
)

// keyPattern is one compiled pattern.
type keyPattern struct {
	text string
	// One element per pattern byte: the byte, and whether it is `*` or
	// `?` (as 0 or 1, so that matching combines them without branching).
	lit  []byte
	star []byte
	one  []byte
}

// compileKeyPattern checks and compiles a pattern. A pattern needs one
// literal byte at least: `*` alone would open an account for every key, and
// a key nobody was given would be answered as a valid one.
func compileKeyPattern(text string) (keyPattern, error) {
	switch {
	case text == "":
		return keyPattern{}, errors.New("an empty key pattern")
	case len(text) > maxPatternLen:
		return keyPattern{}, fmt.Errorf("key pattern %q: at most %d bytes", text[:32]+"...", maxPatternLen)
	case strings.Trim(text, "*?") == "":
		return keyPattern{}, fmt.Errorf("key pattern %q accepts every key: give it a fixed part, such as test-*", text)
	}
	p := keyPattern{text: text, lit: make([]byte, len(text)), star: make([]byte, len(text)), one: make([]byte, len(text))}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c <= ' ' || c == 0x7f {
			return keyPattern{}, fmt.Errorf("key pattern %q: a space or control character cannot be part of a key", text)
		}
		switch c {
		case '*':
			p.star[i] = 1
		case '?':
			p.one[i] = 1
		default:
			p.lit[i] = c
		}
	}
	return p, nil
}

// match reports whether key matches the pattern. The work is the same for
// every key of the same length: a full table of which pattern prefix
// matches which key prefix, each cell computed without a branch on the
// key's bytes.
func (p keyPattern) match(key string) bool {
	n, m := len(key), len(p.lit)
	if n > maxMatchedKey {
		return false
	}
	// prev[j] (cur[j]): pattern[:j] matches the key's first i-1 (i) bytes.
	var a, b [maxPatternLen + 1]byte
	prev, cur := a[:m+1], b[:m+1]
	prev[0] = 1
	for j := 1; j <= m; j++ {
		prev[j] = prev[j-1] & p.star[j-1]
	}
	for i := 0; i < n; i++ {
		c := key[i]
		cur[0] = 0
		for j := 1; j <= m; j++ {
			eq := byte(subtle.ConstantTimeByteEq(p.lit[j-1], c)) | p.one[j-1]
			single := prev[j-1] & eq
			run := cur[j-1] | prev[j] // `*` matches nothing more, or one more byte
			s := p.star[j-1]
			cur[j] = s&run | (s^1)&single
		}
		prev, cur = cur, prev
	}
	return prev[m] == 1
}

// keyPatterns is a list of patterns; a key matches the list when it
// matches one of them.
type keyPatterns []keyPattern

// first returns the index of the first pattern key matches, or -1. Every
// pattern is tried, whatever matched before, so the time does not tell
// which one matched.
func (ps keyPatterns) first(key string) int {
	hit := -1
	for i, p := range ps {
		if p.match(key) && hit < 0 {
			hit = i
		}
	}
	return hit
}

// CheckKeyPattern reports what is wrong with a key pattern, for a command
// line to refuse it before the server is built.
func CheckKeyPattern(text string) error {
	_, err := compileKeyPattern(text)
	return err
}
