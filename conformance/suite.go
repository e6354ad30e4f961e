// Package conformance is the conformance suite of the contract: Ginkgo
// specs that certify a server against the seed (spec/openapi.yaml and
// spec/DECISIONS.md), run from a plain main() by cmd/conformance. It holds
// the written areas (one check per behaviour, labelled by area, seed clause
// and decision), their registration and the decided mechanism (a decided
// rule's failure becomes a reported difference unless --strict), the
// Ginkgo wiring and the command line. What it builds on links no test
// framework and lives apart, by dependency weight: exchange (an exchange
// as reports show it), judge (the one judge: findings as values), client
// (the HTTP client), report (the reports' data model and writers: Ginkgo's
// report is converted into it at the suite's edge, ginkgoreport.go) and
// explore (the explore phase, behind a small host).
//
// Ginkgo keeps one spec tree per process and runs it once, so Run, List and
// Clauses may be called once per process, one of them.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"contractkit/bound"
	"contractkit/conformance/client"
	"contractkit/conformance/explore"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
	"contractkit/spec"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// Exit statuses of a run.
const (
	// ExitPass: every selected declared check passed (decided ones too
	// under --strict).
	ExitPass = 0
	// ExitFail: a check failed.
	ExitFail = 1
	// ExitUsage: a usage or configuration error; nothing ran.
	ExitUsage = 2
	// ExitUnreachable: the base URL did not answer; nothing ran.
	ExitUnreachable = 3
	// ExitLeftBehind: no check failed, but the run left resources on the
	// server (the summary lists them with their ids; D-47). A failed check
	// wins: ExitFail.
	ExitLeftBehind = 4
)

// DefaultTimeout is the default longest wait for a state change.
const DefaultTimeout = 2 * time.Minute

// DefaultMaxMemory is the default --max-memory, in MiB.
const DefaultMaxMemory = bound.SuiteMemory >> 20

// DefaultExplore is the default request budget of the explore phase.
const DefaultExplore = explore.DefaultBudget

// Config is one run's configuration (the CLI's flags).
type Config struct {
	// BaseURL is the service base address; the API lives under /api/v1.
	BaseURL string
	// APIKey is the first account's key (required).
	APIKey string
	// APIKey2 is a second account's key; it enables the isolation checks.
	APIKey2 string
	// JUnit, JSON and HTML are report files to write ("" for none).
	JUnit, JSON, HTML string
	// Coverage is a file for the contract coverage, JSON ("" for none).
	Coverage string
	// Markdown is a file for the verdict and the failed checks as
	// Markdown, a CI job's page ("" for none).
	Markdown string
	// Compare is a previous run's JSON report: the run says what changed
	// since ("" for none; compare.go).
	Compare string
	// LabelFilter is a Ginkgo label filter. Unless it mentions rate-limit,
	// the rate-limit checks are left out.
	LabelFilter string
	// Focus runs only the checks whose text matches this regular expression.
	Focus string
	// Timeout is the longest wait for a state change (a model ready, an
	// evaluation finished) and for an inference stream.
	Timeout time.Duration
	// Strict fails the run on decided (not declared) behaviour too.
	Strict bool
	// Keep leaves created resources in place.
	Keep bool
	// Explore is the request budget of the explore phase (0: off).
	Explore int
	// Seed draws the explore phase's requests; 0 picks one at random
	// (Run prints it, and the same seed replays the same requests).
	Seed uint64
	// Replay is the file of kept failures the explore phase replays first
	// and appends to ("" none).
	Replay string
	// Spend is what the run may create and start, and what it reuses
	// (--budget, --reuse-model, --profile; spendflags.go).
	Spend
	// Deadline bounds the whole run (0: none): past it the check running
	// is interrupted, the rest skipped, clean-up runs and the reports are
	// written with what ran; the run fails.
	Deadline time.Duration
	// MaxMemory is the suite's own memory bound in MiB (the Go runtime's
	// soft limit; see bound.SuiteMemory).
	MaxMemory int64

	// prev is the report of --compare, read before the run (nil: none).
	prev *report.Run
}

// requestTimeout bounds one ordinary request.
const requestTimeout = 30 * time.Second

// pollInterval is how often a state is polled.
const pollInterval = 250 * time.Millisecond

// Run runs the suite against cfg.BaseURL, writes the reports and a summary
// to out, and returns the exit status (ExitPass, ExitFail, ExitUsage or
// ExitUnreachable).
func Run(cfg Config, out io.Writer) int {
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(out, "conformance: %v\n", err)
		return ExitUsage
	}
	prev, err := cfg.previous(func(s string) { fmt.Fprintln(out, s) })
	if err != nil {
		fmt.Fprintf(out, "conformance: %v\n", err)
		return ExitUsage
	}
	cfg.prev = prev
	if err := probe(cfg.BaseURL); err != nil {
		fmt.Fprintf(out, "conformance: %s cannot be reached: %v\n", cfg.BaseURL, err)
		return ExitUnreachable
	}
	return execute(cfg, modeRun, out)
}

