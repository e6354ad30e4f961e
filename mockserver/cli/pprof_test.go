package cli

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

func TestPprofRefusesANonLoopbackAddress(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "192.0.2.1:6060", "example.com:6060", "6060"} {
		m, _, _ := newMain()
		if err := m.ParseFlags([]string{"--pprof", addr}, env(nil)); err == nil {
			t.Errorf("--pprof %q accepted, want a loopback-only error", addr)
		}
	}
	m, _, _ := newMain()
	if err := m.ParseFlags(nil, env(map[string]string{"MOCK_PPROF": "0.0.0.0:6060"})); err == nil {
		t.Error("MOCK_PPROF=0.0.0.0:6060 accepted, want a loopback-only error")
	}
	for _, addr := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060"} {
		m, _, _ := newMain()
		if err := m.ParseFlags([]string{"--pprof", addr}, env(nil)); err != nil {
			t.Errorf("--pprof %q refused: %v", addr, err)
		}
	}
}

// TestPprofServesOnItsOwnListenerOnly: the profile endpoints answer on the
// --pprof address and are unknown to the API address.
func TestPprofServesOnItsOwnListenerOnly(t *testing.T) {
	m, out, _ := newMain()
	if err := m.ParseFlags([]string{"--addr", "127.0.0.1:0", "--pprof", "127.0.0.1:0", "--api-key", "k", "--fixtures", "none", "--log-level", "error"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(run(t, m).url, "http://")
	// Run prints the pprof address before it reports the API address.
	match := regexp.MustCompile(`pprof on http://(127\.0\.0\.1:\d+)/debug/pprof/`).FindStringSubmatch(out.String())
	if match == nil {
		t.Fatalf("stdout got %q, want the pprof address", out.String())
	}
	client := &http.Client{Timeout: patience}
	get := func(url string, header ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://" + match[1] + "/debug/pprof/heap?debug=1"); code != 200 || !strings.Contains(body, "heap profile") {
		t.Errorf("pprof heap got %d %.100q, want 200 and a heap profile", code, body)
	}
	if code, body := get("http://"+addr+"/debug/pprof/heap?debug=1", "Authorization", "Bearer k"); code != http.StatusNotFound || strings.Contains(body, "heap profile") {
		t.Errorf("the API address answered /debug/pprof/heap with %d %.100q, want the 404 envelope", code, body)
	}
	client.CloseIdleConnections()
}

// TestGoRaisedTheOpenFileLimit: the mock holds a socket per open stream
// and relies on Go lifting the soft open-file limit to the hard one at
// start-up (Go 1.19 and later), as it did in this test binary.
func TestGoRaisedTheOpenFileLimit(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur != l.Max {
		t.Errorf("soft limit %d, want the hard limit %d", l.Cur, l.Max)
	}
}
