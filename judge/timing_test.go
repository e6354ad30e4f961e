package judge

import (
	"strings"
	"testing"
	"time"
)

func TestIncremental(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		timing   StreamTiming
		skip     bool
		problems string
	}{
		{"streamed", StreamTiming{FirstToken: 10 * ms, LastToken: 70 * ms, Duration: 75 * ms, Tokens: 40}, false, ""},
		{"delivered whole, quickly", StreamTiming{FirstToken: 20 * ms, LastToken: 20 * ms, Duration: 21 * ms, Tokens: 40}, true, ""},
		{"held back to the end", StreamTiming{FirstToken: 300 * ms, LastToken: 301 * ms, Duration: 302 * ms, Tokens: 40}, false, "delivered whole"},
		{"one piece", StreamTiming{FirstToken: 300 * ms, LastToken: 300 * ms, Duration: 302 * ms, Tokens: 1}, false, "one piece"},
		{"slow retrieval, then streamed", StreamTiming{FirstToken: 3 * time.Second, LastToken: 3*time.Second + 60*ms, Duration: 3*time.Second + 61*ms, Tokens: 30}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, skip := tt.timing.Incremental()
			p := fs.Lines()
			if (skip != "") != tt.skip {
				t.Fatalf("skip %q, want skip %v", skip, tt.skip)
			}
			if tt.problems == "" && len(p) != 0 || tt.problems != "" && (len(p) != 1 || !strings.Contains(p[0], tt.problems)) {
				t.Errorf("problems %q, want %q", p, tt.problems)
			}
		})
	}
}

func TestStreamTimingCountsAnswerChunks(t *testing.T) {
	s := &Stream{
		Events: []Event{{Data: `{"type":"status","content":"retrieving"}`}, {Data: `{"type":"token","content":"a"}`},
			{Data: `{"type":"delta","content":"b"}`}, {Data: `{"type":"done"}`}, {Data: "[DONE]"}},
		At:  []time.Duration{1 * time.Millisecond, 5 * time.Millisecond, 30 * time.Millisecond, 31 * time.Millisecond, 32 * time.Millisecond},
		End: 33 * time.Millisecond,
	}
	got := s.Timing(10 * time.Millisecond)
	want := StreamTiming{FirstToken: 15 * time.Millisecond, LastToken: 40 * time.Millisecond, Duration: 43 * time.Millisecond, Tokens: 2}
	if got != want {
		t.Errorf("timing %+v, want %+v", got, want)
	}
}
