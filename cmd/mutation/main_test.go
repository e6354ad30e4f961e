package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestUsageErrorsExit2(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"bad --only":        {args: []string{"--only", "("}},
		"unknown flag":      {args: []string{"--port", "1"}},
		"bad env workers":   {env: map[string]string{"MUTATION_WORKERS": "many"}},
		"bad env only":      {env: map[string]string{"MUTATION_ONLY": "["}},
		"bad timeout value": {args: []string{"--timeout", "soon"}},
	} {
		if got := run(tc.args, env(tc.env)); got != 2 {
			t.Errorf("%s: exit %d, want 2", name, got)
		}
	}
}

// TestARunWithoutVerdictExits1: binaries that are missing give the
// baseline no verdict, which fails the run and still writes the report.
func TestARunWithoutVerdictExits1(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "mutation.md")
	if got := run([]string{"--bin", filepath.Join(dir, "none"), "--only", "^$", "--report", report}, env(nil)); got != 1 {
		t.Errorf("exit %d, want 1", got)
	}
	b, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(b), "(baseline)") || !strings.Contains(string(b), "error: mockserver") {
		t.Errorf("report got %q, %v, want the baseline's error", b, err)
	}
}
