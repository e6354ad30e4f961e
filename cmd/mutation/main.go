// Command mutation proves the conformance suite's power: it runs the suite
// against the mock once unbroken (baseline), once per mutant (each breaks
// exactly one rule: the suite must fail it) and once per valid variant (each
// shows behaviour a conforming server may show: the suite must pass it), and
// prints the score. It exits 1 when the baseline fails, a mutant survives or
// a variant fails.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"contractkit/internal/envflag"
	"contractkit/mockserver"
)

type config struct {
	bin     string
	workers int
	only    string
	report  string
	timeout time.Duration
}

func main() {
	var cfg config
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.StringVar(&cfg.bin, "bin", "bin", "`DIR` holding the mockserver and conformance binaries (make build)")
	fs.IntVar(&cfg.workers, "workers", max(3, runtime.NumCPU()+1), "runs in parallel")
	fs.StringVar(&cfg.only, "only", "", "run only mutants whose name matches `REGEX`")
	fs.StringVar(&cfg.report, "report", "reports/mutation.md", "write the result table to `FILE` (Markdown)")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Second, "the suite's --timeout for each run")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mutation [flags]\n\nRuns the conformance suite against every mutant and valid variant of the mock.\nEvery flag can also be set by MUTATION_<FLAG>.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := envflag.Apply(fs, envflag.Prefixed("MUTATION_"), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(2)
	}
	os.Exit(run(cfg, os.Stdout))
}

// result is one run of the suite.
type result struct {
	mockserver.Mutant
	exit     int
	duration time.Duration
	failures []string // the suite's failed checks, for the report
	err      error
}

func (r result) expected() string {
	if r.Valid || r.Name == "" {
		return "pass"
	}
	return "fail"
}

func (r result) outcome() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.exit == 0:
		return "passed"
	case r.exit == 1:
		return "failed"
	}
	return fmt.Sprintf("exit %d", r.exit)
}

func (r result) ok() bool {
	return r.err == nil && ((r.expected() == "pass" && r.exit == 0) || (r.expected() == "fail" && r.exit == 1))
}

func run(cfg config, out io.Writer) int {
	var filter *regexp.Regexp
	if cfg.only != "" {
		var err error
		if filter, err = regexp.Compile(cfg.only); err != nil {
			fmt.Fprintln(os.Stderr, "mutation: --only:", err)
			return 2
		}
	}
	jobs := []mockserver.Mutant{{Name: "", Area: "baseline", Breaks: "nothing: the mock as it is", Valid: true}}
	for _, m := range mockserver.Mutants() {
		if filter == nil || filter.MatchString(m.Name) {
			jobs = append(jobs, m)
		}
	}
	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(cfg.workers, 1))
	start := time.Now()
	for i, m := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runOne(cfg, m)
			r := results[i]
			mark := "ok  "
			if !r.ok() {
				mark = "FAIL"
			}
			fmt.Fprintf(out, "%s %-36s expected %-4s %-8s %5.1fs\n", mark, label(r), r.expected(), r.outcome(), r.duration.Seconds())
		}()
	}
	wg.Wait()
	table := render(results, time.Since(start))
	fmt.Fprint(out, "\n"+table)
	if cfg.report != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.report), 0o755); err == nil {
			_ = os.WriteFile(cfg.report, []byte(table), 0o644)
		}
	}
	for _, r := range results {
		if !r.ok() {
			return 1
		}
	}
	return 0
}

func label(r result) string {
	if r.Name == "" {
		return "(baseline)"
	}
	return r.Name
}

// runOne starts the mock with one mutant on a free loopback port and runs
// the suite against it with two accounts.
func runOne(cfg config, m mockserver.Mutant) (res result) {
	res.Mutant = m
	begin := time.Now()
	defer func() { res.duration = time.Since(begin) }()
	port, err := freePort()
	if err != nil {
		res.err = err
		return res
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mock := exec.CommandContext(ctx, filepath.Join(cfg.bin, "mockserver"), "--addr", addr, "--break", m.Name,
		"--train-duration", "1s", "--eval-duration", "3s", "--token-interval", "1ms", "--log-level", "error")
	mock.Env = append(os.Environ(), "MOCK_API_KEY=mutation-key-a,mutation-key-b")
	var mockOut bytes.Buffer
	mock.Stdout, mock.Stderr = &mockOut, &mockOut
	if err := mock.Start(); err != nil {
		res.err = err
		return res
	}
	defer func() { _ = mock.Process.Kill(); _ = mock.Wait() }()
	if err := waitHealthy(ctx, "http://"+addr+"/healthz"); err != nil {
		res.err = fmt.Errorf("mock did not start: %v: %s", err, lastLine(mockOut.String()))
		return res
	}
	args := []string{"--base-url", "http://" + addr, "--timeout", cfg.timeout.String()}
	if m.Decided != "" {
		args = append(args, "--strict") // the rule broken is ours: only --strict fails it
	}
	suite := exec.CommandContext(ctx, filepath.Join(cfg.bin, "conformance"), args...)
	suite.Env = append(os.Environ(), "CONFORMANCE_API_KEY=mutation-key-a", "CONFORMANCE_API_KEY_2=mutation-key-b")
	var suiteOut bytes.Buffer
	suite.Stdout, suite.Stderr = &suiteOut, &suiteOut
	err = suite.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.exit = exit.ExitCode()
	case err != nil:
		res.err = err
	}
	res.failures = failedChecks(suiteOut.String())
	return res
}

// failedChecks picks the suite's failure headlines out of its output.
func failedChecks(out string) []string {
	var fails []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "[FAIL]") && len(fails) < 3 {
			fails = append(fails, strings.TrimSpace(line))
		}
	}
	return fails
}

func render(results []result, took time.Duration) string {
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Valid != results[j].Valid {
			return !results[i].Valid
		}
		return label(results[i]) < label(results[j])
	})
	var b strings.Builder
	killed, mutants, passed, variants := 0, 0, 0, 0
	b.WriteString("| name | area | what it breaks | rule | expected | outcome | first failed check |\n|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		if r.Valid {
			variants++
			if r.ok() {
				passed++
			}
		} else {
			mutants++
			if r.ok() {
				killed++
			}
		}
		first := ""
		if len(r.failures) > 0 && !r.Valid {
			first = strings.ReplaceAll(r.failures[0], "|", "\\|")
		}
		rule := "declared"
		if r.Decided != "" {
			rule = r.Decided + " (--strict)"
		}
		if r.Valid {
			rule = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", label(r), r.Area, r.Breaks, rule, r.expected(), r.outcome(), first)
	}
	fmt.Fprintf(&b, "\nScore: %d/%d mutants killed; %d/%d valid variants (baseline included) passed; %s.\n",
		killed, mutants, passed, variants, took.Round(time.Second))
	return b.String()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func waitHealthy(ctx context.Context, url string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return errors.New("no answer on /healthz within 20s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
