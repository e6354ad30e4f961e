package mockserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestChunkLogRoundTrip(t *testing.T) {
	token := func(s string) string { return `data: {"type":"token","content":"` + s + "\"}\n\n" }
	cases := map[string][]string{
		"none":       nil,
		"one":        {"data: [DONE]\n\n"},
		"a stream":   {`data: {"type":"status","content":"retrieving"}` + "\n\n", token("According "), token("to "), token("ünïcödé "), "data: [DONE]\n\n"},
		"repeats":    {"abc", "abc", "abc"},
		"prefixes":   {"abcdef", "abc", "abcdef", "ab", ""},
		"empty ones": {"", "", "x", ""},
		"long":       {strings.Repeat("x", 300), strings.Repeat("x", 299) + "y", strings.Repeat("y", 200)},
		"unrelated":  {"one", "two", "three"},
	}
	for name, chunks := range cases {
		t.Run(name, func(t *testing.T) {
			var l chunkLog
			size := 0
			for _, c := range chunks {
				l.add([]byte(c))
				size += len(c)
			}
			if got := l.strings(); !slices.Equal(got, chunks) {
				t.Errorf("strings() = %q, want %q", got, chunks)
			}
			if l.n != len(chunks) || l.size != size {
				t.Errorf("n, size = %d, %d; want %d, %d", l.n, l.size, len(chunks), size)
			}
		})
	}
}

// TestChunkLogIsCompact: token events cost a few bytes beyond their
// content, which is the point of the front coding.
func TestChunkLogIsCompact(t *testing.T) {
	var l chunkLog
	raw := 0
	for i := range 100 {
		c := fmt.Sprintf(`data: {"type":"token","content":"word%d "}`+"\n\n", i)
		l.add([]byte(c))
		raw += len(c)
	}
	if len(l.enc) > raw/3 {
		t.Errorf("100 token events take %d bytes encoded, want at most a third of their %d", len(l.enc), raw)
	}
}

// TestChunkLogCopies: the log keeps its own copy; the writer's buffer is
// reused for the next event.
func TestChunkLogCopies(t *testing.T) {
	var l chunkLog
	buf := []byte("first")
	l.add(buf)
	copy(buf, "XXXXX")
	l.add([]byte("second"))
	if got := l.strings(); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("strings() = %q, want [first second]", got)
	}
}
