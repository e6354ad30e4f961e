// Command mutation proves the conformance suite's power: it runs the suite
// against the mock once unbroken (baseline), once per mutant (each breaks
// exactly one rule: the suite must fail it) and once per valid variant (each
// shows behaviour a conforming server may show: the suite must pass it), and
// prints the score. The work is package contractkit/mutation/runner's Run.
//
// Exit status: exitOK (0) every run as expected; exitFail (1) the baseline
// failed, a mutant survived, a variant failed, a run gave no verdict or the
// report could not be written; exitUsage (2) a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"contractkit/internal/envflag"
	"contractkit/mutation/runner"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
	if err := m.ParseFlags(os.Args[1:], os.Getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(exitOK)
		}
		fmt.Fprintln(m.Stderr, "mutation:", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := m.Run(ctx)
	stop()
	switch {
	case errors.Is(err, errNotAsExpected):
		os.Exit(exitFail) // the table says which
	case err != nil:
		fmt.Fprintln(m.Stderr, "mutation:", err)
		os.Exit(exitFail)
	}
}

// Main is the program, reusable by tests: ParseFlags, then Run.
type Main struct {
	Stdout, Stderr io.Writer

	cfg runner.Config
}

// errNotAsExpected is Run's verdict when a run was not as it must be.
var errNotAsExpected = errors.New("not every run was as expected")

// ParseFlags reads args, then the environment (MUTATION_<FLAG>) for every
// flag not given.
func (m *Main) ParseFlags(args []string, getenv func(string) string) error {
	var only string
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.StringVar(&m.cfg.Bin, "bin", "bin", "`DIR` holding the mockserver and conformance binaries (make build)")
	fs.IntVar(&m.cfg.Workers, "workers", 0, "runs in parallel (0: three per CPU, at least four; a run mostly waits for the mock's clocks)")
	fs.StringVar(&only, "only", "", "run only mutants whose name matches `REGEX`")
	fs.StringVar(&m.cfg.Report, "report", "reports/mutation.md", "write the result table to `FILE` (Markdown)")
	fs.StringVar(&m.cfg.Keep, "keep", "reports/mutation-failed", "leave the suite's JSON report of each run not as expected in `DIR` as NAME.json (\"\": none)")
	fs.DurationVar(&m.cfg.Timeout, "timeout", 10*time.Second, "the suite's --timeout for each run")
	fs.Uint64Var(&m.cfg.Seed, "seed", 1, "the suite's --seed (the explore phase's) for each run, so a score can be reproduced")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mutation [flags]\n\nRuns the conformance suite against every mutant and valid variant of the mock.\nEvery flag can also be set by MUTATION_<FLAG>.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := envflag.Apply(fs, envflag.Prefixed("MUTATION_"), getenv); err != nil {
		return err
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return fmt.Errorf("--only: %w", err)
		}
		m.cfg.Only = re
	}
	return nil
}

// Run runs the suite against the baseline and every selected mutant,
// printing each run and the table to Stdout. It returns errNotAsExpected
// when a run was not as it must be, another error when the runner itself
// failed (the report could not be written).
func (m *Main) Run(ctx context.Context) error {
	m.cfg.Out = m.Stdout
	results, err := runner.Run(ctx, m.cfg)
	if err != nil {
		return err
	}
	if !runner.AllOK(results) {
		return errNotAsExpected
	}
	return nil
}
