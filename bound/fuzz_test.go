package bound

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"testing"
)

// lineEnd is an event stream's line end (WHATWG): CRLF, LF or a lone CR.
var lineEnd = regexp.MustCompile(`\r\n|\r|\n`)

// firstOverEvent is the reference for the event bound, computed on the
// whole input at once: the lines, each with its end; an event counts its
// lines' bytes with their ends, a blank line ends it. It returns the
// offset of the first byte that takes an event past limit, or -1.
func firstOverEvent(data []byte, limit int) int {
	size, start := 0, 0
	atLineStart := true
	for _, loc := range append(lineEnd.FindAllIndex(data, -1), []int{len(data), len(data)}) {
		line, end := loc[0]-start, loc[1]-loc[0]
		if line == 0 && end > 0 && atLineStart {
			size = 0 // a blank line: its end is not counted
		} else {
			if size+line+end > limit {
				return start + limit - size
			}
			size += line + end
		}
		atLineStart = end > 0
		start = loc[1]
	}
	return -1
}

// chunks reads data in the pieces cuts gives, so a CRLF, an event or a
// line falls across reads.
type chunks struct {
	data []byte
	cuts []byte
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.cuts) > 0 {
		n = int(c.cuts[0])%len(c.data) + 1
		c.cuts = c.cuts[1:]
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzEventBound: whatever the bytes and however they are split into
// reads, a Reader without a bound passes them unchanged, and one with an
// event bound keeps exactly the bytes before the first byte the reference
// finds over it, and says so.
func FuzzEventBound(f *testing.F) {
	f.Add([]byte("data: one\n\ndata: two\r\n\r\n: comment\r\rdata: three\n\n"), []byte{3, 1, 7}, uint8(12))
	f.Add([]byte("data: "+string(bytes.Repeat([]byte("x"), 300))), []byte{}, uint8(100))
	f.Add([]byte("\r\n\r\ndata: a\r\ndata: b\r\n\r\n"), []byte{0, 0, 0, 1}, uint8(8))
	f.Fuzz(func(t *testing.T, data, cuts []byte, limit uint8) {
		free := NewReader(&chunks{data: data, cuts: cuts}, Limits{Idle: 1 << 62}, nil) // watches events, bounds nothing
		defer free.Close()
		all, err := io.ReadAll(free)
		if err != nil || !bytes.Equal(all, data) {
			t.Fatalf("without a bound: %q, %v; want the input %q", all, err, data)
		}
		lim := int(limit) + 1
		got, err := io.ReadAll(NewReader(&chunks{data: data, cuts: cuts}, Limits{Event: int64(lim)}, nil)) // no time bound: no timer
		want := firstOverEvent(data, lim)
		var e *Error
		switch {
		case want < 0 && (err != nil || !bytes.Equal(got, data)):
			t.Fatalf("no event over %d bytes, yet %q, %v", lim, got, err)
		case want >= 0 && (!errors.As(err, &e) || e.Reason != OverEvent || !bytes.Equal(got, data[:want])):
			t.Fatalf("an event over %d bytes at offset %d: kept %d bytes, %v", lim, want, len(got), err)
		}
	})
}
