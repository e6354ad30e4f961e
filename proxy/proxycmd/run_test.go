package proxycmd

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/internal/envflag"
	"contractkit/proxy"
	"contractkit/report"
	"contractkit/spec/spectest"
)

// runProxy runs the command against target with args, sends traffic
// through it, then SIGTERM, and returns the exit status, the console and
// the report directory.
func runProxy(t *testing.T, target string, traffic func(base string), args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	out := &syncBuffer{}
	sig := make(chan os.Signal, 1)
	addr := make(chan string, 1)
	m := &Main{Stdout: out, Signals: sig, Addr: addr}
	args = append([]string{"--listen", "127.0.0.1:0", "--target", target,
		"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"), "--html", filepath.Join(dir, "r.html"),
		"--coverage", filepath.Join(dir, "coverage.json"), "--record", filepath.Join(dir, "recorded")}, args...)
	if err := m.ParseFlags(args, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	code := make(chan int, 1)
	go func() { code <- m.Run() }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not listen")
	}
	traffic(base)
	sig <- syscall.SIGTERM
	select {
	case c := <-code:
		return c, out.String(), dir
	case <-time.After(20 * time.Second):
		t.Fatal("the proxy did not stop on SIGTERM")
	}
	return 0, "", ""
}

// get sends GET path with the test key through client and reads the answer.
func get(t *testing.T, client *http.Client, base, path string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func TestSIGTERMWritesReportsAndExitStatus(t *testing.T) {
	cases := []struct {
		name, mutant string
		strict       bool
		want         int
		// inReports is in the JUnit and HTML reports.
		inReports string
		// console is the head of the finding lines printed ("" for none).
		console string
	}{
		{"conforming", "", false, ExitPass, "getModel", ""},
		{"declared violation", "envelope-status-ok", false, ExitFail, `/status: envelope: want &#34;success&#34;, got &#34;ok&#34;`, "VIOLATION getModel"},
		// A model status outside the contract's values, which the seed does
		// not fix: a decided difference, failing only with --strict.
		{"decided difference", "valid-model-status-completed", false, ExitPass, "decided: differs (D-", "DECIDED D-"},
		{"decided difference, --strict", "valid-model-status-completed", true, ExitFail, "failing because of --strict", "DECIDED D-"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			if c.strict {
				args = append(args, "--strict")
			}
			mock := newMock(t, c.mutant, 0)
			client := http.DefaultClient
			if c.mutant == "" { // a conforming upstream: its answers pass unchanged
				client = spectest.NewClient(t, nil)
			}
			code, out, dir := runProxy(t, mock.URL, func(base string) {
				get(t, client, base, "/api/v1/user/model")
				get(t, client, base, "/api/v1/user/model/4")
			}, args...)
			if code != c.want {
				t.Fatalf("exit status %d, want %d:\n%s", code, c.want, out)
			}
			findings := strings.Contains(out, "VIOLATION ") || strings.Contains(out, "DECIDED ") || strings.Contains(out, "CLIENT ")
			if c.console == "" && findings || c.console != "" && !strings.Contains(out, c.console) {
				t.Fatalf("console, want findings %q:\n%s", c.console, out)
			}
			if !strings.HasPrefix(out, "proxy listening on http://127.0.0.1:") || !strings.Contains(out, "proxy summary: 2 operation(s) seen") {
				t.Fatalf("console:\n%s", out)
			}
			// The JSON report: the report model, one check per operation,
			// the coverage, the verdict.
			raw, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := report.ReadJSON(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatalf("the JSON report: %v", err)
			}
			if len(r.Checks) != 2 || r.Coverage == nil || r.Coverage.Totals.OperationsCalled != 2 || r.Succeeded != (c.want == ExitPass) ||
				r.Suite != proxy.Suite || !slices.Contains(r.Info.Flags, "proxy") {
				t.Fatalf("JSON report: %d checks (want one per operation: 2), coverage %v, succeeded %v, suite %q, flags %q",
					len(r.Checks), r.Coverage, r.Succeeded, r.Suite, r.Info.Flags)
			}
			if c.name == "decided difference" {
				i := slices.IndexFunc(r.Checks, func(c report.Check) bool { return c.State == report.DecidedDiffers })
				if i < 0 || len(r.Checks[i].Differences) != 1 || len(r.Checks[i].Differences[0].Findings) == 0 {
					t.Errorf("no decided difference as a value: %+v", r.Checks)
				}
			}
			// The contract coverage: its line on stop and its file; the
			// recording: a fixture set.
			if !strings.Contains(out, "Coverage: 2/") {
				t.Fatalf("no coverage line on stop:\n%s", out)
			}
			var cov struct {
				Totals struct {
					OperationsCalled int `json:"operations_called"`
				} `json:"totals"`
			}
			if raw, err := os.ReadFile(filepath.Join(dir, "coverage.json")); err != nil || json.Unmarshal(raw, &cov) != nil || cov.Totals.OperationsCalled != 2 {
				t.Fatalf("the coverage file: %v, %+v", err, cov)
			}
			if _, err := fixtures.Load(filepath.Join(dir, "recorded")); err != nil {
				t.Fatalf("the recording does not load as fixtures: %v\n%s", err, out)
			}
			junit, _ := os.ReadFile(filepath.Join(dir, "r.xml"))
			html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
			for name, body := range map[string]string{"junit": string(junit), "html": string(html), "json": string(raw)} {
				if strings.Contains(body, testKey) || strings.Contains(out, testKey) {
					t.Fatalf("the key is in the %s report or the console", name)
				}
			}
			if !strings.Contains(string(html), c.inReports) && !strings.Contains(string(junit), c.inReports) {
				t.Fatalf("the reports do not show %q:\n%s", c.inReports, junit)
			}
			if c.want == ExitFail && !strings.Contains(string(junit), "<failure") {
				t.Fatalf("the JUnit report has no failure:\n%s", junit)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	env := map[string]string{"CONFORMANCE_PROXY_TARGET": "http://127.0.0.1:9", "CONFORMANCE_PROXY_STRICT": "true"}
	o, err := ParseFlags([]string{"--listen", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || o.Target.String() != "http://127.0.0.1:9" || !o.Strict || o.Listen != "127.0.0.1:0" {
		t.Fatalf("from the environment: %+v, %v", o, err)
	}
	o, err = ParseFlags([]string{"--target", "http://127.0.0.1:10"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || o.Target.String() != "http://127.0.0.1:10" || o.Listen != DefaultListen {
		t.Fatalf("a flag wins over its variable: %+v, %v", o, err)
	}
	for _, bad := range [][]string{{}, {"--target", "ftp://x"}, {"--target", "http://x", "--listen", "nope"}, {"--target", "http://x", "extra"}} {
		if _, err := ParseFlags(bad, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("%q: no usage error", bad)
		}
	}
	var help strings.Builder
	if _, err := ParseFlags([]string{"--help"}, func(string) string { return "" }, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	for _, f := range flagSpecs {
		if !strings.Contains(help.String(), "--"+f.name) || !strings.Contains(help.String(), envflag.Name(envPrefix, f.name)) {
			t.Errorf("--help lacks --%s or its variable", f.name)
		}
	}
	readme, err := os.ReadFile("../../docs/ci.md") // "The validating proxy"
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flagSpecs {
		if !strings.Contains(string(readme), "`--"+f.name) {
			t.Errorf("docs/ci.md does not document the proxy's --%s", f.name)
		}
	}
	m := &Main{Stdout: io.Discard}
	if err := m.ParseFlags([]string{"--target", "http://127.0.0.1:1", "--listen", "256.0.0.1:1"}, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if code := m.Run(); code != ExitUsage {
		t.Fatalf("an address that cannot be listened on: exit %d, want %d", code, ExitUsage)
	}
}

func TestBoundFlags(t *testing.T) {
	env := map[string]string{"CONFORMANCE_PROXY_TARGET": "http://127.0.0.1:9", "CONFORMANCE_PROXY_STREAM_IDLE": "5s", "CONFORMANCE_PROXY_MAX_ANSWER": "4"}
	o, err := ParseFlags([]string{"--stream-duration", "1m", "--answer-timeout", "7s"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (proxy.Bounds{Answer: 4 << 20, StreamIdle: 5 * time.Second, StreamDuration: time.Minute, AnswerTimeout: 7 * time.Second}); o.Bounds != want {
		t.Errorf("bounds got %+v, want %+v", o.Bounds, want)
	}
	if o, _ := ParseFlags([]string{"--target", "http://x"}, func(string) string { return "" }, io.Discard); o.Bounds != proxy.DefaultBounds {
		t.Errorf("default bounds got %+v, want %+v", o.Bounds, proxy.DefaultBounds)
	}
	for _, bad := range [][]string{{"--max-answer", "0"}, {"--stream-idle", "0s"}, {"--answer-timeout", "-1s"}} {
		if _, err := ParseFlags(append([]string{"--target", "http://x"}, bad...), func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("%q: no usage error", bad)
		}
	}
}
