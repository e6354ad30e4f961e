package conformance

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/conformance/client"
	"contractkit/conformance/explore"
	"contractkit/spec"
)

// The Explore area: one check per property of the explore phase (package
// explore), judged from what the phase found. The phase runs once, in the
// area's BeforeAll, after every written check (the area is registered
// last).

// The labels of the explore phase's two parts: the reference model's
// check and the property checks.
const (
	labelExploreModel      = "explore:model"
	labelExploreProperties = "explore:properties"
)

// entryExplore names the report entry that says how the phase ran.
const entryExplore = "explore"

func (e *env) exploreSpecs() {
	// SpecPriority(-3): Ginkgo shuffles the areas, and this one must run
	// after every written check (Evaluations are -1, Models -2, early.go).
	e.describe("Explore", Label("explore"), Ordered, ContinueOnFailure, SpecPriority(-3), costs(spec.CostKinds()...), func() {
		var found *explore.Result
		var modelled *modelPhase
		BeforeAll(func(ctx SpecContext) {
			if e.cfg.Explore <= 0 || e.client == nil {
				return
			}
			// The reference model's sequences first (coverage does not
			// depend on the seed), then the properties with the whole
			// budget: the model phase is bounded by its own time, and a
			// property phase left with what the model did not spend drew
			// too little to find what only it finds (a mutant survived).
			// A phase runs when one of its checks is selected: a
			// --label-filter '!explore:model' run explores properties only.
			if e.selected(labelExploreModel) {
				modelled = e.driveModel(ctx)
				e.explored = modelled.line()
			}
			if e.selected(labelExploreProperties) {
				found = explore.Run(ctx, exploreHost{e}, explore.Config{Seed: e.cfg.Seed, Budget: e.cfg.Explore,
					Strict: e.cfg.Strict, Keep: e.cfg.Keep, SecondAccount: e.cfg.APIKey2 != "", Permanent: e.cfg.Spend.active()})
				e.explored += found.RunLine() + "\nanswers by operation and status:\n" + found.Answers()
			}
		})
		e.referenceModelSpecs(func() *modelPhase { return modelled })
		for _, p := range explore.Properties() {
			e.check(p.Behaviour, exploreClass(p), func(ctx SpecContext) {
				if found == nil {
					Skip("the explore phase is off (--explore 0)")
				}
				e.judgeProperty(found, p)
			}, Label(labelExploreProperties))
		}
	})
}

// exploreClass is a property's class: declared, with the clauses it names
// and those of the operations whose role it judges, and its refinements.
func exploreClass(p explore.Property) Class {
	cl := append([]string(nil), p.Clauses...)
	seen := map[string]bool{}
	for _, c := range cl {
		seen[c] = true
	}
	for _, op := range p.Operations {
		if c := opClause(op); c != "" && !seen[c] {
			seen[c] = true
			cl = append(cl, c)
		}
	}
	c := declared(cl...)
	c.Refines = p.Refines
	return c
}

// judgeProperty is the body of a property's check: its decided
// differences reported, its failure failing the check.
func (e *env) judgeProperty(found *explore.Result, p explore.Property) {
	AddReportEntry(entryExplore, found.RunLine(), ReportEntryVisibilityFailureOrVerbose)
	if p.ID == explore.PropIsolation && e.cfg.APIKey2 == "" {
		Skip("accounts apart needs a second account: run with --api-key-2")
	}
	if refused := found.Refused(); p.ID == explore.PropNo5xx && refused != "" {
		AddReportEntry("refused valid input", refused, ReportEntryVisibilityAlways)
	}
	o := found.Outcome(p.ID)
	if u := o.Unconfirmed; u != nil {
		AddReportEntry("unconfirmed (a replay did not reproduce it: not a failure)", u.Text, ReportEntryVisibilityAlways)
	}
	for _, d := range o.Differences {
		AddReportEntry(entryFindings, d.Findings, ReportEntryVisibilityNever)
		e.difference(d.X, "explored answers differ from "+d.Decision, d.Decision, d.Findings)
	}
	if o.Failure == nil {
		return
	}
	AddReportEntry("reproduce", o.Failure.X, ReportEntryVisibilityFailureOrVerbose)
	AddReportEntry(entryFindings, o.Failure.Findings, ReportEntryVisibilityNever)
	msg := o.Failure.Text
	if o.Failure.Decision != "" {
		msg = fmt.Sprintf("[decided %s, failing because of --strict]\n%s", o.Failure.Decision, msg)
	}
	Fail(msg)
}

// exploreHost is the suite as the explore phase's host: its client, the
// shared resources of the written checks, and its clean-up (which waits
// out a running evaluation and records what it cannot remove).
type exploreHost struct{ e *env }

func (h exploreHost) Client() *client.Client { return h.e.client }

func (h exploreHost) Shared() map[string]string {
	return map[string]string{"dataset_id": h.e.shared.dataset.id, "model_id": h.e.shared.model.id}
}

func (h exploreHost) Remove(ctx context.Context, path string) { h.e.remove(ctx, path, client.AuthKey) }

// Affords implements explore.Budgeted: a costly operation is drawn only
// while the run's budget has one more of its kind.
func (h exploreHost) Affords(op spec.Operation) bool {
	return op.Cost == nil || h.e.spend.ledger.Available(op.Cost.Kind)
}
