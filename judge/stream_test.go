package judge

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadEvents(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"LF", "data: a\n\ndata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []Event{{Data: "a"}, {Data: "b"}}},
		{"lone CR", "data: a\r\rdata: b\r\r", []Event{{Data: "a"}, {Data: "b"}}},
		{"comments are skipped", ": keep-alive\n\ndata: a\n: more\n\n", []Event{{Data: "a"}}},
		{"event and id fields", "event: token\nid: 7\ndata: {}\n\n", []Event{{Name: "token", ID: "7", Data: "{}"}}},
		{"the id carries over, the name does not", "event: x\nid: 1\ndata: a\n\ndata: b\n\n", []Event{{Name: "x", ID: "1", Data: "a"}, {ID: "1", Data: "b"}}},
		{"multi-line data is joined", "data: a\ndata: b\n\n", []Event{{Data: "a\nb"}}},
		{"no space after the colon", "data:a\n\n", []Event{{Data: "a"}}},
		{"an event without data is not dispatched", "event: ping\n\ndata: a\n\n", []Event{{Data: "a"}}},
		{"retry and unknown fields are ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []Event{{Data: "a"}}},
		{"a last event without a blank line", "data: a\n\ndata: [DONE]", []Event{{Data: "a"}, {Data: "[DONE]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Event
			err := ReadEvents(strings.NewReader(tt.in), func(e Event) bool { got = append(got, e); return true })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// oneByteReader returns one byte per Read, so a CRLF is split across reads.
type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, errEOF
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

var errEOF = errors.New("EOF")

func TestReadEventsCRLFAcrossReads(t *testing.T) {
	var got []string
	err := ReadEvents(&oneByteReader{"data: a\r\n\r\ndata: b\r\n\r\n"}, func(e Event) bool { got = append(got, e.Data); return true })
	if err != nil && !errors.Is(err, errEOF) {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func readString(t *testing.T, s string) *Stream {
	t.Helper()
	return ReadStream(strings.NewReader(s), time.Minute, func() {})
}

func TestStreamRules(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		problems  []string // substrings, one per expected problem
		tolerant  string
		strict    string
		chunkProb int
	}{
		{
			name:     "the contract's stream",
			in:       ": hi\r\nevent: message\r\nid: 1\r\ndata: {\"type\":\"status\",\"content\":\"retrieving\"}\r\n\r\ndata: {\"type\":\"token\",\"content\":\"24 \"}\r\n\r\ndata: {\"type\":\"token\",\"content\":\"months\"}\r\n\r\ndata: {\"type\":\"done\",\"thread_id\":\"t\"}\r\n\r\ndata: [DONE]\r\n\r\n",
			tolerant: "24 months", strict: "24 months",
		},
		{
			name:     "delta chunks are joined like token chunks (D-03)",
			in:       "data: {\"type\":\"delta\",\"content\":\"a\"}\n\ndata: {\"type\":\"delta\",\"content\":\"b\"}\n\ndata: [DONE]\n\n",
			tolerant: "ab", strict: "ab", chunkProb: 1,
		},
		{
			name:     "reasoning chunks are not part of the answer (D-03)",
			in:       "data: {\"type\":\"reasoning\",\"content\":\"think\"}\n\ndata: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: {\"type\":\"done\"}\n\ndata: [DONE]\n\n",
			tolerant: "a", strict: "a",
		},
		{
			name:     "a whole message chunk",
			in:       "data: {\"type\":\"message\",\"content\":\"whole\"}\n\ndata: [DONE]\n\n",
			tolerant: "whole", chunkProb: 3,
		},
		{
			name:     "no [DONE]",
			in:       "data: {\"type\":\"token\",\"content\":\"a\"}\n\n",
			problems: []string{"stream:end: stream: want `data: [DONE]` last, got the stream ended without it (§4.4)"},
			tolerant: "a", strict: "a", chunkProb: 1,
		},
		{
			name:     "data that is not JSON",
			in:       "data: hello\n\ndata: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: [DONE]\n\n",
			problems: []string{`stream:1: stream: want JSON data (or [DONE]), got "hello"`},
			tolerant: "a", strict: "a", chunkProb: 1,
		},
		{
			name:     "events after [DONE]",
			in:       "data: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: [DONE]\n\ndata: {}\n\n",
			problems: []string{"stream:3: stream: want nothing after `data: [DONE]`, got an event"},
			tolerant: "a", strict: "a", chunkProb: 1,
		},
		{
			name: "a done chunk's result fields of the declared types, a null read as not carried (§2.11)",
			in: "data: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: {\"type\":\"done\",\"thread_id\":\"t\",\"tokens_used\":7,\"latency_ms\":412," +
				"\"conversation_id\":null,\"metadata\":{\"model_id\":7,\"score\":0.5},\"extra\":1.5}\n\ndata: [DONE]\n\n",
			tolerant: "a", strict: "a",
		},
		{
			name: "a done chunk's result fields of other types break the assembled result (§2.11)",
			in: "data: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: {\"type\":\"done\",\"thread_id\":\"t\",\"tokens_used\":\"7\",\"latency_ms\":103.482," +
				"\"conversation_id\":42}\n\ndata: [DONE]\n\n",
			problems: []string{
				"stream:done/conversation_id: stream: want the inference result's conversation_id: string, got number 42 (§2.11)",
				"stream:done/latency_ms: stream: want the inference result's latency_ms: integer, got number 103.482 (§2.11)",
				`stream:done/tokens_used: stream: want the inference result's tokens_used: integer, got string 7 (§2.11)`,
			},
			tolerant: "a", strict: "a",
		},
		{
			name:      "an empty answer",
			in:        "data: {\"type\":\"status\",\"content\":\"x\"}\n\ndata: [DONE]\n\n",
			problems:  []string{"stream:end: stream: want the answer's text"},
			chunkProb: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readString(t, tt.in)
			fs := replay("runInference", s, false)
			p := fs.Class(Declared).Lines()
			if len(p) != len(tt.problems) {
				t.Fatalf("Problems() = %q, want %d problems %q", p, len(tt.problems), tt.problems)
			}
			for i, w := range tt.problems {
				if !strings.Contains(p[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p[i], w)
				}
			}
			if got := s.Text(false); got != tt.tolerant {
				t.Errorf("Text(false) = %q, want %q", got, tt.tolerant)
			}
			if got := s.Text(true); got != tt.strict {
				t.Errorf("Text(true) = %q, want %q", got, tt.strict)
			}
			if got := fs.Decision(chunkDecision); len(got) != tt.chunkProb {
				t.Errorf("D-03 findings %q, want %d", got.Lines(), tt.chunkProb)
			}
			for _, f := range fs {
				if f.Side != Server || f.Operation != "runInference" || (f.Class == Declared) != (f.Decision == "") {
					t.Errorf("finding %+v: the server's, of the operation, declared without a decision", f)
				}
			}
		})
	}
}

// A server that sends one event and then nothing must fail the read at the
// idle limit, not hang.
func TestStalledStreamHitsTheDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"type\":\"token\",\"content\":\"a\"}\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	s := ReadStream(resp.Body, 50*time.Millisecond, cancel)
	if !errors.Is(s.Err, ErrStalled) {
		t.Fatalf("Err = %v, want ErrStalled", s.Err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the read took %s", elapsed)
	}
	if len(s.Events) != 1 {
		t.Errorf("read %d events before the stall, want 1", len(s.Events))
	}
	if p := replay("runInference", s, false).Lines(); len(p) == 0 || !strings.Contains(p[0], "stalled") {
		t.Errorf("findings %q, want the stall first", p)
	}
	if p := replay("runInference", s, true); len(p) != 0 {
		t.Errorf("a stream the reader cut is judged by its events only: %q", p.Lines())
	}
}

// The whole-stream deadline (the request context) ends a stream that keeps
// sending but never finishes.
func TestEndlessStreamHitsTheContextDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				w.Write([]byte(": still here\n\n"))
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s := ReadStream(resp.Body, time.Minute, cancel)
	if s.Err == nil || errors.Is(s.Err, ErrStalled) {
		t.Fatalf("Err = %v, want the context's deadline", s.Err)
	}
}
