// Command mutation proves the conformance suite's power: it runs the suite
// against the mock once unbroken (baseline), once per mutant (each breaks
// exactly one rule: the suite must fail it) and once per valid variant (each
// shows behaviour a conforming server may show: the suite must pass it), and
// prints the score. The work is package contractkit/mutation's Run.
//
// Exit status: 0 every run as expected; 1 the baseline failed, a mutant
// survived, a variant failed, a run gave no verdict or the report could not
// be written; 2 a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"syscall"
	"time"

	"contractkit/internal/envflag"
	"contractkit/mutation"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv))
}

func run(args []string, getenv func(string) string) int {
	var (
		cfg  mutation.Config
		only string
	)
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.StringVar(&cfg.Bin, "bin", "bin", "`DIR` holding the mockserver and conformance binaries (make build)")
	fs.IntVar(&cfg.Workers, "workers", max(3, runtime.NumCPU()+1), "runs in parallel")
	fs.StringVar(&only, "only", "", "run only mutants whose name matches `REGEX`")
	fs.StringVar(&cfg.Report, "report", "reports/mutation.md", "write the result table to `FILE` (Markdown)")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "the suite's --timeout for each run")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mutation [flags]\n\nRuns the conformance suite against every mutant and valid variant of the mock.\nEvery flag can also be set by MUTATION_<FLAG>.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if err := envflag.Apply(fs, envflag.Prefixed("MUTATION_"), getenv); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		return 2
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutation: --only:", err)
			return 2
		}
		cfg.Only = re
	}
	cfg.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results, err := mutation.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		return 1
	}
	if !mutation.AllOK(results) {
		return 1
	}
	return 0
}
