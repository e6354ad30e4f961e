package mockserver

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestKeyPatternMatches(t *testing.T) {
	cases := []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{"test-*", []string{"test-", "test-0", "test-worker-12", "test-*"}, []string{"test", "Test-1", "xtest-1", "tes-1", ""}},
		{"e2e-??", []string{"e2e-01", "e2e-ab"}, []string{"e2e-1", "e2e-001", "e2e-"}},
		{"*-ci", []string{"a-ci", "-ci", "run-7-ci"}, []string{"a-ci-", "ci"}},
		{"a*b*c", []string{"abc", "aXbYc", "abbbc", "acbc"}, []string{"ab", "acb", "abcd"}},
		{"exact", []string{"exact"}, []string{"exac", "exactly", "Exact"}},
	}
	for _, c := range cases {
		p, err := compileKeyPattern(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		for _, k := range c.yes {
			if !p.match(k) {
				t.Errorf("%q does not match %q, want a match", c.pattern, k)
			}
		}
		for _, k := range c.no {
			if p.match(k) {
				t.Errorf("%q matches %q, want none", c.pattern, k)
			}
		}
	}
	long := "test-" + strings.Repeat("x", maxMatchedKey)
	if p, _ := compileKeyPattern("test-*"); p.match(long) {
		t.Errorf("a key of %d bytes matched: keys over %d bytes match no pattern", len(long), maxMatchedKey)
	}
}

func TestKeyPatternRefused(t *testing.T) {
	for pattern, says := range map[string]string{
		"":                             "empty",
		"*":                            "every key",
		"**??":                         "every key",
		"test *":                       "space",
		"test-\x01":                    "control",
		strings.Repeat("a", 129) + "*": "at most",
	} {
		err := CheckKeyPattern(pattern)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("pattern %q: got %v, want an error saying %q", pattern, err, says)
		}
	}
}

// globRef is the plain recursive glob the constant-time table must agree
// with.
func globRef(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '*':
		return globRef(p[1:], s) || (s != "" && globRef(p, s[1:]))
	case '?':
		return s != "" && globRef(p[1:], s[1:])
	default:
		return s != "" && s[0] == p[0] && globRef(p[1:], s[1:])
	}
}

// TestKeyPatternAgreesWithAPlainGlob: over patterns and keys from a small
// alphabet (so that matches are frequent), the table's verdict is the
// recursive glob's.
func TestKeyPatternAgreesWithAPlainGlob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pattern := rapid.StringMatching(`[ab*?]{0,7}[ab][ab*?]{0,4}`).Draw(t, "pattern")
		key := rapid.StringMatching(`[abc]{0,12}`).Draw(t, "key")
		p, err := compileKeyPattern(pattern)
		if err != nil {
			t.Fatalf("%q: %v", pattern, err)
		}
		if got, want := p.match(key), globRef(pattern, key); got != want {
			t.Fatalf("%q against %q: got %v, want %v", pattern, key, got, want)
		}
	})
}

func TestKeyPatternsFirst(t *testing.T) {
	var ps keyPatterns
	for _, s := range []string{"e2e-*", "test-*", "test-9*"} {
		p, _ := compileKeyPattern(s)
		ps = append(ps, p)
	}
	for key, want := range map[string]int{"test-91": 1, "e2e-x": 0, "dev": -1} {
		if got := ps.first(key); got != want {
			t.Errorf("first(%q) = %d, want %d", key, got, want)
		}
	}
}

func BenchmarkKeyPatternMatch(b *testing.B) {
	p, _ := compileKeyPattern("test-*")
	key := "sk-live-" + strings.Repeat("k", 40)
	for b.Loop() {
		p.match(key)
	}
}
