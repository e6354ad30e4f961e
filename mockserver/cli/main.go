// Package cli is the mock server's command line, shared by cmd/mockserver
// and `contractkit mock` (cmd/contractkit, the binary the npm package
// ships): see docs/frontend.md ("The mock server") and `mockserver --help`.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"contractkit/internal/envflag"
	"contractkit/internal/gcfloor"
	"contractkit/internal/logbuf"
	"contractkit/internal/pprofserve"
	"contractkit/internal/textlog"
	"contractkit/internal/version"
	"contractkit/mockserver"
	"contractkit/mutation"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the server could not start, or failed
	exitUsage = 2
)

// Command runs the mock with args (the program name left out) until SIGINT
// or SIGTERM, reading every flag not given from getenv, and returns the
// exit status.
func Command(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	m := &Main{Stdout: stdout, Stderr: stderr}
	if err := m.ParseFlags(args, getenv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "mockserver:", err)
		return exitUsage
	}
	if m.showVersion {
		fmt.Fprintln(m.Stdout, "mockserver", version.Get())
		return exitOK
	}
	if m.listMutants {
		m.printMutants()
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := m.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "mockserver:", err)
		return exitFail
	}
	return exitOK
}

// Main is the program, reusable by tests: ParseFlags, then Run until ctx ends.
type Main struct {
	Stdout, Stderr io.Writer

	cfg      mockserver.Config
	addr     string
	fixtures string
	// fixtureRules are --fixtures PATTERN=SET values (fixtures.go).
	fixtureRules []string
	logLevel     string
	pprofAddr    string
	gcFloorMB    int
	listMutants  bool
	showVersion  bool
	breakName    string
	mutant       *mutation.Mutant
	keys         keyList
	openKeys     keyList
	// Addr is the address actually listened on, set by Run (for port 0).
	Addr chan string
}

// keyList is the repeatable --api-key flag.
type keyList []string

func (k *keyList) String() string { return fmt.Sprintf("%d key(s)", len(*k)) }
func (k *keyList) Set(v string) error {
	for _, key := range strings.Split(v, ",") {
		if key = strings.TrimSpace(key); key != "" {
			*k = append(*k, key)
		}
	}
	return nil
}

// latencyFlag is --latency: a duration or a range of two.
type latencyFlag struct{ cfg *mockserver.Config }

func (f latencyFlag) String() string {
	if f.cfg == nil || f.cfg.LatencyMax <= f.cfg.Latency {
		if f.cfg == nil {
			return "0s"
		}
		return f.cfg.Latency.String()
	}
	return f.cfg.Latency.String() + ".." + f.cfg.LatencyMax.String()
}

func (f latencyFlag) Set(v string) error {
	lo, hi, err := mockserver.ParseDelayRange(v)
	if err != nil {
		return err
	}
	f.cfg.Latency, f.cfg.LatencyMax = lo, hi
	return nil
}

// gcBase is the GOGC once the live heap is past the floor: the heap then
// grows to 1.5 times what is live before a collection, not twice. Measured
// with 10,000 open streams (live heap about 200 MB), RSS per stream went
// from 42-45 KB at 100 to 37 KB; request throughput did not move, since
// under request load the live heap is mostly under the floor.
const gcBase = 50

// envPrefix names the environment variable of each flag: --train-duration
// is MOCK_TRAIN_DURATION.
const envPrefix = "MOCK_"