// List writes every check selected by cfg.LabelFilter and cfg.Focus (the
// rate-limit checks included) with its labels and seed clauses; nothing is
// sent.
func List(cfg Config, out io.Writer) int {
	if err := errors.Join(cfg.validateSelection()...); err != nil {
		fmt.Fprintf(out, "conformance: %v\n", err)
		return ExitUsage
	}
	return execute(cfg, modeList, out)
}

// Clauses writes the traceability document (conformance/CLAUSES.md).
func Clauses(out io.Writer) int {
	return execute(Config{Timeout: DefaultTimeout}, modeClauses, out)
}

type mode int

const (
	modeRun mode = iota
	modeList
	modeClauses
)

// probe tells a server that answers (anything) from one that cannot be
// reached.
func probe(base string) error {
	u, _ := url.Parse(base)
	u.Path = strings.TrimRight(u.Path, "/") + pathModels
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// executed enforces Ginkgo's rule of one RunSpecs per process with an
// error instead of Ginkgo's os.Exit.
var executed atomic.Bool

// env is everything one run's checks share: the configuration, the client,
// the run's name prefix and the resources kept for the whole suite. It is
// created by execute and captured by the spec closures; there is no other
// package state.
type env struct {
	cfg    Config
	client *client.Client
	// prefix starts every name this run creates ("ck-1a2b3c-").
	prefix string
	// unknownID is an id no resource has (a random 12-digit number).
	unknownID string
	shared    *sharedResources
	final     types.Report
	// leaks lists resources cleanup could not remove; deletes bounds the
	// clean-up's waits for refused deletes (cleanup.go).
	leaks   []string
	deletes deleteWaits
	// basis is what the running check's own expectations rest on
	// (expect.go).
	basis basis
	// setupJudged are the findings in the answers BeforeSuite and the
	// skipped checks read, reported with the clean-up's (sweepIn).
	setupJudged []client.Judged
	// explored says how the explore phase ran ("" when it did not).
	explored string
	// spend is the run's budget, the client's gate (spending.go), and
	// withheldWhy the reason of the last request it withheld.
	spend       *spending
	withheldWhy string
	// judge is the one judge, made from the contract: the client judges
	// every answer it reads with it (expect.go).
	judge *judge.Judge
	// reg is the spec tree as registered, early what BeforeSuite started
	// ahead of the checks that wait longest (early.go).
	reg   registry
	early headStart
}

func newEnv(cfg Config) *env {
	j := judge.New(spec.Strict(), spec.Declared())
	e := &env{cfg: cfg, prefix: "ck-" + randomHex(3) + "-", shared: &sharedResources{}, spend: newSpending(cfg.Budget, j), judge: j}
	e.spend.keylessWrites = cfg.smoke()
	n, _ := rand.Int(rand.Reader, big.NewInt(899_999_999_999))
	e.unknownID = n.Add(n, big.NewInt(100_000_000_000)).String()
	if u, err := url.Parse(cfg.BaseURL); err == nil && cfg.BaseURL != "" {
		e.client = client.New(u, cfg.APIKey, cfg.APIKey2, min(requestTimeout, max(cfg.Timeout, time.Second)))
		e.client.SetGate(e.spend)
		e.client.SetJudge(j)
		stream := bound.Stream
		stream.Idle, stream.Duration = e.streamIdle(), max(cfg.Timeout, time.Second)
		e.client.SetLimits(bound.Body, stream)
	}
	return e
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// failureFlag is the testing.T stand-in RunSpecs wants.
type failureFlag struct{ failed bool }

func (f *failureFlag) Fail() { f.failed = true }

func execute(cfg Config, m mode, out io.Writer) int {
	if !executed.CompareAndSwap(false, true) {
		fmt.Fprintln(out, "conformance: the suite runs once per process (Ginkgo's rule); start another process")
		return ExitUsage
	}
	if cfg.Seed == 0 {
		n, _ := rand.Int(rand.Reader, big.NewInt(1<<40))
		cfg.Seed = n.Uint64() + 1
	}
	e := newEnv(cfg)
	e.register()

	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.FocusStrings, suiteConfig.SkipStrings = nil, nil
	suiteConfig.LabelFilter = cfg.labelFilter()
	if cfg.Focus != "" {
		suiteConfig.FocusStrings = []string{cfg.Focus}
	}
	suiteConfig.RandomizeAllSpecs = false
	suiteConfig.FailFast = false
	suiteConfig.Timeout = 24 * time.Hour // each wait has its own bound (--timeout)
	if cfg.Deadline > 0 {
		// Ginkgo's suite timeout does what --deadline promises, as its
		// interrupt handler does on SIGINT and SIGTERM: the running check
		// is interrupted, the rest skipped, clean-up and reporting run.
		suiteConfig.Timeout = cfg.Deadline
	}
	suiteConfig.GracePeriod = cleanupGrace
	reporterConfig.NoColor = !isTerminal(out)
	reporterConfig.Succinct = false
	reporterConfig.Verbose, reporterConfig.VeryVerbose = false, false
	switch m {
	case modeRun:
		// The reports are written from the report model after the run
		// (report.WriteReports), not by Ginkgo's reporters.
		formatter.ColorableStdOut = out
	case modeList:
		suiteConfig.LabelFilter = cfg.listFilter()
		suiteConfig.DryRun = true
		formatter.ColorableStdOut = io.Discard
	case modeClauses:
		suiteConfig.LabelFilter, suiteConfig.FocusStrings = "", nil
		suiteConfig.DryRun = true
		formatter.ColorableStdOut = io.Discard
	}
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(cfg.Timeout)
	SetDefaultEventuallyPollingInterval(pollInterval)

	failures := &failureFlag{}
	passed := RunSpecs(failures, suiteName, suiteConfig, reporterConfig)

	run := e.reportRun(e.final)
	switch m {
	case modeList:
		report.WriteList(out, run)
		return ExitPass
	case modeClauses:
		if err := report.WriteClauses(out, run); err != nil {
			fmt.Fprintf(out, "conformance: %v\n", err)
			return ExitFail
		}
		return ExitPass
	}
	report.WriteSummary(out, run)
	writeStopped(out, run)
	if err := report.WriteReports(run, cfg.reportOptions()); err != nil {
		fmt.Fprintf(out, "conformance: %v\n", err)
		return ExitFail
	}
	switch {
	case !passed || failures.failed:
		return ExitFail
	case run.Tally().Total.Selected() == 0:
		fmt.Fprintln(out, "conformance: --label-filter and --focus selected no check")
		return ExitUsage
	case run.Spent.LeftBehind() && !cfg.Keep:
		return ExitLeftBehind
	}
	return ExitPass
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// register builds the spec tree: the suite-wide nodes, then every area.
func (e *env) register() {
	var retriesBefore int64
	ReportBeforeEach(func(r SpecReport) {
		if e.client != nil {
			e.client.Reset()
			e.client.SetArea(areaOf(r))
			retriesBefore = e.client.Retries()
		}
	})
	BeforeEach(e.skipStopped) // top level: before any BeforeAll of an area
	AfterEach(func() {
		if e.client != nil {
			if n := e.client.Retries() - retriesBefore; n > 0 {
				AddReportEntry(report.EntryRetries, n)
			}
		}
		r := CurrentSpecReport()
		if e.client != nil && (r.Failed() || hasDifference(r)) {
			AddReportEntry(entryExchanges, exchange.Log(e.client.Log()), ReportEntryVisibilityNever)
		}
	})
	BeforeSuite(func(ctx SpecContext) {
		AddReportEntry("run", newRunInfo(e.cfg)) // the console's; the reports take it from the config
		e.reuseModel(ctx)
		e.startEarly(ctx)
		if e.client != nil {
			// The set-up's answers are judged at the end (a failure
			// here would skip every check): kept aside until then.
			judged, _ := e.client.Sweep()
			e.setupJudged = append(e.setupJudged, judged...)
		}
	})
	AfterSuite(func(sctx SpecContext) {
		if e.client != nil {
			e.client.SetArea(areaCleanup)
		}
		ctx, cancel := e.cleanupContext(sctx)
		defer cancel()
		e.removeShared(ctx)
		e.confirmLeft(ctx)
		e.sweepIn("the run's set-up, a skipped check or the clean-up", e.setupJudged)
	})
	ReportAfterSuite("conformance report", func(r Report) { e.final = r })

	e.smokeSpecs() // selected alone, by --profile smoke
	e.authSpecs()
	e.envelopeSpecs()
	e.modelSpecs()
	e.datasetSpecs()
	e.conversationSpecs()
	e.inferenceSpecs()
	e.evaluationSpecs()
	e.limitSpecs()
	e.isolationSpecs()
	e.rateLimitSpecs()
	e.exploreSpecs() // last: it runs after every written check
}
