package conformance

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fixedServer answers every request with status and body.
func fixedServer(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRunRefusesABadConfiguration(t *testing.T) {
	base := Config{BaseURL: "http://127.0.0.1:1", APIKey: testKey, Timeout: time.Minute}
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "--base-url is required"},
		{"a relative base URL", func(c *Config) { c.BaseURL = "localhost:8080" }, "want an absolute http or https URL"},
		{"no key", func(c *Config) { c.APIKey = "" }, "--api-key is required"},
		{"the same key twice", func(c *Config) { c.APIKey2 = testKey }, "another account's key"},
		{"no timeout", func(c *Config) { c.Timeout = 0 }, "--timeout"},
		{"a bad label filter", func(c *Config) { c.LabelFilter = "auth &&" }, "--label-filter"},
		{"a bad focus", func(c *Config) { c.Focus = "(" }, "--focus"},
		{"an unwritable report", func(c *Config) { c.JUnit = filepath.Join(t.TempDir(), "no", "such", "dir", "j.xml") }, "--junit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.change(&cfg)
			var out bytes.Buffer
			if code := Run(cfg, &out); code != ExitUsage {
				t.Errorf("exit %d, want %d (usage)\n%s", code, ExitUsage, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output %q, want it to mention %q", out.String(), tt.want)
			}
			if strings.Contains(out.String(), testKey) {
				t.Errorf("the key appears in the output: %s", out.String())
			}
		})
	}
}

func TestRunUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out bytes.Buffer
	code := Run(Config{BaseURL: "http://" + addr, APIKey: testKey, Timeout: time.Minute}, &out)
	if code != ExitUnreachable {
		t.Errorf("exit %d, want %d (unreachable)\n%s", code, ExitUnreachable, out.String())
	}
}

// The exit statuses of whole runs, each in its own process.
func TestRunExitStatus(t *testing.T) {
	unauthorized := fixedServer(t, 401, `{"status":"error","message":"Invalid or missing API key"}`)
	open := fixedServer(t, 200, `{"status":"success","data":[]}`)
	badRequest := fixedServer(t, 400, `{"status":"error","message":"bad request"}`)

	const unknownKey = "bearer key is unknown"
	const unknownIDs = "that the account does not have"
	tests := []struct {
		name     string
		args     []string
		want     int
		contains []string // substrings, or regular expressions after "re:"
	}{
		{"a server that keeps the rules passes", []string{"--base-url", unauthorized, "--focus", unknownKey},
			ExitPass, []string{`re:auth\s+23\s+0\s+0\s+0\s+73\n`}},
		{"a server that breaks a declared rule fails", []string{"--base-url", open, "--focus", unknownKey},
			ExitFail, []string{"status: want 401, got 200", "Reproduce:", `-H 'Authorization: Bearer ck-unknown-`}},
		{"a decided difference is reported, not failed", []string{"--base-url", badRequest, "--focus", unknownIDs},
			ExitPass, []string{"decided: differs (D-17", "refused with another status code", "status: want 404, got 400"}},
		{"a decided difference fails under --strict", []string{"--base-url", badRequest, "--focus", unknownIDs, "--strict"},
			ExitFail, []string{"failing because of --strict"}},
		{"a selection of nothing is a usage error", []string{"--base-url", unauthorized, "--focus", "no check is called this"},
			ExitUsage, []string{"selected no check"}},
		{"isolation is skipped with the reason without a second key", []string{"--base-url", unauthorized, "--label-filter", "isolation"},
			ExitPass, []string{"run with --api-key-2", `re:isolation\s+0\s+0\s+21\s+0\s+0\n`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			reports := map[string]string{"--junit": "j.xml", "--json": "r.json", "--html": "r.html"}
			args := append([]string{"--api-key", testKey, "--api-key-2", testKey2, "--timeout", "10s"}, tt.args...)
			if strings.Contains(tt.name, "isolation") {
				args = append([]string{"--api-key", testKey, "--timeout", "10s"}, tt.args...)
			}
			for flag, name := range reports {
				args = append(args, flag, filepath.Join(dir, name))
			}
			code, out := runChild(t, args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\n%s", code, tt.want, out)
			}
			for _, c := range tt.contains {
				found := strings.Contains(out, c)
				if re, ok := strings.CutPrefix(c, "re:"); ok {
					found = regexp.MustCompile(re).MatchString(out)
				}
				if !found {
					t.Errorf("output lacks %q\n%s", c, out)
				}
			}
			if !strings.Contains(out, "Conformance summary") {
				t.Errorf("no summary table:\n%s", out)
			}
			texts := map[string]string{"output": out}
			for _, name := range reports {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Errorf("report %s: %v", name, err)
				}
				texts[name] = string(b)
			}
			for where, text := range texts {
				if strings.Contains(text, testKey) || strings.Contains(text, testKey2) {
					t.Errorf("a key appears in the %s", where)
				}
			}
		})
	}
}

func TestListPrintsEveryCheck(t *testing.T) {
	code, out := runChild(t, "--list")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, out)
	}
	m := regexp.MustCompile(`(\d+) checks: (\d+) declared, (\d+) decided`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count line:\n%s", out)
	}
	for _, want := range []string{"AREA", "rate-limit", "declared (D-13)", "decided D-12", "3.1.1", "Isolation › MUST NOT let another account read a model",
		"COST", "models,datasets", "evaluations,evaluation-runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q", want)
		}
	}
	code, filtered := runChild(t, "--list", "--label-filter", "seed:3.1.1")
	if code != ExitPass || strings.Count(filtered, "\n") >= strings.Count(out, "\n") {
		t.Errorf("--list --label-filter seed:3.1.1 did not narrow the list (exit %d):\n%s", code, filtered)
	}
	if !strings.Contains(filtered, "MUST refuse to delete a running evaluation") {
		t.Errorf("the filtered list lacks the refusal check:\n%s", filtered)
	}
}
