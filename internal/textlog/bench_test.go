package textlog

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// BenchmarkAccessLine: the mock's line through this handler and through
// slog's TextHandler (go test -bench AccessLine ./internal/textlog/).
func BenchmarkAccessLine(b *testing.B) {
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"textlog", New(io.Discard, nil)}, {"slog", slog.NewTextHandler(io.Discard, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				now := time.Now()
				r := slog.NewRecord(now, slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/api/v1/user/model/1000004"),
					slog.Int("status", 200), slog.Duration("duration", now.Sub(start)))
				_ = h.h.Handle(context.Background(), r)
			}
		})
	}
}