// ParseFlags reads args, then the environment for every flag not given.
func (m *Main) ParseFlags(args []string, getenv func(string) string) error {
	fs := flag.NewFlagSet("mockserver", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.StringVar(&m.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`")
	fs.Var(&m.keys, "api-key", "accepted API `KEY`, repeatable (each key is its own account; env: comma-separated); none: a development key is printed at start-up")
	fs.Var(&m.openKeys, "open-keys", "key `PATTERN` (a glob: * any run, ? one character, e.g. 'test-*'), repeatable (env: comma-separated): any key it matches opens its own account on first use, with the fixtures, its own overrides and journal; not kept by --state")
	fs.IntVar(&m.cfg.MaxOpenAccounts, "open-keys-max", mockserver.DefaultMaxOpenAccounts, "at most `N` accounts opened by --open-keys; a new key past it is refused 401 naming this bound")
	fs.Int64Var(&m.cfg.Seed, "seed", 1, "seed `N` for generated data: the same seed gives the same data")
	fs.DurationVar(&m.cfg.TrainDuration, "train-duration", 5*time.Second, "how long a new model trains; 0 means ready at once")
	fs.DurationVar(&m.cfg.EvalDuration, "eval-duration", 10*time.Second, "how long a started evaluation runs")
	m.fixtures = "default"
	fs.Var(fixturesFlag{&m.fixtures, &m.fixtureRules}, "fixtures", "preload every account from `SET`: \"default\" (the built-in set), \"none\" (empty) or a DIR (set.json or default.json plus files/); PATTERN=SET, repeatable (env: comma-separated), gives the keys PATTERN matches their own, e.g. 'empty-*=none'")
	fs.StringVar(&m.cfg.StateFile, "state", "", "keep every account in `FILE` across restarts and crashes: restored at start (created when missing); every change is in FILE.log, fsynced, before it is answered, and folded into FILE now and then and on shutdown; empty: in memory only")
	fs.Var(latencyFlag{&m.cfg}, "latency", "delay added to every /api/v1 answer: a `DURATION` (250ms) or a range (100ms..900ms, drawn per call, seeded by --seed)")
	fs.Float64Var(&m.cfg.ErrorRate, "error-rate", 0, "share `F` (0..1) of /api/v1 requests answered with a random 500")
	fs.IntVar(&m.cfg.RateLimit, "rate-limit", 0, "requests per second per key before 429 with Retry-After; 0 means unlimited")
	fs.DurationVar(&m.cfg.TokenInterval, "token-interval", 20*time.Millisecond, "pause between streamed tokens")
	fs.StringVar(&m.logLevel, "log-level", "info", "log `LEVEL`: debug, info, warn, error")
	fs.StringVar(&m.breakName, "break", "", "serve with one deliberate contract violation `NAME` (mutation testing; see --list-mutants)")
	fs.BoolVar(&m.listMutants, "list-mutants", false, "list what --break serves (mutants, valid variants, hostile servers) and exit")
	fs.BoolVar(&m.showVersion, "version", false, "print the version, the contract's version and its sha256, and exit")
	fs.IntVar(&m.gcFloorMB, "gc-floor", 128, "keep the garbage collector's heap target at or above `MB` megabytes while the live heap is small (fewer collections under load), and at 1.5 times the live heap above it (GOGC=50: less memory per open stream); 0 turns it off (Go's default GOGC=100), and so does a GOGC environment variable")
	fs.StringVar(&m.pprofAddr, "pprof", "", "serve net/http/pprof on its own listener at loopback `HOST:PORT` (e.g. 127.0.0.1:6060); off when empty")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mockserver [flags]\n\nA stateful mock of the Model, Dataset, Conversation, Evaluation and Inference Service API v1.\nEvery flag can also be set by the environment variable %s<FLAG> (e.g. --train-duration: %sTRAIN_DURATION).\n\nFlags:\n", envPrefix, envPrefix)
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
	if m.cfg.TrainDuration < 0 || m.cfg.EvalDuration < 0 || m.cfg.Latency < 0 || m.cfg.TokenInterval < 0 {
		return errors.New("durations must not be negative")
	}
	if m.cfg.RateLimit < 0 {
		return errors.New("--rate-limit must not be negative")
	}
	if m.gcFloorMB < 0 || m.gcFloorMB > 1<<20 {
		return fmt.Errorf("--gc-floor %d: must be within 0..%d megabytes", m.gcFloorMB, 1<<20)
	}
	if !(m.cfg.ErrorRate >= 0 && m.cfg.ErrorRate <= 1) { // NaN too
		return fmt.Errorf("--error-rate %v: must be within 0..1", m.cfg.ErrorRate)
	}
	if m.pprofAddr != "" {
		if err := pprofserve.CheckLoopback(m.pprofAddr); err != nil {
			return err
		}
	}
	if m.cfg.MaxOpenAccounts < 1 {
		return fmt.Errorf("--open-keys-max %d: at least 1", m.cfg.MaxOpenAccounts)
	}
	for _, p := range m.openKeys {
		if err := mockserver.CheckKeyPattern(p); err != nil {
			return fmt.Errorf("--open-keys: %w", err)
		}
	}
	m.cfg.Keys = m.keys
	m.cfg.OpenKeys = m.openKeys
	if m.breakName != "" {
		mu, err := mutation.Lookup(m.breakName)
		if err != nil {
			return fmt.Errorf("--break: %w", err)
		}
		m.mutant = &mu
	}
	return nil
}

// Run serves until ctx ends, then shuts down gracefully: open streams get a
// closing event and [DONE], in-flight requests get up to 5 seconds.
func (m *Main) Run(ctx context.Context) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(m.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %v", err)
	}
	// One line per request: gathered and written every few milliseconds,
	// not one write call each (internal/logbuf). Flushed when Run returns.
	// The lines are slog.TextHandler's, the flat ones formatted without its
	// general machinery (internal/textlog).
	logOut := logbuf.New(m.Stderr, 0, 0)
	defer logOut.Close()
	log := slog.New(textlog.New(logOut, &slog.HandlerOptions{Level: level}))
	m.cfg.Logger = log
	// Every open stream holds a socket: Go itself lifts the soft open-file
	// limit to the hard one at start-up (since Go 1.19).
	if err := m.loadFixtures(); err != nil {
		return err
	}
	srv, err := mockserver.New(m.cfg)
	if err != nil {
		return err
	}
	// After the start-up (compiling the contract leaves much garbage), so
	// the process does not begin life with the floor's headroom resident. A
	// GOGC set by the user is theirs: no floor on top of it.
	if m.gcFloorMB > 0 && os.Getenv("GOGC") == "" {
		t := gcfloor.Start(uint64(m.gcFloorMB)<<20, gcBase)
		defer t.Stop()
	}
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		return errors.Join(err, srv.Close())
	}
	if m.pprofAddr != "" {
		pln, ps, err := pprofserve.Listen(m.pprofAddr)
		if err != nil {
			ln.Close()
			return err
		}
		defer ps.Close()
		go func() { _ = ps.Serve(pln) }()
		fmt.Fprintf(m.Stdout, "pprof on http://%s/debug/pprof/\n", pln.Addr())
	}
	var handler http.Handler = srv
	if m.mutant != nil {
		// The mock stays as it is; the mutant rewrites its traffic.
		keys := m.cfg.Keys
		if len(keys) == 0 {
			keys = []string{mockserver.DevKey}
		}
		handler = m.mutant.Wrapper(mutation.Options{Keys: keys})(srv)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	hs.RegisterOnShutdown(srv.Shutdown)
	if len(m.keys) == 0 {
		fmt.Fprintf(m.Stdout, "No --api-key given: use the development key %s\n", mockserver.DevKey)
	}
	fmt.Fprintf(m.Stdout, "mockserver listening on http://%s (%d account(s))\n", ln.Addr(), max(len(m.keys), 1))
	if len(m.openKeys) > 0 {
		fmt.Fprintf(m.Stdout, "Keys matching %s open their own account on first use (at most %d)\n", strings.Join(m.openKeys, ", "), m.cfg.MaxOpenAccounts)
	}
	if m.Addr != nil {
		m.Addr <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, srv.Close())
	case <-ctx.Done():
	}
	srv.Shutdown()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return errors.Join(err, srv.Close())
	}
	// After the last request: its changes reach the state file.
	if err := srv.Close(); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// printMutants lists every entry --break serves with its class: mutant
// (the suite must fail), valid (it must pass), hostile (it must end, in
// bounded time and memory, with exit 1).
func (m *Main) printMutants() {
	for _, mu := range mutation.Catalog() {
		fmt.Fprintf(m.Stdout, "%-34s %-7s %-13s %s\n", mu.Name, mu.Class(), mu.Area, mu.Breaks)
	}
}
