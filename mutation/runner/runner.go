// Package runner proves the conformance suite's power with the wrappers of
// package mutation: it starts the mock once unbroken (the baseline) and once
// per mutant and valid variant (mockserver --break NAME), runs the suite
// against each, and reads each verdict from the suite's JSON report (Run).
// It is cmd/mutation's work; it lives apart from the wrappers so that the
// mock, which links them for --break, does not link the reports it reads
// (package report).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"contractkit/internal/childserver"
	"contractkit/mutation"
)

// Config configures Run.
type Config struct {
	// Bin is the directory holding the mockserver and conformance binaries.
	Bin string
	// Workers is how many runs go in parallel (default: defaultWorkers).
	Workers int
	// Only, when set, keeps the mutants whose name matches.
	Only *regexp.Regexp
	// Report is the Markdown file the table is written to ("": none).
	Report string
	// Keep is the directory a run that was not as expected leaves its
	// suite's JSON report in, as NAME.json ("": none), so that a failure
	// met once in CI can be read whole afterwards.
	Keep string
	// Timeout is the suite's --timeout for each run (default 10s).
	Timeout time.Duration
	// Seed is the explore phase's seed in every run (default 1), so a
	// score can be reproduced.
	Seed uint64
	// StartTimeout bounds the wait for the mock's address (default 60s).
	StartTimeout time.Duration
	// RunTimeout bounds one whole run, mock and suite (default 5m).
	RunTimeout time.Duration
	// Mutants are run after the baseline; nil runs List().
	Mutants []mutation.Mutant
	// Out gets a line per finished run, then the table.
	Out io.Writer
}

// Result is one run of the suite against one mutant (or the baseline, the
// unnamed one).
type Result struct {
	mutation.Mutant
	// Passed reports the suite's verdict, read from its JSON report; it
	// means nothing when Err is set.
	Passed bool
	// Failures are the suite's failed checks, "check: first line of the reason".
	Failures []string
	// Err is why the run gave no verdict: the mock did not start or died,
	// the suite could not run, its report is missing or disagrees with its
	// exit status. For a hostile server, also what broke its expectation
	// (judgeHostile).
	Err      error
	Duration time.Duration
	// PeakRSS is the suite's peak resident memory in bytes (a hostile
	// run's; 0 for the others).
	PeakRSS int64
}

// Expected is what the suite must say: "pass" for a valid variant and the
// baseline, "fail" for a mutant.
func (r Result) Expected() string {
	if r.Valid || r.Name == "" {
		return "pass"
	}
	return "fail"
}

// Outcome is what the suite said.
func (r Result) Outcome() string {
	switch {
	case r.Err != nil:
		return "error: " + r.Err.Error()
	case r.Passed:
		return "passed"
	}
	return "failed"
}

// OK reports whether the suite said what it must.
func (r Result) OK() bool { return r.Err == nil && r.Passed == (r.Expected() == "pass") }

// AllOK reports whether every result is as it must be.
func AllOK(results []Result) bool {
	for _, r := range results {
		if !r.OK() {
			return false
		}
	}
	return len(results) > 0
}

// The runs' two accounts; they never leave the runner's child processes.
const keyA, keyB = "mutation-key-a", "mutation-key-b"

// Run runs the suite against the unbroken mock (the baseline, first) and
// against each mutant, writes the table to cfg.Out and cfg.Report, and
// returns the results. The error is the runner's own (the report could not
// be written); a run that gives no verdict is a Result with Err.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	cfg.defaults()
	jobs := []mutation.Mutant{{Area: "baseline", Breaks: "nothing: the mock as it is", Valid: true}}
	for _, m := range cfg.Mutants {
		if cfg.Only == nil || cfg.Only.MatchString(m.Name) {
			jobs = append(jobs, m)
		}
	}
	results := make([]Result, len(jobs))
	var wg sync.WaitGroup
	var outMu sync.Mutex
	sem := make(chan struct{}, cfg.Workers)
	start := time.Now()
	for _, i := range longestFirst(jobs) {
		m := jobs[i]
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = cfg.runOne(ctx, m)
			r := results[i]
			mark := "ok  "
			if !r.OK() {
				mark = "FAIL"
			}
			outMu.Lock()
			fmt.Fprintf(cfg.Out, "%s %-36s expected %-4s %-8s %5.1fs\n", mark, label(r), r.Expected(), r.Outcome(), r.Duration.Seconds())
			outMu.Unlock()
		})
	}
	wg.Wait()
	table := Render(results, time.Since(start))
	fmt.Fprint(cfg.Out, "\n"+table)
	if cfg.Report != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.Report), 0o755); err != nil {
			return results, fmt.Errorf("report: %w", err)
		}
		if err := os.WriteFile(cfg.Report, []byte(table), 0o644); err != nil {
			return results, fmt.Errorf("report: %w", err)
		}
	}
	return results, nil
}

