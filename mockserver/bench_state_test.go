package mockserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
)

// BenchmarkWrite is the write path with and without --state: a validated
// JSON POST that creates a conversation, through ServeHTTP. With --state
// every answer waits until its record is written and fsynced (the state
// file is in the system's temporary directory: its disk is what is
// measured). One caller at a time pays one fsync per write; callers in
// parallel share them (group commit), reported as records/fsync. The
// log's folds into the snapshot, when it outgrows it, are in the time.
func BenchmarkWrite(b *testing.B) {
	for _, tc := range []struct {
		name            string
		state, parallel bool
	}{
		{"memory", false, false},
		{"state", true, false},
		{"memory-parallel", false, true},
		{"state-parallel", true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			fx := fixtures.Default()
			cfg := Config{Keys: []string{testKey1}, Seed: 1, Fixtures: &fx, Clock: lifecycle.NewFakeClock(testEpoch)}
			if tc.state {
				cfg.StateFile = filepath.Join(b.TempDir(), "state.json")
			}
			s, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			_, model := benchServer(b) // the same fixtures: the same ids
			body := fmt.Sprintf(`{"model_id":%d,"title":"Warranty questions"}`, model)
			serve := func() {
				req := httptest.NewRequest(http.MethodPost, "/api/v1/user/conversations", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+testKey1)
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Errorf("status got %d, want 200: %s", rec.Code, rec.Body)
				}
			}
			b.ReportAllocs()
			if tc.parallel {
				b.SetParallelism(8) // 8 callers per core
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						serve()
					}
				})
			} else {
				for b.Loop() {
					serve()
				}
			}
			if tc.state {
				records, syncs := s.persist.wal.Stats()
				b.ReportMetric(float64(records)/float64(max(syncs, 1)), "records/fsync")
			}
		})
	}
}
