package main

import (
	"bytes"
	"strings"
	"testing"
)

func noEnv(string) string { return "" }

// Each command reaches its own command line: its --version names it.
func TestRunDispatchesToEachCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mock", "--version"}, "mockserver "},
		{[]string{"conformance", "--version"}, "conformance "},
		{[]string{"version"}, "contractkit "},
		{[]string{"--version"}, "contractkit "},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut, noEnv); code != exitOK {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut.String())
		}
		if !strings.HasPrefix(out.String(), tc.want) || !strings.Contains(out.String(), "contract v1") {
			t.Errorf("%v printed %q, want %q... naming the contract", tc.args, out.String(), tc.want)
		}
	}
}

// A command's usage error is its own (exit 2, its name in the message).
func TestRunPassesTheCommandsStatus(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"mock", "--no-such-flag"}, &out, &errOut, noEnv); code != exitUsage {
		t.Errorf("mock --no-such-flag: exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errOut.String(), "mockserver: flag provided but not defined: -no-such-flag") {
		t.Errorf("stderr %q", errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"conformance"}, &out, &errOut, noEnv); code != exitUsage {
		t.Errorf("conformance without --base-url: exit %d, want %d", code, exitUsage)
	}
}

func TestRunWithoutACommandPrintsTheUsage(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		toStdout bool
	}{
		{nil, exitUsage, false},
		{[]string{"serve"}, exitUsage, false},
		{[]string{"help"}, exitOK, true},
		{[]string{"--help"}, exitOK, true},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut, noEnv)
		got := errOut.String()
		if tc.toStdout {
			got = out.String()
		}
		if code != tc.code || !strings.Contains(got, "Usage: contractkit COMMAND") || !strings.Contains(got, "  mock ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	run([]string{"serve"}, &out, &errOut, noEnv)
	if !strings.HasPrefix(errOut.String(), `contractkit: unknown command "serve"`) {
		t.Errorf("stderr %q", errOut.String())
	}
}
