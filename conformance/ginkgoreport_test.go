package conformance

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"contractkit/conformance/budget"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/report"
	"contractkit/spec"
)

// ginkgoFixture is Ginkgo's report of a small run: every state of an It,
// the entries the checks attach, and a failed AfterSuite.
func ginkgoFixture() (types.Report, report.Difference, judge.Findings, *exchange.Exchange) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	x := &exchange.Exchange{Method: "GET", URL: "http://127.0.0.1:1/api/v1/user/model/7", Status: 200, Curl: "curl http://127.0.0.1:1/api/v1/user/model/7"}
	fs := judge.Findings{{Operation: "getModel", Side: judge.Server, Pointer: "/status", Rule: judge.RuleEnvelope, Expected: `"success"`, Got: `"ok"`, Class: judge.Declared}}
	d := report.Difference{Decision: "D-17", What: "refused with another status code", Findings: fs, Curl: x.Curl, Line: x.Line()}
	entry := func(name string, v any) types.ReportEntry {
		return types.ReportEntry{Name: name, Value: types.WrapEntryValue(v)}
	}
	it := func(state types.SpecState, text string, labels []string, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, ContainerHierarchyTexts: []string{"Models", "create"}, LeafNodeText: text,
			LeafNodeLabels: labels, State: state, StartTime: t0, EndTime: t0.Add(time.Second), RunTime: time.Second, ReportEntries: entries}
	}
	failed := it(types.SpecStateFailed, "MUST fail", []string{"models", "declared", "seed:4.1.3"},
		entry(report.EntryFindings, fs), entry(entryReproduce, x), entry(entryExchanges, exchange.Log{x, x}),
		entry(report.EntryRetries, int64(2)), entry(report.EntryTiming, judge.StreamTiming{Tokens: 3}), entry("a note", "some text"))
	failed.Failure = types.Failure{Message: "not a conforming success", Location: types.CodeLocation{FileName: "/src/models.go", LineNumber: 42}}
	skipped := it(types.SpecStateSkipped, "MUST skip", []string{"models"})
	skipped.Failure.Message = "the budget is spent"
	panicked := it(types.SpecStatePanicked, "MUST not panic", []string{"explore"})
	panicked.Failure = types.Failure{Message: "Test Panicked", ForwardedPanic: "boom", Location: types.CodeLocation{FullStackTrace: "goroutine 1"}}
	after := types.SpecReport{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: "clean-up failed"}}
	r := types.Report{SuiteDescription: suiteName, StartTime: t0, EndTime: t0.Add(time.Minute), SuiteSucceeded: false,
		SpecialSuiteFailureReasons: []string{"Interrupted by User"},
		SpecReports: types.SpecReports{
			{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed, ReportEntries: types.ReportEntries{entry("run", "info")}},
			it(types.SpecStatePassed, "MUST pass", []string{"models", "declared"}),
			it(types.SpecStatePassed, "SHOULD differ", []string{"datasets", "decided", "D-17"}, entry(report.EntryDecided, d)),
			failed, skipped, panicked,
			it(types.SpecStateSkipped, "MUST not be selected", []string{"auth"}),
			it(types.SpecStatePending, "MUST be written", nil),
			after,
		}}
	return r, d, fs, x
}

// Ginkgo's report becomes the report model: each It a check in its state
// (as the summary counts them), each entry the field that holds it as a
// value, a failed suite node a suite failure; in this process's report and
// in one read back from JSON alike (Ginkgo's parallel runs hand over the
// latter).
func TestGinkgoReportConverts(t *testing.T) {
	r, d, fs, x := ginkgoFixture()
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var rehydrated types.Report
	if err := json.Unmarshal(raw, &rehydrated); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]types.Report{"in process": r, "from JSON": rehydrated} {
		t.Run(name, func(t *testing.T) {
			run := runOf(in)
			if run.Suite != suiteName || run.Succeeded || !run.Start.Equal(r.StartTime) || run.Duration() != time.Minute ||
				!reflect.DeepEqual(run.Stopped, []string{"Interrupted by User"}) {
				t.Errorf("the run: %+v", run)
			}
			var states []report.State
			for _, c := range run.Checks {
				states = append(states, c.State)
			}
			want := []report.State{report.Passed, report.DecidedDiffers, report.Failed, report.Skipped, report.Failed, report.NotSelected, report.Pending}
			if !reflect.DeepEqual(states, want) {
				t.Fatalf("states %v, want %v", states, want)
			}
			c := run.Checks[0]
			if c.Area != "models" || c.Name() != "Models › create › MUST pass" || c.Duration != time.Second {
				t.Errorf("a passed check: %+v", c)
			}
			if c := run.Checks[1]; len(c.Differences) != 1 || !reflect.DeepEqual(c.Differences[0], d) || c.Area != "datasets" {
				t.Errorf("the decided difference: %+v, want %+v", c.Differences, d)
			}
			f := run.Checks[2]
			if f.Failure == nil || f.Failure.Kind != "failed" || f.Failure.Location != (report.Location{File: "/src/models.go", Line: 42}) {
				t.Errorf("the failure: %+v", f.Failure)
			}
			if !reflect.DeepEqual(f.Findings, fs) || len(f.Reproduce) != 1 || !reflect.DeepEqual(f.Reproduce[0], x) || len(f.Exchanges) != 2 ||
				f.Retries != 2 || len(f.Streams) != 1 || f.Streams[0].Tokens != 3 {
				t.Errorf("the failed check's values: findings %+v, reproduce %v, exchanges %d, retries %d, streams %v",
					f.Findings, f.Reproduce, len(f.Exchanges), f.Retries, f.Streams)
			}
			if len(f.Notes) != 1 || f.Notes[0] != (report.Note{Name: "a note", Text: "some text"}) {
				t.Errorf("the note: %+v", f.Notes)
			}
			if s := run.Checks[3]; s.SkipReason != "the budget is spent" {
				t.Errorf("the skip reason: %q", s.SkipReason)
			}
			if p := run.Checks[4].Failure; p.Kind != "panicked" || p.Message != "Test Panicked\nboom" || p.Stack != "goroutine 1" {
				t.Errorf("the panic: %+v", p)
			}
			if len(run.SuiteFailures) != 1 || run.SuiteFailures[0].Node != "AfterSuite" || run.SuiteFailures[0].Message != "clean-up failed" {
				t.Errorf("suite failures: %+v", run.SuiteFailures)
			}
		})
	}
	if !hasDifference(r.SpecReports[2]) || hasDifference(r.SpecReports[1]) {
		t.Error("hasDifference")
	}
}

// The ledger's account becomes the reports' rows, kind for kind.
func TestSpentOfTheLedger(t *testing.T) {
	b, err := budget.Parse("models=1")
	if err != nil {
		t.Fatal(err)
	}
	l := budget.NewLedger(b)
	tk, _ := l.Take(spec.CostModels)
	tk.Created("21")
	tk, _ = l.Take(spec.CostDatasets)
	tk.Created("8")
	l.Removed(spec.CostModels, "21")
	s := spentOf(l)
	if len(s.Rows) != len(spec.CostKinds()) || s.Rows[0].Kind != "models" || s.Rows[0].Limit != 1 || len(s.Rows[0].Removed) != 1 ||
		s.Rows[1].Limit != -1 || !reflect.DeepEqual(s.Rows[1].Left, []string{"8"}) {
		t.Errorf("rows: %+v", s.Rows)
	}
	if got, want := s.Line(), "budget models=1; models 1/1 created 1 started 0 removed 1; datasets 1/- created 1 started 0 removed 0; left behind: 1: datasets 8"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
