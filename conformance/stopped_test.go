package conformance

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"contractkit/report"
)

// slowServer answers the probe (its first request) at once and every
// other request 401 after delay, or never when delay is negative (it
// waits for the client to leave). It counts the requests.
func slowServer(t *testing.T, delay time.Duration) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 1 {
			if delay < 0 {
				<-r.Context().Done()
				return
			}
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"status":"error","message":"Invalid or missing API key"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// readReports reads the JSON report and checks that the JUnit and HTML
// reports were written and the JUnit one parses.
func readReports(t *testing.T, dir string) report.Run {
	t.Helper()
	r, err := report.ReadJSON(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("the JSON report: %v", err)
	}
	var junit struct {
		Suites []struct{} `xml:"testsuite"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "j.xml"))
	if err == nil {
		err = xml.Unmarshal(b, &junit)
	}
	if err != nil || len(junit.Suites) != 1 {
		t.Fatalf("the JUnit report: %v", err)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || len(html) == 0 {
		t.Fatalf("the HTML report: %v", err)
	}
	return r
}

func reportArgs(dir string) []string {
	return []string{"--api-key", testKey, "--timeout", "10s", "--focus", "bearer key is unknown",
		"--junit", filepath.Join(dir, "j.xml"), "--json", filepath.Join(dir, "r.json"), "--html", filepath.Join(dir, "r.html")}
}

// --deadline stops the run: exit 1, the reports written with what ran,
// the reason said.
func TestDeadlineWritesTheReports(t *testing.T) {
	base, _ := slowServer(t, 500*time.Millisecond) // 23 checks: over 11 s
	dir := t.TempDir()
	begin := time.Now()
	code, out := runChild(t, append(reportArgs(dir), "--base-url", base, "--deadline", "2s")...)
	if code != ExitFail || !strings.Contains(out, "the run was stopped (Suite Timeout Elapsed)") || !strings.Contains(out, "Conformance summary") {
		t.Errorf("exit %d, want %d with the reason and the summary:\n%s", code, ExitFail, out)
	}
	if took := time.Since(begin); took > 45*time.Second {
		t.Errorf("the run took %s past a 2s deadline", took)
	}
	r := readReports(t, dir)
	ran := 0
	for _, c := range r.Checks {
		if c.State == report.Passed {
			ran++
		}
	}
	if r.Succeeded || ran == 0 || len(r.Stopped) == 0 {
		t.Errorf("the report: succeeded %t with %d checks passed, stopped %q; want a failed run holding what ran, and why it stopped", r.Succeeded, ran, r.Stopped)
	}
}

// SIGTERM (and SIGINT) stop the run the same way.
func TestSignalWritesTheReports(t *testing.T) {
	childRuns(t)
	base, n := slowServer(t, 500*time.Millisecond)
	dir := t.TempDir()
	raw, _ := json.Marshal(append(reportArgs(dir), "--base-url", base))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for n.Load() < 3 { // the probe and two checks' requests: the run is on
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != ExitFail || !strings.Contains(out.String(), "the run was stopped") {
		t.Errorf("after SIGTERM: %v, want exit %d with the reason:\n%s", err, ExitFail, out.String())
	}
	if r := readReports(t, dir); r.Succeeded || len(r.Checks) == 0 {
		t.Errorf("the report: succeeded %t, %d checks", r.Succeeded, len(r.Checks))
	}
}

// A server that stops answering has the rest of the area skipped with the
// reason after a few deadlines, not waited out one timeout at a time.
func TestStalledAreaIsSkipped(t *testing.T) {
	base, n := slowServer(t, -1)
	dir := t.TempDir()
	args := reportArgs(dir)
	args[3] = "1s" // --timeout: each request waits 1 s
	code, out := runChild(t, append(args, "--base-url", base)...)
	if code != ExitFail {
		t.Errorf("exit %d, want %d:\n%s", code, ExitFail, out)
	}
	r := readReports(t, dir)
	skipped := 0
	for _, c := range r.Checks {
		if c.State == report.Skipped && strings.Contains(c.SkipReason, "the server stopped answering") {
			skipped++
		}
	}
	if skipped == 0 || n.Load() > 10 {
		t.Errorf("%d checks skipped as stopped, %d requests sent; want the area skipped after a few deadlines:\n%s", skipped, n.Load(), out)
	}
}
