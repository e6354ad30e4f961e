// Package cli is the conformance command line, shared by cmd/conformance
// and `contractkit conformance` (cmd/contractkit, the binary the npm package
// ships). It is a thin layer over package contractkit/conformance, which
// parses the flags (conformance.ParseFlags) and runs the suite: see --help,
// and the exit statuses there (0 pass, 1 fail, 2 usage, 3 unreachable). Its
// subcommand `proxy` is the validating proxy (package contractkit/proxy/proxycmd).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"contractkit/bound"
	"contractkit/conformance"
	"contractkit/internal/version"
	"contractkit/proxy/proxycmd"
)

// Exit statuses: the suite's own.
const (
	exitPass  = conformance.ExitPass
	exitUsage = conformance.ExitUsage
	// conformance.Run also returns conformance.ExitFail and
	// conformance.ExitUnreachable.
)

// Command runs the suite, or with "proxy" first the validating proxy, with
// args (the program name left out), reading every flag not given from
// getenv, and returns the exit status.
func Command(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "proxy" {
		return runProxy(args[1:], stdout, stderr, getenv)
	}
	m := &Main{Stdout: stdout, Stderr: stderr}
	if err := m.ParseFlags(args, getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		fmt.Fprintf(m.Stderr, "conformance: %v\n(see --help)\n", err)
		return exitUsage
	}
	return m.Run()
}

// Main is the program: ParseFlags, then Run.
type Main struct {
	Stdout, Stderr io.Writer

	opts conformance.Options
}

// ParseFlags reads args, then the environment for every flag not given
// (conformance.ParseFlags; --help writes the usage to Stdout).
func (m *Main) ParseFlags(args []string, getenv func(string) string) error {
	var err error
	m.opts, err = conformance.ParseFlags(args, getenv, m.Stdout)
	return err
}

// Run does what the flags ask (print the version, the clauses or the
// checks, or run the suite) and returns the exit status.
func (m *Main) Run() int {
	switch {
	case m.opts.Version:
		fmt.Fprintln(m.Stdout, "conformance", version.Get())
		return exitPass
	case m.opts.Clauses:
		return conformance.Clauses(m.Stdout)
	case m.opts.List:
		return conformance.List(m.opts.Config, m.Stdout)
	}
	// The run's memory bound: the read bounds keep the suite under it,
	// the runtime's soft limit makes the collector keep it there.
	if m.opts.MaxMemory > 0 {
		bound.LimitMemory(m.opts.MaxMemory<<20, os.Getenv)
	}
	return conformance.Run(m.opts.Config, m.Stdout)
}

// runProxy is `conformance proxy`: it runs until SIGINT or SIGTERM.
func runProxy(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	m := &proxycmd.Main{Stdout: stdout, Signals: sig}
	if err := m.ParseFlags(args, getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		fmt.Fprintf(stderr, "conformance proxy: %v\n(see conformance proxy --help)\n", err)
		return exitUsage
	}
	return m.Run()
}
