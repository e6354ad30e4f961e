package conformance

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseFlags(t *testing.T) {
	env := envOf(map[string]string{
		"CONFORMANCE_BASE_URL":     "http://env:1",
		"CONFORMANCE_API_KEY":      "env-key",
		"CONFORMANCE_API_KEY_2":    "env-key-2",
		"CONFORMANCE_TIMEOUT":      "45s",
		"CONFORMANCE_STRICT":       "true",
		"CONFORMANCE_LABEL_FILTER": "auth",
		"CONFORMANCE_HTML":         "env.html",
		"CONFORMANCE_COVERAGE":     "env-coverage.json",
		"CONFORMANCE_SEED":         "42",
		"CONFORMANCE_DEADLINE":     "10m",
		"CONFORMANCE_MAX_MEMORY":   "256",
	})
	o, err := ParseFlags([]string{"--base-url", "http://flag:2", "--timeout=1m", "--strict=false", "--keep", "--explore", "25"}, env, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Config: Config{
		BaseURL: "http://flag:2", APIKey: "env-key", APIKey2: "env-key-2", HTML: "env.html", Coverage: "env-coverage.json",
		LabelFilter: "auth", Timeout: time.Minute, Strict: false, Keep: true, Explore: 25, Seed: 42,
		Deadline: 10 * time.Minute, MaxMemory: 256,
	}}
	if o != want {
		t.Errorf("got %+v\nwant %+v", o, want)
	}
}

func TestParseFlagsDefaults(t *testing.T) {
	o, err := ParseFlags(nil, envOf(nil), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Timeout != 2*time.Minute || o.Strict || o.Keep || o.List || o.Clauses {
		t.Errorf("defaults: %+v", o)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"an unknown flag", []string{"--bogus"}, nil, "bogus"},
		{"an argument", []string{"extra"}, nil, "unexpected argument"},
		{"a bad boolean in the environment", nil, map[string]string{"CONFORMANCE_KEEP": "maybe"}, "CONFORMANCE_KEEP"},
		{"a bad duration in the environment", nil, map[string]string{"CONFORMANCE_TIMEOUT": "soon"}, "CONFORMANCE_TIMEOUT"},
		{"list and clauses", []string{"--list", "--clauses"}, nil, "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFlags(tt.args, envOf(tt.env), &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestHelpListsEveryFlagAndNoSecret(t *testing.T) {
	var out bytes.Buffer
	_, err := ParseFlags([]string{"--help"}, envOf(map[string]string{"CONFORMANCE_API_KEY": testKey}), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, f := range []string{"--base-url", "--api-key", "--api-key-2", "--junit", "--json", "--html", "--label-filter",
		"--focus", "--timeout", "--strict", "--keep", "--list", "--clauses", "CONFORMANCE_API_KEY_2", "Exit status"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("--help lacks %s", f)
		}
	}
	if strings.Contains(out.String(), testKey) {
		t.Errorf("--help shows the key from the environment")
	}
}

func TestLabelFilterLeavesRateLimitOut(t *testing.T) {
	tests := map[string]string{
		"":                      "!rate-limit",
		"auth":                  "(auth) && !rate-limit",
		"rate-limit":            "rate-limit",
		"auth || rate-limit":    "auth || rate-limit",
		"declared && !decided ": "(declared && !decided ) && !rate-limit",
	}
	for in, want := range tests {
		if got := (Config{LabelFilter: in}).labelFilter(); got != want {
			t.Errorf("labelFilter(%q) = %q, want %q", in, got, want)
		}
	}
}
