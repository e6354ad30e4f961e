package conformance

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"contractkit/spec"
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
	if !reflect.DeepEqual(o, want) {
		t.Errorf("got %+v\nwant %+v", o, want)
	}
}

func TestParseSpendFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--profile", "deployment", "--budget", "inferences=5,datasets=unlimited"},
		envOf(map[string]string{"CONFORMANCE_REUSE_MODEL": "17"}), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.ReuseModel != "17" || o.Profile != ProfileDeployment {
		t.Errorf("reuse %q, profile %q; want 17 and deployment", o.ReuseModel, o.Profile)
	}
	for kind, want := range map[spec.CostKind]int{spec.CostModels: 1, spec.CostEvaluationRuns: 1, spec.CostInferences: 5, spec.CostDatasets: -1} {
		n, limited := o.Budget.Limit(kind)
		if !limited {
			n = -1
		}
		if n != want {
			t.Errorf("%s: limit %d, want %d (the preset, then --budget on top)", kind, n, want)
		}
	}
	o, err = ParseFlags(nil, envOf(map[string]string{"CONFORMANCE_BUDGET": "all=0"}), &bytes.Buffer{})
	if err != nil || !o.Budget.ReadOnly() {
		t.Errorf("CONFORMANCE_BUDGET=all=0: err %v, read-only %v", err, o.Budget.ReadOnly())
	}
	line := strings.Join(o.flagLine(), " ")
	if !strings.Contains(line, "--budget=all=0") {
		t.Errorf("flag line %q lacks the budget", line)
	}
	if o, _ := ParseFlags(nil, envOf(nil), &bytes.Buffer{}); o.Budget.String() != "" || o.ReuseModel != "" {
		t.Errorf("default budget %q, reuse %q: want none (an unlimited run, as before)", o.Budget.String(), o.ReuseModel)
	}
}

// The smoke profile: read-only (budget all=0), the explore phase off, and
// SmokeDeadline unless a deadline is given (by flag or environment).
func TestParseSmokeProfile(t *testing.T) {
	o, err := ParseFlags([]string{"--profile", "smoke", "--explore", "0"}, envOf(nil), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.smoke() || !o.Budget.ReadOnly() || o.Explore != 0 || o.Deadline != SmokeDeadline {
		t.Errorf("smoke %v, read-only %v, explore %d, deadline %s; want a read-only run, no explore, %s", o.smoke(), o.Budget.ReadOnly(), o.Explore, o.Deadline, SmokeDeadline)
	}
	o, err = ParseFlags(nil, envOf(map[string]string{"CONFORMANCE_PROFILE": "smoke", "CONFORMANCE_DEADLINE": "30s"}), &bytes.Buffer{})
	if err != nil || o.Deadline != 30*time.Second {
		t.Errorf("CONFORMANCE_DEADLINE=30s: err %v, deadline %s", err, o.Deadline)
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
		{"an unknown budget kind", []string{"--budget", "gpus=1"}, nil, "unknown kind"},
		{"a bad budget number", nil, map[string]string{"CONFORMANCE_BUDGET": "models=-1"}, "--budget"},
		{"an unknown profile", []string{"--profile", "cheap"}, nil, "no such budget preset"},
		{"the deployment profile without a model to reuse", []string{"--profile", "deployment"}, nil, "needs --reuse-model"},
		{"a reuse id that is no id", []string{"--reuse-model", "7/../8"}, nil, "--reuse-model"},
		{"the smoke with a budget", []string{"--profile", "smoke", "--budget", "inferences=1"}, nil, "--budget does not apply"},
		{"the smoke with the explore phase", []string{"--profile", "smoke"}, map[string]string{"CONFORMANCE_EXPLORE": "10"}, "the explore phase writes"},
		{"the smoke with a label filter", []string{"--profile", "smoke", "--label-filter", "auth"}, nil, "--label-filter does not apply"},
		{"the smoke with a model to reuse", []string{"--profile", "smoke", "--reuse-model", "4"}, nil, "--reuse-model does not apply"},
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
		"--focus", "--timeout", "--strict", "--keep", "--list", "--clauses", "CONFORMANCE_API_KEY_2", "Exit status",
		"--budget", "CONFORMANCE_BUDGET", "--reuse-model", "CONFORMANCE_REUSE_MODEL", "--profile", "CONFORMANCE_PROFILE",
		"evaluation-runs", "4 every check passed but the run left resources behind", "smoke", "--compare", "CONFORMANCE_COMPARE",
		"--markdown", "CONFORMANCE_MARKDOWN"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("--help lacks %s", f)
		}
	}
	if strings.Contains(out.String(), testKey) {
		t.Errorf("--help shows the key from the environment")
	}
}

func TestLabelFilterLeavesRateLimitAndSmokeOut(t *testing.T) {
	tests := map[string]string{
		"":                      "!rate-limit && !smoke",
		"auth":                  "(auth) && !rate-limit && !smoke",
		"rate-limit":            "(rate-limit) && !smoke",
		"auth || rate-limit":    "(auth || rate-limit) && !smoke",
		"declared && !decided ": "(declared && !decided ) && !rate-limit && !smoke",
		"smoke":                 "(smoke) && !rate-limit",
		"smoke || rate-limit":   "smoke || rate-limit",
	}
	for in, want := range tests {
		if got := (Config{LabelFilter: in}).labelFilter(); got != want {
			t.Errorf("labelFilter(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Config{Spend: Spend{Profile: ProfileSmoke}}).labelFilter(); got != "smoke" {
		t.Errorf("a smoke run's filter = %q, want the Smoke area alone", got)
	}
}

// The CI guide's flag table (docs/ci.md, the README's link for the
// suite's flags) has a row for every flag of the suite.
func TestReadmeListsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile("../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "## The conformance suite")
	table, _, _ = strings.Cut(table, "\nExit status:")
	for _, f := range flagSpecs {
		if !strings.Contains(table, "`--"+f.name) {
			t.Errorf("docs/ci.md's flag table has no row for --%s", f.name)
		}
	}
}
