package store

import (
	"testing"
	"time"

	"contractkit/mockserver/apierr"
)

// BenchmarkConversationViewJSON: the view's own JSON against encoding/json's.
func BenchmarkConversationViewJSON(b *testing.B) {
	at := time.Date(2026, 12, 7, 15, 0, 0, 123e6, time.UTC)
	v := ConversationView{ID: "0b8e4c1e-6c1f-4a57-9a54-3c2a3f1d2e4b", ModelID: 1000004, CreatedAt: at, UpdatedAt: at, Title: "Warranty questions"}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			buf, _ = v.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = apierr.Marshal(v)
		}
	})
}