// longestFirst is the order the runs start in: the longest kinds first, so
// that no long run starts last and leaves the other workers idle. A run
// with the explore phase (the baseline, the variants) runs the whole suite
// and both explore parts; an explore mutant, the suite and the property
// part; a modelled one, the model part; a written check's mutant and a
// hostile server, the written checks only (the hostile ones are bounded).
func longestFirst(jobs []mutation.Mutant) []int {
	weight := func(m mutation.Mutant) int {
		switch {
		case m.Valid || m.Name == "":
			return 0
		case m.Explore:
			return 1
		case m.Model:
			return 2
		}
		return 3
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return weight(jobs[a]) - weight(jobs[b]) })
	return order
}

func (cfg *Config) defaults() {
	if cfg.Workers <= 0 {
		cfg.Workers = defaultWorkers()
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = time.Minute
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 5 * time.Minute
	}
	if cfg.Mutants == nil {
		// The hostile servers are judged by their own expectation
		// (hostile.go), bounded so they add little time.
		cfg.Mutants = append(mutation.List(), mutation.Hostile()...)
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
}

func label(r Result) string {
	if r.Name == "" {
		return "(baseline)"
	}
	return r.Name
}

// runOne starts the mock with one mutant on a port the system picks, and
// runs the suite against it with two accounts.
func (cfg Config) runOne(ctx context.Context, m mutation.Mutant) (res Result) {
	res.Mutant = m
	begin := time.Now()
	defer func() { res.Duration = time.Since(begin) }()
	ctx, cancel := context.WithTimeout(ctx, cfg.RunTimeout)
	defer cancel()
	mock, err := startMock(ctx, cfg, m.Name)
	if err != nil {
		res.Err = err
		return res
	}
	defer mock.Kill()
	res.Passed, res.Failures, res.PeakRSS, res.Err = cfg.runSuite(ctx, mock, m)
	return res
}

// hermetic is the environment of the runs: the runner's own, without any
// variable that would change the mock's or the suite's flags.
func hermetic(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MOCK_") && !strings.HasPrefix(kv, "CONFORMANCE_") && !strings.HasPrefix(kv, "MUTATION_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// listening is the line the mock prints once it listens.
var listening = regexp.MustCompile(`^mockserver listening on http://(\S+)`)

// startMock starts the mock on 127.0.0.1:0 and reads back, from the line it
// prints, the address the system gave it (internal/childserver): no port is
// guessed, so no run can take another's.
func startMock(ctx context.Context, cfg Config, name string) (*childserver.Server, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(cfg.Bin, "mockserver"), "--addr", "127.0.0.1:0", "--break", name,
		"--train-duration", "1s", "--eval-duration", "3s", "--token-interval", "2ms", "--log-level", "error")
	cmd.Env = hermetic("MOCK_API_KEY=" + keyA + "," + keyB)
	cmd.WaitDelay = 5 * time.Second
	return childserver.Start(ctx, "mockserver", cmd, listening, cfg.StartTimeout)
}

// mockDied reports whether the mock ended during the run. Its end is
// reaped by childserver's goroutine, which under load lags the suite's own
// exit; and a dying process's socket may still complete a connection (seen
// under load: a dial succeeded after the suite's request met EOF). So the
// mock must answer its health check; one that does not is waited for.
func mockDied(m *childserver.Server) bool {
	select {
	case <-m.Exited():
		return true
	default:
	}
	client := http.Client{Timeout: 2 * time.Second}
	if resp, err := client.Get("http://" + m.Addr + "/healthz"); err == nil {
		resp.Body.Close()
		return false
	}
	select {
	case <-m.Exited():
	case <-time.After(5 * time.Second): // not answering and not reaped: no verdict either way
	}
	return true
}

// defaultWorkers is how many runs go in parallel: three per CPU (at least
// four). A run mostly waits — for the mock's clocks (a model trains for
// 1 s, an evaluation runs for 3 s), for paced streams — so one per CPU left
// two cores a third busy (measured: 14 minutes with 3 workers, 7.5 with 6).
func defaultWorkers() int { return max(4, 3*runtime.NumCPU()) }

// modelExplore is the explore budget of a run judged by the reference
// model (Mutant.Model).
const modelExplore = 100

// ExitLeftBehind is the suite's exit status when every check passed but the
// run left resources behind (conformance.ExitLeftBehind, D-47; the runner
// does not link the suite).
const ExitLeftBehind = 4

// runSuite runs the suite against m and reads its verdict from its JSON
// report, checked against its exit status; a hostile run is also judged by
// its own expectation, its peak memory measured.
func (cfg Config) runSuite(ctx context.Context, m *childserver.Server, mu mutation.Mutant) (passed bool, failures []string, rss int64, err error) {
	dir, err := os.MkdirTemp("", "mutation-")
	if err != nil {
		return false, nil, 0, err
	}
	defer os.RemoveAll(dir)
	report := filepath.Join(dir, "report.json")
	args := []string{"--base-url", "http://" + m.Addr, "--timeout", cfg.Timeout.String(), "--json", report,
		"--seed", strconv.FormatUint(cfg.Seed, 10)}
	if mu.Decided != "" {
		args = append(args, "--strict") // the rule broken is ours: only --strict fails it
	}
	junit := filepath.Join(dir, "junit.xml")
	switch {
	case mu.Hostile:
		args = append(args, hostileArgs(mu, junit)...)
	case mu.Model:
		// Judged by the reference model: the Explore area alone kills or
		// passes it, the written checks would only add minutes. Its
		// coverage phase reaches every trigger whatever the budget: a
		// small one keeps only a few random steps and property requests,
		// which would add time and no kill.
		args = append(args, "--label-filter", "explore", "--explore", strconv.Itoa(modelExplore))
	case mu.Explore:
		// An explore mutant is the property phase's to kill: the written
		// checks run (to show they do not kill it), the reference model's
		// phase would only add its time (label explore:model).
		args = append(args, "--label-filter", "!explore:model")
	case !mu.Valid && mu.Name != "":
		// A mutant of a written check's rule: the written checks kill it,
		// and exploring would only add minutes (its shrinking). The
		// baseline, the variants and the explore mutants explore.
		args = append(args, "--explore", "0")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(cfg.Bin, "conformance"), args...)
	cmd.Env = hermetic("CONFORMANCE_API_KEY="+keyA, "CONFORMANCE_API_KEY_2="+keyB)
	out := &childserver.Tail{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	begin := time.Now()
	err = cmd.Run()
	took := time.Since(begin)
	if mu.Hostile {
		rss = peakRSS(cmd)
	}
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		return false, nil, rss, fmt.Errorf("conformance: %w", err)
	}
	if mockDied(m) { // a verdict on a dead mock says nothing of the mutant
		return false, nil, rss, fmt.Errorf("mockserver exited during the run (%v): %s", m.Err(), m.LastError())
	}
	if mu.Hostile {
		if err := judgeHostile(exit, took, rss, junit, out); err != nil {
			return false, nil, rss, err
		}
	}
	if exit == ExitLeftBehind {
		if mu.Valid && mu.Clean {
			return false, nil, rss, fmt.Errorf("the run left resources behind (exit 4) against a valid server: %s", out.Last())
		}
		// Every check passed; the mutant kept what the clean-up asked it to
		// delete. The verdict is the checks': a pass.
		exit = 0
	}
	if exit != 0 && exit != 1 {
		return false, nil, rss, fmt.Errorf("conformance exited %d: %s", exit, out.Last())
	}
	passed, failures, exploreOnly, err := readVerdict(report)
	wrongPhase := (mu.Explore || mu.Model) && !passed && !exploreOnly
	if cfg.Keep != "" && (err != nil || passed != mu.Valid || wrongPhase) {
		keepReport(report, cfg.Keep, mu)
	}
	switch {
	case err != nil:
		return false, nil, rss, fmt.Errorf("conformance --json (exit %d): %w", exit, err)
	case passed != (exit == 0):
		return false, failures, rss, fmt.Errorf("conformance exited %d but its report says succeeded=%t", exit, passed)
	case wrongPhase:
		// Its kill must be the explore phase's alone: a written check that
		// fails it means the mutant proves nothing about exploring.
		return false, failures, rss, fmt.Errorf("a check outside the explore phase failed it: %s", failures[0])
	}
	return passed, failures, rss, nil
}
