// Package textlog is slog.TextHandler's output for a busy server's flat
// lines, written without its general machinery: a record of plain keys and
// string, integer and duration values (the mock's access line) is formatted
// here, byte for byte as slog.TextHandler writes it; anything else (a
// group, an error value, a string that needs quoting, a handler with
// attributes of its own) goes to a slog.TextHandler with the same options.
//
// The access line is written once per request; slog's general handler
// (its handle state, attribute resolution, the quoting scan of every key)
// was a measurable share of the mock's CPU per answer.
package textlog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Handler writes slog.TextHandler's lines. Create it with New.
type Handler struct {
	text *slog.TextHandler
	out  *lockedWriter
	fast bool // no ReplaceAttr nor AddSource: the lines are slog's defaults
}

// New returns a Handler writing to w with opts (nil: the defaults), as
// slog.NewTextHandler(w, opts) would.
func New(w io.Writer, opts *slog.HandlerOptions) *Handler {
	out := &lockedWriter{w: w}
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	return &Handler{
		text: slog.NewTextHandler(out, opts),
		out:  out,
		fast: opts.ReplaceAttr == nil && !opts.AddSource,
	}
}

// Enabled is the TextHandler's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.text.Enabled(ctx, l) }

// WithAttrs returns the TextHandler's: a line with attributes of the
// handler's own is not the flat line this package writes.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler { return h.text.WithAttrs(as) }

// WithGroup returns the TextHandler's (see WithAttrs).
func (h *Handler) WithGroup(name string) slog.Handler { return h.text.WithGroup(name) }

// Handle writes r as one line in a single Write.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast || r.Time.IsZero() || !plain(r.Message) {
		return h.text.Handle(ctx, r)
	}
	bp := buffers.Get().(*[]byte)
	defer putBuffer(bp)
	b, ok := appendLine((*bp)[:0], r)
	*bp = b
	if !ok {
		return h.text.Handle(ctx, r)
	}
	_, err := h.out.Write(b)
	return err
}

// appendLine formats r as slog.TextHandler does, or reports false for a
// record it does not format.
func appendLine(b []byte, r slog.Record) ([]byte, bool) {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, r.Time.Round(0))
	b = append(b, " level="...)
	b = append(b, r.Level.String()...)
	b = append(b, " msg="...)
	b = append(b, r.Message...)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" || !plain(a.Key) {
			ok = false
			return false
		}
		v := a.Value
		b = append(b, ' ')
		b = append(b, a.Key...)
		b = append(b, '=')
		switch v.Kind() {
		case slog.KindString:
			s := v.String()
			if !plain(s) {
				ok = false
				return false
			}
			b = append(b, s...)
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			ok = false
			return false
		}
		return true
	})
	return append(b, '\n'), ok
}

// appendRFC3339Millis is slog's time format: RFC 3339, exactly three
// digits of milliseconds (slog's own trick: format with a tenth of a
// millisecond added, so RFC3339Nano keeps four digits, and drop the fourth).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// plain reports whether slog writes s as it is, unquoted. It is narrower
// than slog's own rule (any printable text without space, '=' or '"'): a
// string outside it is left to the TextHandler, which quotes it or not.
func plain(s string) bool {
	if s == "" {
		return false // slog writes ""
	}
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

// plainByte are the bytes of plain strings: letters, digits and the ASCII
// punctuation of paths and durations, never space, '=', '"' nor '\\'.
var plainByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte("-._~/:%+,;@!*'()$&?[]") {
		t[c] = true
	}
	return t
}()

// lockedWriter serialises the writes of the fast path and of the
// TextHandler, so two lines never interleave whatever w is.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// putBuffer keeps a line's buffer unless one huge line grew it.
func putBuffer(bp *[]byte) {
	if cap(*bp) <= 4<<10 {
		buffers.Put(bp)
	}
}
