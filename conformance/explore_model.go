package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/explore"
	"contractkit/conformance/refmodel/drive"
	"contractkit/exchange"
	"contractkit/judge"
)

// The Explore area's reference model phase: the model's sequences (package
// model/drive) sent through the suite's client, every answer judged field
// by field. Coverage first (every operation's success and each status a
// client can provoke, each value the reference names, each state of a
// model and an evaluation, the writes whose effects reach other
// resources, both keys, near-miss ids and keys), then random steps.
//
// A finding is classed: declared (a clause of the reference) fails the
// run; decided (a decision, or a field's name) fails it only under
// --strict; noted is reported. A finding that holds only if no state moved
// unseen is replayed first: one the replay does not reproduce is reported
// as unconfirmed, with its sequence, and fails nothing.

// modelTime bounds the phase (the replays of kept sequences included): a
// slow server gets fewer calls, never a longer run. A variable only so
// that a test's child run can shorten it (main_test.go).
var modelTime = 90 * time.Second

// modelStepsShare: the random steps after coverage are this share of the
// explore budget (the property phase has the whole budget after them).
const modelStepsShare = 10

// modelDecisions are the decisions the model's decided predictions rest on
// that its mutants prove (the check's refinement labels).
var modelDecisions = []string{"D-05", "D-10", "D-16", "D-19", "D-23", "D-32", "D-33", "D-36"}

// modelPhase is what the phase found: its runs (kept sequences replayed
// first, then the run's own seed) and each run's exchanges by step.
type modelPhase struct {
	runs      []*drive.Run
	exchanges [][]*exchange.Exchange
	// kept is the replay file's error, or what was appended to it.
	kept string
}

// driveModel runs the phase: each kept sequence of --replay, then the
// run's own seed; the new failures are appended to the file.
func (e *env) driveModel(ctx context.Context) *modelPhase {
	p := &modelPhase{}
	// The phase's time ends it between two calls (Until), never during
	// one: what a call in flight made is known, and the clean-up, on its
	// own time, deletes it.
	base := drive.Config{Until: time.Now().Add(modelTime), Seed: e.cfg.Seed, Steps: max(0, e.cfg.Explore/modelStepsShare), OneAccount: e.cfg.APIKey2 == "",
		MaxWait: min(e.cfg.Timeout, 20*time.Second), Keep: e.cfg.Keep, Permanent: e.cfg.Spend.active(), Cleanup: e.cleanupTime()}
	var replays []drive.Sequence
	if e.cfg.Replay != "" {
		var err error
		if replays, err = drive.ReadReplay(e.cfg.Replay); err != nil {
			p.kept = "the replay file could not be read: " + err.Error()
		}
	}
	for _, s := range replays {
		cfg := base
		cfg.Seed, cfg.Steps, cfg.MaxCalls = s.Seed, s.Calls, s.Calls
		p.drive(ctx, e, cfg)
	}
	own := p.drive(ctx, e, base)
	if e.cfg.Replay != "" && p.kept == "" {
		seqs := own.Sequences(e.cfg.Strict)
		if err := drive.AppendReplay(e.cfg.Replay, seqs); err != nil {
			p.kept = "the replay file could not be written: " + err.Error()
		} else if len(seqs) > 0 {
			p.kept = fmt.Sprintf("%d failing sequence(s) appended to %s", len(seqs), e.cfg.Replay)
		}
	}
	return p
}

// drive runs one sequence and keeps its exchanges by step (the sender
// keeps each step's exchange with its answer: a burst's calls are answered
// in any order).
func (p *modelPhase) drive(ctx context.Context, e *env, cfg drive.Config) *drive.Run {
	r := drive.Drive(ctx, explore.ModelSender(exploreHost{e}, nil), cfg)
	xs := make([]*exchange.Exchange, len(r.Steps))
	for i, s := range r.Steps {
		xs[i], _ = s.Note.(*exchange.Exchange)
	}
	p.runs = append(p.runs, r)
	p.exchanges = append(p.exchanges, xs)
	return r
}

