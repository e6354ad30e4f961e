package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/mockserver"
	"contractkit/mutation"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// syncBuffer is an output written by server goroutines and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newMain() (*Main, *syncBuffer, *syncBuffer) {
	out, errOut := &syncBuffer{}, &syncBuffer{}
	return &Main{Stdout: out, Stderr: errOut}, out, errOut
}

// allFlags are the flags the issue and CI scripts rely on, by exact name.
var allFlags = []string{
	"addr", "api-key", "seed", "train-duration", "eval-duration", "fixtures", "state",
	"latency", "error-rate", "rate-limit", "token-interval", "log-level", "break", "list-mutants", "pprof", "version", "gc-floor",
	"open-keys", "open-keys-max",
}

func TestParseFlagsDefaults(t *testing.T) {
	m, _, _ := newMain()
	if err := m.ParseFlags(nil, env(nil)); err != nil {
		t.Fatal(err)
	}
	if m.addr != "127.0.0.1:8080" || m.cfg.TrainDuration != 5*time.Second || m.cfg.EvalDuration != 10*time.Second ||
		m.fixtures != "default" || len(m.cfg.Keys) != 0 || m.cfg.RateLimit != 0 || m.cfg.ErrorRate != 0 {
		t.Errorf("defaults got addr %q train %v eval %v fixtures %q keys %v rate %d errors %v",
			m.addr, m.cfg.TrainDuration, m.cfg.EvalDuration, m.fixtures, m.cfg.Keys, m.cfg.RateLimit, m.cfg.ErrorRate)
	}
}

// TestParseFlagsFromEnvironment sets every flag through its MOCK_*
// variable alone.
func TestParseFlagsFromEnvironment(t *testing.T) {
	vars := map[string]string{
		"MOCK_ADDR":           "127.0.0.1:9999",
		"MOCK_API_KEY":        "key-one, key-two",
		"MOCK_SEED":           "42",
		"MOCK_TRAIN_DURATION": "3s",
		"MOCK_EVAL_DURATION":  "4s",
		"MOCK_FIXTURES":       "none",
		"MOCK_STATE":          "/var/lib/mock/state.json",
		"MOCK_LATENCY":        "5ms",
		"MOCK_ERROR_RATE":     "0.25",
		"MOCK_RATE_LIMIT":     "7",
		"MOCK_TOKEN_INTERVAL": "1ms",
		"MOCK_LOG_LEVEL":      "debug",
		"MOCK_BREAK":          "auth-403-not-401",
		"MOCK_LIST_MUTANTS":   "true",
		"MOCK_PPROF":          "127.0.0.1:6061",
		"MOCK_VERSION":        "true",
		"MOCK_GC_FLOOR":       "32",
		"MOCK_OPEN_KEYS":      "test-*, e2e-??",
		"MOCK_OPEN_KEYS_MAX":  "12",
	}
	if len(vars) != len(allFlags) {
		t.Fatalf("the test sets %d variables for %d flags", len(vars), len(allFlags))
	}
	m, _, _ := newMain()
	if err := m.ParseFlags(nil, env(vars)); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		flag      string
		got, want any
	}{
		{"addr", m.addr, "127.0.0.1:9999"},
		{"api-key", strings.Join(m.cfg.Keys, "|"), "key-one|key-two"},
		{"seed", m.cfg.Seed, int64(42)},
		{"gc-floor", m.gcFloorMB, 32},
		{"train-duration", m.cfg.TrainDuration, 3 * time.Second},
		{"eval-duration", m.cfg.EvalDuration, 4 * time.Second},
		{"fixtures", m.fixtures, "none"},
		{"state", m.cfg.StateFile, "/var/lib/mock/state.json"},
		{"latency", m.cfg.Latency, 5 * time.Millisecond},
		{"error-rate", m.cfg.ErrorRate, 0.25},
		{"rate-limit", m.cfg.RateLimit, 7},
		{"token-interval", m.cfg.TokenInterval, time.Millisecond},
		{"log-level", m.logLevel, "debug"},
		{"break", m.breakName, "auth-403-not-401"},
		{"list-mutants", m.listMutants, true},
		{"pprof", m.pprofAddr, "127.0.0.1:6061"},
		{"version", m.showVersion, true},
		{"open-keys", strings.Join(m.cfg.OpenKeys, "|"), "test-*|e2e-??"},
		{"open-keys-max", m.cfg.MaxOpenAccounts, 12},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("--%s from the environment got %v, want %v", c.flag, c.got, c.want)
		}
	}
}

