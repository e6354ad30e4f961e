// Command loadtest measures the mock against a bare net/http server that
// writes the same bytes (and, when installed, Prism 5 on the same contract),
// and the validating proxy in front of the mock against the mock direct,
// alternating rounds in one run on 127.0.0.1, and prints each server's
// requests per second, CPU per answer and the ratios. Its streams mode opens N paced
// inference streams at once and reports the mock's resident memory per open
// stream. See docs/PERFORMANCE.md; `make loadtest` runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"contractkit/internal/envflag"
)

const envPrefix = "LOADTEST_"

// config is every flag of the command.
type config struct {
	mockBin       string
	prismBin      string
	proxyBin      string
	proxyBase     string
	specPath      string
	modes         string
	rounds        int
	duration      time.Duration
	conns         int
	logLevel      string
	streams       int
	tokenInterval time.Duration
	streamsWithin time.Duration
	profileDir    string
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == bareCommand {
		if err := serveBare(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest bare server:", err)
			os.Exit(exitFail)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == forwardCommand {
		if err := serveForward(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest forward proxy:", err)
			os.Exit(exitFail)
		}
		return
	}
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
	if err := m.ParseFlags(os.Args[1:], os.Getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(exitOK)
		}
		fmt.Fprintln(m.Stderr, "loadtest:", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := m.Run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(m.Stderr, "loadtest:", err)
		os.Exit(exitFail)
	}
}

// Main is the program, reusable by tests: ParseFlags, then Run.
type Main struct {
	Stdout, Stderr io.Writer

	cfg config
}

// ParseFlags reads args, then the environment (LOADTEST_<FLAG>) for every
// flag not given.
func (m *Main) ParseFlags(args []string, getenv func(string) string) error {
	c := &m.cfg
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.StringVar(&c.mockBin, "mock-bin", "bin/mockserver", "the mock server `BINARY` to start (make build)")
	fs.StringVar(&c.prismBin, "prism-bin", "tools/prism/node_modules/.bin/prism", "Prism 5 `BINARY` for the mock/Prism ratio; skipped when missing, \"none\" to skip")
	fs.StringVar(&c.proxyBin, "proxy-bin", "bin/conformance", "the `BINARY` whose proxy command is measured in front of the mock (proxy/direct ratio, profile-proxy mode); \"none\" to skip")
	fs.StringVar(&c.proxyBase, "proxy-base", "", "a second proxy `BINARY` measured in the same rounds as --proxy-bin (row \"base\"): an A/B of two builds of the proxy")
	fs.StringVar(&c.specPath, "spec", "spec/openapi.yaml", "the contract `FILE` Prism serves")
	fs.StringVar(&c.modes, "mode", "ratio,streams", "what to measure, comma-separated: ratio (req/s against bare, Prism and through the validating proxy), streams (memory per open stream), profile (CPU and alloc profiles of the mock under load), profile-proxy (the same of the proxy in front of the mock)")
	fs.IntVar(&c.rounds, "rounds", 3, "alternating rounds per server `N` (the median is reported)")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "length of one round")
	fs.IntVar(&c.conns, "conns", 64, "concurrent kept-alive connections `N`")
	fs.StringVar(&c.logLevel, "log-level", "info", "the mock's --log-level during the measure (its log goes to /dev/null)")
	fs.IntVar(&c.streams, "streams", 10000, "paced inference streams `N` open at once (streams mode)")
	fs.DurationVar(&c.tokenInterval, "token-interval", 200*time.Millisecond, "the mock's --token-interval in streams mode: long enough for every stream to be open at once")
	fs.DurationVar(&c.streamsWithin, "streams-timeout", 90*time.Second, "the longest the streams mode may take")
	fs.StringVar(&c.profileDir, "profile-dir", "build", "where profile mode writes cpu-*.pprof and allocs-*.pprof")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: loadtest [flags]\n\nMeasures the mock against a bare server writing the same bytes (and Prism 5), and the validating proxy in front of the mock against the mock direct, on 127.0.0.1.\nEvery flag can also be set by the environment variable %s<FLAG> (e.g. --rounds: %sROUNDS).\n\nFlags:\n", envPrefix, envPrefix)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := envflag.Apply(fs, envflag.Prefixed(envPrefix), getenv); err != nil {
		return err
	}
	if c.rounds < 1 || c.conns < 1 || c.streams < 1 || c.duration <= 0 || c.streamsWithin <= 0 {
		return errors.New("--rounds, --conns, --streams, --duration and --streams-timeout must be positive")
	}
	for _, mode := range strings.Split(c.modes, ",") {
		switch mode {
		case "ratio", "streams", "profile", "profile-proxy":
		default:
			return fmt.Errorf("--mode %q: ratio, streams, profile or profile-proxy", mode)
		}
	}
	return nil
}

// Run measures each mode in turn, printing to Stdout. (The open-file limit
// streams mode needs is raised by Go itself at start-up, here and in the
// mock, since Go 1.19.)
func (m *Main) Run(ctx context.Context) error {
	for _, mode := range strings.Split(m.cfg.modes, ",") {
		var err error
		switch mode {
		case "ratio":
			err = runRatio(ctx, m.cfg, m.Stdout)
		case "streams":
			err = runStreams(ctx, m.cfg, m.Stdout)
		case "profile":
			err = runProfile(ctx, m.cfg, m.Stdout)
		case "profile-proxy":
			err = runProfileProxy(ctx, m.cfg, m.Stdout)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
	}
	return nil
}
