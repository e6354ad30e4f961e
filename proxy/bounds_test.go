package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"contractkit/internal/hostile"
)

// A target that floods, goes silent in a stream or sends headers without
// end is cut by the proxy's bounds: the client's answer ends, and the
// exchange's finding names the bound.
func TestAnswerOverABoundIsCutWithItsReason(t *testing.T) {
	for name, tc := range map[string]struct {
		path, body string
		serve      http.HandlerFunc
		want       string
	}{
		"flood": {"/api/v1/user/model", "", func(w http.ResponseWriter, r *http.Request) {
			hostile.Endless(w, r, "application/json", []byte(`{"status":"success","data":[`), ' ', 64<<20)
		}, "the answer's body is over 1 MiB"},
		"silent stream": {"/api/v1/user/inference", inferenceBody, func(w http.ResponseWriter, r *http.Request) {
			out := hostile.StartStream(w)
			_, _ = out.Write([]byte("data: {\"type\":\"token\",\"content\":\"a\"}\n\n"))
			_ = out.Flush()
			hostile.Hold(r.Context(), time.Minute)
		}, "the stream sent no event for 200ms"},
		"headers": {"/api/v1/user/model", "", func(w http.ResponseWriter, r *http.Request) {
			_ = hostile.EndlessHeaders(w, r, 64<<20)
		}, "the answer's headers are over"},
	} {
		t.Run(name, func(t *testing.T) {
			th := newThrough(t, newUpstream(t, tc.serve))
			th.P.SetBounds(Bounds{Answer: 1 << 20, StreamIdle: 200 * time.Millisecond, StreamDuration: time.Minute, AnswerTimeout: time.Minute})
			method := http.MethodGet
			if tc.body != "" {
				method = http.MethodPost
			}
			req, _ := http.NewRequest(method, th.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Content-Type", "application/json")
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the client's answer did not end")
			}
			th.settle(t)
			eventually(t, 10*time.Second, "a finding naming the bound", func() bool { return strings.Contains(th.Out.String(), tc.want) })
		})
	}
}