// line says how the phase ran, for the area's report.
func (p *modelPhase) line() string {
	var b strings.Builder
	for i, r := range p.runs {
		kind := "seed"
		if i < len(p.runs)-1 {
			kind = "kept sequence, seed"
		}
		fmt.Fprintf(&b, "reference model, %s %d: %d calls", kind, r.Seed, len(r.Steps))
		if r.Stopped != "" {
			fmt.Fprintf(&b, " (ended early: %s)", r.Stopped)
		}
		fmt.Fprintf(&b, "; findings: %d declared, %d decided, %d noted, %d unconfirmed\n",
			len(r.Class(judge.Declared)), len(r.Class(judge.Decided)), len(r.Class(judge.Noted)), len(r.Unsure()))
	}
	if p.kept != "" {
		b.WriteString(p.kept + "\n")
	}
	return b.String()
}

// referenceModelSpecs registers the phase's check (inside the Explore area).
func (e *env) referenceModelSpecs(phase func() *modelPhase) {
	c := declared("1.1", "1.2", "2", "3.1", "3.2", "5.3")
	c.Refines = modelDecisions
	e.check("MUST answer every call of the reference model's sequences — every operation, each refusal a client can provoke, each value the reference names, each state of a model and an evaluation, both keys, near-miss ids and keys — as the model predicts every field of the answer",
		c, func(ctx SpecContext) {
			p := phase()
			if p == nil {
				Skip("the explore phase is off (--explore 0)")
			}
			e.judgeModel(p)
		}, Label(labelExploreModel))
}

// judgeModel reports the phase and fails on what counts: declared
// findings always, decided ones under --strict (e.decided).
func (e *env) judgeModel(p *modelPhase) {
	AddReportEntry(entryExplore, p.line(), ReportEntryVisibilityAlways)
	var declared judge.Findings
	var explained []string
	var culprit *exchange.Exchange
	for i, r := range p.runs {
		at := func(fs []drive.Found) *exchange.Exchange {
			if len(fs) > 0 && fs[0].Step < len(p.exchanges[i]) {
				return p.exchanges[i][fs[0].Step]
			}
			return nil
		}
		if i == len(p.runs)-1 {
			AddReportEntry("model coverage", "documented status: answers\n"+r.Coverage()+misses(r)+
				"\n\ninput dimensions reached / derived from the contract, by family (conformance/inputs):\n"+r.Inputs(), ReportEntryVisibilityAlways)
		}
		if u := r.Unsure(); len(u) > 0 {
			AddReportEntry("unconfirmed (a replay did not reproduce it: not a failure)", r.Explain(u), ReportEntryVisibilityAlways)
		}
		if n := r.Class(judge.Noted); len(n) > 0 {
			AddReportEntry("noted", r.Explain(n), ReportEntryVisibilityAlways)
		}
		byDecision := map[string][]drive.Found{}
		for _, f := range r.Class(judge.Decided) {
			byDecision[f.Finding.Decision] = append(byDecision[f.Finding.Decision], f)
		}
		for _, d := range slices.Sorted(maps.Keys(byDecision)) {
			fs := byDecision[d]
			AddReportEntry("the model's decided predictions break ("+d+")", r.Explain(fs), ReportEntryVisibilityAlways)
			e.difference(at(fs), "the model's decided predictions break", d, values(fs))
		}
		if fs := r.Class(judge.Declared); len(fs) > 0 {
			declared = append(declared, values(fs)...)
			explained = append(explained, r.Explain(fs))
			if culprit == nil {
				culprit = at(fs)
			}
		}
	}
	if len(declared) > 0 {
		AddReportEntry("the model's declared predictions break", strings.Join(explained, "\n"), ReportEntryVisibilityFailureOrVerbose)
		e.fail(culprit, "the model's declared predictions break", declared)
	}
}

// values are the findings of fs as values.
func values(fs []drive.Found) judge.Findings {
	out := make(judge.Findings, len(fs))
	for i, f := range fs {
		out[i] = f.Finding
	}
	return out
}

// misses renders what a run did not reach: what it could not (with the
// reason it knew), and what it did not for no reason it knows.
func misses(r *drive.Run) string {
	m, skipped := r.Misses(), r.Skipped()
	out := ""
	if len(skipped) > 0 {
		out = "\nnot sent, and why:\n  " + strings.Join(skipped, "\n  ")
	}
	if len(m) == 0 {
		return "\nreached: every input dimension of every operation, each status a client can provoke, each state of each resource" + out
	}
	return out + "\nnot reached:\n  " + strings.Join(m, "\n  ")
}
