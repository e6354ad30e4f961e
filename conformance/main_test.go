package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Ginkgo runs one suite per process, so every test that runs the suite
// (exit codes, --list, --clauses) re-executes this test binary as a child
// that runs the CLI's code path once and exits with its status.

const childEnv = "CONFORMANCE_TEST_CHILD_ARGS"

// The runs' two accounts; a test fails when either appears in a report.
const (
	testKey  = "sk-test-3f9a2c71-SECRET"
	testKey2 = "sk-test-second-SECRET"
)

func TestMain(m *testing.M) {
	if raw, ok := os.LookupEnv(childEnv); ok {
		os.Exit(childMain(raw))
	}
	os.Exit(m.Run())
}

// childMain does what cmd/conformance does with the args in raw (JSON).
func childMain(raw string) int {
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Stderr.WriteString("bad child args: " + err.Error())
		return 99
	}
	opts, err := ParseFlags(args, func(string) string { return "" }, os.Stdout)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return ExitUsage
	}
	switch {
	case opts.Clauses:
		return Clauses(os.Stdout)
	case opts.List:
		return List(opts.Config, os.Stdout)
	}
	return Run(opts.Config, os.Stdout)
}

// childRuns skips a test that runs the suite in a child process when the
// binary has the race detector: make go-test runs those tests in a pass of
// their own without it, where a run takes a third of the time. The race
// detector adds nothing to a child run's verdict: the suite's concurrent
// parts (the client, the explore phase, the judge, the bounds) are tested
// under -race in their own packages, and this package's unit tests run
// under -race here.
func childRuns(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("runs the suite in a child process: make go-test runs it without -race (go test -count=1 ./conformance/)")
	}
}

// runChild runs the CLI code path with args in a child process and returns
// its exit status and output.
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	childRuns(t)
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	t.Fatalf("child: %v\n%s", err, out.String())
	return 0, ""
}
