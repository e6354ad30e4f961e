package retrieval

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// countingReader counts the bytes read from the upload and refuses to read
// past max, so that an oversized upload is rejected after max+1 bytes rather
// than after it has been read to the end.
//
// It also enforces a span limit: the bytes read since the last markSpan call
// may not exceed spanMax. Parsers that must hold a whole record (the CSV
// reader) or token (the JSON decoder) mark after each one, which bounds the
// memory a single enormous record can take.
type countingReader struct {
	r        io.Reader
	n, max   int64
	tooLarge bool
	readErr  error // a failure of r itself, not of the content
	clock    *workClock

	spanMax, mark int64
	spanErr       error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.tooLarge {
		return 0, ErrTooLarge
	}
	if c.clock != nil && c.clock.expired() {
		return 0, ErrTimeBudget
	}
	if c.spanErr != nil {
		return 0, c.spanErr
	}
	if c.spanMax > 0 && c.n-c.mark > c.spanMax {
		c.spanErr = fmt.Errorf("%w: a single record or value is larger than %d bytes", ErrTooLarge, c.spanMax)
		return 0, c.spanErr
	}
	// Never ask for more than can be accepted, so that one large Read
	// (the JSON decoder doubles its buffer) cannot overshoot a limit.
	if rest := c.max + 1 - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	if c.spanMax > 0 {
		if rest := c.spanMax + 1 - (c.n - c.mark); int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	var t0 time.Time
	if c.clock != nil {
		t0 = c.clock.now()
	}
	n, err := c.r.Read(p)
	if c.clock != nil {
		c.clock.waited += c.clock.now().Sub(t0)
	}
	c.n += int64(n)
	if c.n > c.max {
		c.tooLarge = true
		return n, ErrTooLarge
	}
	if err != nil && err != io.EOF {
		c.readErr = err
	}
	return n, err
}

func (c *countingReader) startSpan(limit int64) {
	c.spanMax = limit
	c.mark = c.n
}

func (c *countingReader) markSpan() { c.mark = c.n }

// textGuard passes bytes through while checking that they are text: no NUL
// bytes and valid UTF-8, including sequences split across reads. The CSV and
// JSON parsers would otherwise accept (or silently replace) binary data.
type textGuard struct {
	r     io.Reader
	carry [utf8.UTFMax]byte // an incomplete rune at the end of the last read
	nc    int
	off   int64
	err   error
}

func (g *textGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if n > 0 {
		if cerr := g.check(p[:n]); cerr != nil {
			g.err = cerr
			return 0, cerr
		}
		g.off += int64(n)
	}
	if err == io.EOF && g.nc > 0 {
		g.err = fmt.Errorf("%w: truncated UTF-8 sequence at end of file", ErrUnsupported)
		return 0, g.err
	}
	return n, err
}

func (g *textGuard) check(b []byte) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d (binary data)", ErrUnsupported, g.off+int64(i))
	}
	if g.nc > 0 {
		need := runeLen(g.carry[0])
		take := min(need-g.nc, len(b))
		copy(g.carry[g.nc:], b[:take])
		g.nc += take
		b = b[take:]
		if g.nc < need {
			return nil
		}
		if !utf8.Valid(g.carry[:need]) {
			return fmt.Errorf("%w: invalid UTF-8 near offset %d", ErrUnsupported, g.off)
		}
		g.nc = 0
	}
	end := completeRunes(b)
	if !utf8.Valid(b[:end]) {
		return fmt.Errorf("%w: invalid UTF-8 near offset %d", ErrUnsupported, g.off)
	}
	g.nc = copy(g.carry[:], b[end:])
	return nil
}

// completeRunes returns the length of b without a trailing incomplete (but
// so far valid) UTF-8 sequence.
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// runeLen is the length of the UTF-8 sequence that lead byte b starts.
func runeLen(b byte) int {
	switch {
	case b < 0xE0:
		return 2
	case b < 0xF0:
		return 3
	default:
		return 4
	}
}

// textBuf accumulates extracted text up to max bytes, cutting at a rune
// boundary. Once full it ignores further writes, so callers can keep
// streaming (to count rows) without growing memory.
type textBuf struct {
	b    []byte
	max  int
	full bool
}

// WriteString appends s, or as much of it as fits.
func (t *textBuf) WriteString(s string) {
	if t.full || s == "" {
		return
	}
	room := t.max - len(t.b)
	if len(s) <= room {
		t.b = append(t.b, s...)
		return
	}
	cut := room
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	t.b = append(t.b, s[:cut]...)
	t.full = true
}

// separate writes sep unless the text is empty or already ends in
// whitespace; a newline upgrades a trailing space.
func (t *textBuf) separate(sep byte) {
	if t.full || len(t.b) == 0 {
		return
	}
	last := t.b[len(t.b)-1]
	switch {
	case last == '\n':
	case last == ' ' && sep == '\n':
		t.b[len(t.b)-1] = '\n'
	case last == ' ':
	default:
		t.WriteString(string(sep))
	}
}

// String returns the text, trimmed of surrounding whitespace and of any
// incomplete rune a fragmented write left at the cut.
func (t *textBuf) String() string {
	b := t.b[:completeRunes(t.b)]
	return strings.TrimSpace(string(b))
}
