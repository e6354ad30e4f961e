package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contractkit/conformance"
	"contractkit/mutation/runner"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestUsageErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"bad --only":        {args: []string{"--only", "("}},
		"unknown flag":      {args: []string{"--port", "1"}},
		"an argument":       {args: []string{"extra"}},
		"bad env workers":   {env: map[string]string{"MUTATION_WORKERS": "many"}},
		"bad env only":      {env: map[string]string{"MUTATION_ONLY": "["}},
		"bad timeout value": {args: []string{"--timeout", "soon"}},
	} {
		m := &Main{Stdout: io.Discard, Stderr: io.Discard}
		if err := m.ParseFlags(tc.args, env(tc.env)); err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: got %v, want a usage error", name, err)
		}
	}
	m := &Main{Stdout: io.Discard, Stderr: io.Discard}
	if err := m.ParseFlags([]string{"--help"}, env(nil)); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: got %v, want flag.ErrHelp", err)
	}
}

// TestARunWithoutVerdictFails: binaries that are missing give the
// baseline no verdict, which fails the run and still writes the report.
func TestARunWithoutVerdictFails(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "mutation.md")
	m := &Main{Stdout: io.Discard, Stderr: io.Discard}
	if err := m.ParseFlags([]string{"--bin", filepath.Join(dir, "none"), "--only", "^$", "--report", report}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); !errors.Is(err, errNotAsExpected) {
		t.Errorf("got %v, want errNotAsExpected", err)
	}
	b, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(b), "(baseline)") || !strings.Contains(string(b), "error: mockserver") {
		t.Errorf("report got %q, %v, want the baseline's error", b, err)
	}
}

// The runner reads the suite's exit status without linking the suite: its
// copy of the left-behind status must be the suite's. The check lives here,
// not in the runner's tests: their test binary stands in for the suite and
// the mock as child processes, and linking the suite would make each of
// them build the contract at start (the suite's package variables).
func TestExitLeftBehindIsTheSuites(t *testing.T) {
	if runner.ExitLeftBehind != conformance.ExitLeftBehind {
		t.Errorf("runner.ExitLeftBehind = %d, the suite exits %d when it leaves resources behind", runner.ExitLeftBehind, conformance.ExitLeftBehind)
	}
}
