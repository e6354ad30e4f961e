package textlog

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// lines writes r through a Handler and through slog's TextHandler.
func lines(t *testing.T, opts *slog.HandlerOptions, r slog.Record) (got, want string) {
	t.Helper()
	var a, b bytes.Buffer
	if err := New(&a, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&b, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

// TestTheLinesAreTextHandlersByteForByte: records of every shape, the
// access line's and others (quoted strings, errors, groups, odd times),
// come out exactly as slog.TextHandler writes them.
func TestTheLinesAreTextHandlersByteForByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	strs := []string{"/api/v1/user/model/4", "GET", "", "a b", "x=y", `q"uote`, `back\slash`, "é", "tab\t", "/p%20q", "naïve", "\x00", "[::1]:80", "ok!"}
	zones := []*time.Location{time.UTC, time.FixedZone("X", 5*3600+30*60), time.FixedZone("Y", -7*3600)}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}
	for i := range 5000 {
		when := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
		if i%7 == 0 {
			when = when.Truncate(time.Second) // whole seconds: no fraction in RFC3339Nano
		}
		r := slog.NewRecord(when, levels[rng.IntN(len(levels))], strs[rng.IntN(len(strs))], 0)
		for range rng.IntN(6) {
			key := []string{"method", "path", "status", "duration", "", "a key", "k=v"}[rng.IntN(7)]
			switch rng.IntN(6) {
			case 0, 1:
				r.AddAttrs(slog.String(key, strs[rng.IntN(len(strs))]))
			case 2:
				r.AddAttrs(slog.Int(key, rng.IntN(1000)-500))
			case 3:
				r.AddAttrs(slog.Duration(key, time.Duration(rng.Int64N(int64(time.Minute)))))
			case 4:
				r.AddAttrs(slog.Any(key, errors.New("boom here")))
			case 5:
				r.AddAttrs(slog.Group(key, slog.Int("n", 1)))
			}
		}
		got, want := lines(t, nil, r)
		if got != want {
			t.Fatalf("record %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// TestTheAccessLineTakesTheFastPath: the mock's line is formatted here,
// not by the TextHandler (which would also pass the comparison above).
func TestTheAccessLineTakesTheFastPath(t *testing.T) {
	r := slog.NewRecord(time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/api/v1/user/model/4"),
		slog.Int("status", 200), slog.Duration("duration", 1234*time.Microsecond))
	b, ok := appendLine(nil, r)
	want := "time=2026-01-02T03:04:05.006Z level=INFO msg=request method=GET path=/api/v1/user/model/4 status=200 duration=1.234ms\n"
	if !ok || string(b) != want {
		t.Fatalf("fast path: ok %v, %q; want %q", ok, b, want)
	}
	if got, ref := lines(t, nil, r); got != ref || got != want {
		t.Fatalf("handler wrote %q, TextHandler %q", got, ref)
	}
}

// TestOptionsAndDerivedHandlersAreTextHandlers: a level, ReplaceAttr,
// AddSource, WithAttrs and WithGroup behave as the TextHandler's.
func TestOptionsAndDerivedHandlersAreTextHandlers(t *testing.T) {
	r := slog.NewRecord(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("path", "/x"))
	upper := func(_ []string, a slog.Attr) slog.Attr { a.Key = strings.ToUpper(a.Key); return a }
	for _, o := range []*slog.HandlerOptions{{ReplaceAttr: upper}, {AddSource: true}, {Level: slog.LevelWarn}} {
		if got, want := lines(t, o, r); got != want {
			t.Errorf("%+v: got %q, want %q", o, got, want)
		}
		if New(nil, o).Enabled(context.Background(), slog.LevelInfo) != slog.NewTextHandler(nil, o).Enabled(context.Background(), slog.LevelInfo) {
			t.Errorf("%+v: Enabled differs", o)
		}
	}
	var a, b bytes.Buffer
	_ = New(&a, nil).WithAttrs([]slog.Attr{slog.Int("n", 1)}).WithGroup("g").Handle(context.Background(), r)
	_ = slog.NewTextHandler(&b, nil).WithAttrs([]slog.Attr{slog.Int("n", 1)}).WithGroup("g").Handle(context.Background(), r)
	if a.String() != b.String() {
		t.Errorf("derived: got %q, want %q", a.String(), b.String())
	}
}
