package judge

import (
	"context"
	"strings"
	"testing"
	"time"
)

// FuzzReadStream holds the event-stream parser and its judges to "any bytes end in
// a parsed Stream or an error, never a panic", and checks what it claims
// about its input: a Done stream saw the [DONE] marker.
func FuzzReadStream(f *testing.F) {
	f.Add("data: {\"type\":\"token\",\"content\":\"hi\"}\n\ndata: [DONE]\n\n")
	f.Add("event: x\r\nid: 1\r\ndata: a\r\ndata: b\r\n\r\n: comment\rretry: 5\r\r")
	f.Add("data:[DONE]\n\ndata: after\n\n")
	f.Add("data: {\"type\":\"done\",\"tokens_used\":-1}\n\n")
	f.Add(strings.Repeat("data: x\n", 100) + "\n")
	f.Fuzz(func(t *testing.T, body string) {
		_, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := ReadStream(strings.NewReader(body), time.Minute, cancel)
		if s.Done && !strings.Contains(body, doneMarker) {
			t.Fatalf("Done without %s in %q", doneMarker, body)
		}
		_ = s.Text(true)
		_ = s.Text(false)
		for _, f := range replay("runInference", s, false) {
			if f.Side != Server || f.Rule != RuleStream && f.Rule != RuleChunk {
				t.Fatalf("a stream finding of another rule: %+v", f)
			}
		}
		_ = s.DoneChunk()
	})
}