func TestParseFlagsFlagWinsOverEnvironment(t *testing.T) {
	vars := map[string]string{"MOCK_SEED": "42", "MOCK_API_KEY": "env-key", "MOCK_ADDR": "127.0.0.1:1", "MOCK_RATE_LIMIT": "9"}
	m, _, _ := newMain()
	err := m.ParseFlags([]string{"--seed", "5", "--api-key", "flag-a", "--api-key", "flag-b,flag-c", "-addr=127.0.0.1:2"}, env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if m.cfg.Seed != 5 || m.addr != "127.0.0.1:2" {
		t.Errorf("seed, addr got %d, %q, want the flags' 5, 127.0.0.1:2", m.cfg.Seed, m.addr)
	}
	if want := []string{"flag-a", "flag-b", "flag-c"}; !slices.Equal(m.cfg.Keys, want) {
		t.Errorf("keys got %v, want %v (the flags only)", m.cfg.Keys, want)
	}
	if m.cfg.RateLimit != 9 {
		t.Errorf("rate-limit got %d, want 9 from the environment (no flag given)", m.cfg.RateLimit)
	}
}

func TestParseFlagsLatencyRange(t *testing.T) {
	m, _, _ := newMain()
	if err := m.ParseFlags([]string{"--latency", "100ms..900ms"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if m.cfg.Latency != 100*time.Millisecond || m.cfg.LatencyMax != 900*time.Millisecond {
		t.Errorf("--latency 100ms..900ms got %v..%v", m.cfg.Latency, m.cfg.LatencyMax)
	}
}

func TestParseFlagsFixtureRules(t *testing.T) {
	m, _, _ := newMain()
	if err := m.ParseFlags([]string{"--fixtures", "none", "--fixtures", "empty-*=none, demo-*=default"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if m.fixtures != "none" || !slices.Equal(m.fixtureRules, []string{"empty-*=none", "demo-*=default"}) {
		t.Errorf("--fixtures got %q and rules %q", m.fixtures, m.fixtureRules)
	}
	if err := m.loadFixtures(); err != nil {
		t.Fatal(err)
	}
	if m.cfg.Fixtures != nil || len(m.cfg.FixtureRules) != 2 || m.cfg.FixtureRules[0].Fixtures != nil || m.cfg.FixtureRules[1].Fixtures == nil {
		t.Errorf("loaded: default %v, rules %+v; want none, then none for empty-* and the built-in set for demo-*", m.cfg.Fixtures, m.cfg.FixtureRules)
	}
	m, _, _ = newMain()
	if err := m.ParseFlags(nil, env(map[string]string{"MOCK_FIXTURES": "default,test-*=none"})); err != nil {
		t.Fatal(err)
	}
	if m.fixtures != "default" || !slices.Equal(m.fixtureRules, []string{"test-*=none"}) {
		t.Errorf("MOCK_FIXTURES got %q and rules %q", m.fixtures, m.fixtureRules)
	}
}

func TestParseFlagsBadValues(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		says string
	}{
		{name: "seed not a number", args: []string{"--seed", "abc"}, says: "seed"},
		{name: "duration without a unit", args: []string{"--train-duration", "5"}, says: "train-duration"},
		{name: "negative duration", args: []string{"--eval-duration", "-1s"}, says: "negative"},
		{name: "negative latency", args: []string{"--latency", "-5ms"}, says: "negative"},
		{name: "negative token interval", args: []string{"--token-interval", "-1ms"}, says: "negative"},
		{name: "negative rate limit", args: []string{"--rate-limit", "-1"}, says: "rate-limit"},
		{name: "rate limit not a number", args: []string{"--rate-limit", "lots"}, says: "rate-limit"},
		{name: "error rate above 1", args: []string{"--error-rate", "1.5"}, says: "error-rate"},
		{name: "error rate below 0", args: []string{"--error-rate", "-0.1"}, says: "error-rate"},
		{name: "error rate not a number", args: []string{"--error-rate", "half"}, says: "error-rate"},
		{name: "error rate NaN", args: []string{"--error-rate", "NaN"}, says: "error-rate"},
		{name: "bad bool", args: []string{"--list-mutants=maybe"}, says: "list-mutants"},
		{name: "unknown mutant", args: []string{"--break", "no-such-mutant"}, says: "no-such-mutant"},
		{name: "env unknown mutant", env: map[string]string{"MOCK_BREAK": "nope"}, says: "nope"},
		{name: "unknown flag", args: []string{"--port", "80"}, says: "port"},
		{name: "positional argument", args: []string{"serve"}, says: "serve"},
		{name: "env seed not a number", env: map[string]string{"MOCK_SEED": "abc"}, says: "MOCK_SEED"},
		{name: "env duration", env: map[string]string{"MOCK_TRAIN_DURATION": "soon"}, says: "MOCK_TRAIN_DURATION"},
		{name: "env negative rate limit", env: map[string]string{"MOCK_RATE_LIMIT": "-3"}, says: "rate-limit"},
		{name: "env error rate", env: map[string]string{"MOCK_ERROR_RATE": "2"}, says: "error-rate"},
		{name: "latency range upside down", args: []string{"--latency", "900ms..100ms"}, says: "lower bound first"},
		{name: "fixtures for every key", args: []string{"--fixtures", "*=none"}, says: "every key"},
		{name: "fixtures rule without a set", args: []string{"--fixtures", "empty-*="}, says: "name a set"},
		{name: "open keys for every key", args: []string{"--open-keys", "*"}, says: "every key"},
		{name: "open keys with a space", args: []string{"--open-keys", "test *"}, says: "space"},
		{name: "no open accounts", args: []string{"--open-keys", "test-*", "--open-keys-max", "0"}, says: "open-keys-max"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newMain()
			err := m.ParseFlags(tc.args, env(tc.env))
			if err == nil {
				t.Fatalf("ParseFlags(%q, %v) got no error, want one mentioning %q", tc.args, tc.env, tc.says)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error got %q, want it to mention %q", err, tc.says)
			}
		})
	}
}

// TestReadmeListsEveryFlag: the mock's flag table (docs/frontend.md, "The
// mock server", which the README links) names every flag of --help, with
// its environment variable.
func TestReadmeListsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile("../../docs/frontend.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range allFlags {
		env := "MOCK_" + strings.ToUpper(strings.ReplaceAll(f, "-", "_"))
		if !bytes.Contains(readme, []byte("| `--"+f)) || !bytes.Contains(readme, []byte("`"+env+"`")) {
			t.Errorf("docs/frontend.md's flag table has no row for --%s with %s", f, env)
		}
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	m, _, errOut := newMain()
	err := m.ParseFlags([]string{"--help"}, env(nil))
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help got %v, want flag.ErrHelp", err)
	}
	help := errOut.String()
	for _, f := range allFlags {
		if !strings.Contains(help, "-"+f+" ") && !strings.Contains(help, "-"+f+"\n") {
			t.Errorf("--help does not list -%s:\n%s", f, help)
		}
	}
	if !strings.Contains(help, "MOCK_") {
		t.Errorf("--help does not name the environment variables:\n%s", help)
	}
}

// TestRunServesAndStops runs the program on 127.0.0.1:0, asks /healthz and
// an API operation, then cancels the context and waits for Run to return.
func TestRunServesAndStops(t *testing.T) {
	m, out, _ := newMain()
	if err := m.ParseFlags([]string{"--addr", "127.0.0.1:0", "--api-key", "run-key", "--fixtures", "default", "--log-level", "warn"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	r := run(t, m)
	addr := strings.TrimPrefix(r.url, "http://")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("listening on %q, want 127.0.0.1", addr)
	}
	client := &http.Client{Timeout: patience}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var env struct {
		Status string            `json:"status"`
		Data   map[string]string `json:"data"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &env) != nil || env.Status != "success" || env.Data["status"] != "ok" {
		t.Errorf("/healthz got %d %s, want 200 and status ok", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/user/model", nil)
	req.Header.Set("Authorization", "Bearer run-key")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Northwind") {
		t.Errorf("the model list got %d %.200s, want 200 with the default fixtures", resp.StatusCode, body)
	}
	client.CloseIdleConnections()

	if err := r.stop(); err != nil {
		t.Errorf("Run after cancel got %v, want nil", err)
	}
	if !strings.Contains(out.String(), "listening on http://"+addr) {
		t.Errorf("stdout got %q, want the address", out.String())
	}
	if _, err := client.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the server still answers after Run returned")
	}
}

func TestRunPrintsTheDevelopmentKey(t *testing.T) {
	m, out, _ := newMain()
	if err := m.ParseFlags([]string{"--addr", "127.0.0.1:0", "--fixtures", "none"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if err := run(t, m).stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), mockserver.DevKey) {
		t.Errorf("stdout got %q, want the development key printed", out.String())
	}
}

func TestRunRefusesBadSettings(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"log level", []string{"--log-level", "loud"}},
		{"missing fixtures directory", []string{"--fixtures", t.TempDir() + "/nothing-here"}},
		{"address in use or invalid", []string{"--addr", "127.0.0.1:-1"}},
		{"repeated key", []string{"--api-key", "same", "--api-key", "same"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newMain()
			if err := m.ParseFlags(append([]string{"--addr", "127.0.0.1:0", "--fixtures", "none"}, tc.args...), env(nil)); err != nil {
				return // refused even earlier: fine
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // if it did start, it stops at once
			if err := m.Run(ctx); err == nil {
				t.Errorf("Run with %v got no error", tc.args)
			}
		})
	}
}

func TestListMutants(t *testing.T) {
	m, out, _ := newMain()
	if err := m.ParseFlags([]string{"--list-mutants"}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if !m.listMutants {
		t.Fatal("--list-mutants not set")
	}
	m.printMutants()
	if got, want := strings.Count(out.String(), "\n"), len(mutation.Catalog()); got != want {
		t.Errorf("printed %d lines, want one per entry of the catalog (%d)", got, want)
	}
	classes := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			classes[f[1]]++
		}
	}
	if classes["hostile"] != len(mutation.Hostile()) || classes["hostile"] == 0 || classes["valid"] == 0 || classes["mutant"] == 0 {
		t.Errorf("classes listed: %v, want mutant, valid and every hostile server", classes)
	}
}

// TestRunServesAMutant proves --break wraps the served handler: with
// auth-403-not-401 a bad key gets 403, and without --break the same server
// answers 401.
func TestRunServesAMutant(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, http.StatusUnauthorized},
		{[]string{"--break", "auth-403-not-401"}, http.StatusForbidden},
	} {
		m, _, _ := newMain()
		args := append([]string{"--addr", "127.0.0.1:0", "--fixtures", "none", "--log-level", "error"}, tc.args...)
		if err := m.ParseFlags(args, env(nil)); err != nil {
			t.Fatal(err)
		}
		r := run(t, m)
		addr := strings.TrimPrefix(r.url, "http://")
		client := &http.Client{Timeout: patience}
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/user/model", nil)
		req.Header.Set("Authorization", "Bearer not-a-key")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%v: a bad key got %d, want %d", tc.args, resp.StatusCode, tc.want)
		}
		client.CloseIdleConnections()
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
	}
}
