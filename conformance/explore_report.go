package conformance

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/spec"
)

// The Explore area: one check per property, judged from what the phase
// found. The phase runs once, in the area's BeforeAll, after every written
// check (the area is registered last).

// entryExplore names the report entry that says how the phase ran.
const entryExplore = "explore"

func (e *env) exploreSpecs() {
	// SpecPriority(-1): Ginkgo shuffles the areas, and this one must run
	// after every written check.
	Describe("Explore", Label("explore"), Ordered, ContinueOnFailure, SpecPriority(-1), func() {
		var x *explorer
		BeforeAll(func(ctx SpecContext) {
			if e.cfg.Explore <= 0 || e.client == nil {
				return
			}
			x = newExplorer(e, ctx)
			x.run()
			e.explored = x.runLine() + "\nanswers by operation and status:\n" + x.answersText()
		})
		for _, p := range properties {
			e.check(p.behaviour, exploreClass(p), func(ctx SpecContext) {
				if x == nil {
					Skip("the explore phase is off (--explore 0)")
				}
				x.judgeProperty(p)
			})
		}
	})
}

// exploreClass is a property's class: declared, with the clauses it
// names and those of the operations whose role it judges.
func exploreClass(p property) Class {
	cl := append([]string(nil), p.clauses...)
	seen := map[string]bool{}
	for _, c := range cl {
		seen[c] = true
	}
	if len(p.roles) > 0 {
		for _, op := range newCatalog(spec.Strict(), spec.Declared()).ops {
			if !slices.Contains(p.roles, op.role) {
				continue
			}
			if c := opClauses[op.ID]; c != "" && !seen[c] {
				seen[c] = true
				cl = append(cl, c)
			}
		}
	}
	c := declared(cl...)
	switch p.id {
	case propGone, propIsolation:
		c.Refines = []string{"D-17"}
	case propStates:
		c.Refines = []string{"D-12"}
	}
	return c
}

// judgeProperty is the body of a property's check.
func (x *explorer) judgeProperty(p property) {
	AddReportEntry(entryExplore, x.runLine(), ReportEntryVisibilityFailureOrVerbose)
	if p.id == propIsolation && x.e.cfg.APIKey2 == "" {
		Skip("accounts apart needs a second account: run with --api-key-2")
	}
	o := x.outcomes[p.id]
	if p.id == propNo5xx && len(x.refused) > 0 {
		AddReportEntry("refused valid input", x.refusedText(), ReportEntryVisibilityAlways)
	}
	for _, id := range slices.Sorted(maps.Keys(o.decided)) {
		fs := o.decided[id]
		x.e.decided(id, func() {
			var lines []string
			for _, f := range fs {
				lines = append(lines, f.what+": "+f.explain())
			}
			x.e.expectNone(fs[0].x, "explored answers differ from "+id, lines)
		})
	}
	if o.failure == nil {
		return
	}
	x.e.culprit = o.failure.x
	AddReportEntry("reproduce", o.failure.x, ReportEntryVisibilityFailureOrVerbose)
	msg := x.failureText(o)
	if d := o.failure.decision(); d != "" {
		msg = fmt.Sprintf("[decided %s, failing because of --strict]\n%s", d, msg)
	}
	Fail(msg)
}

// runLine says how the phase ran and how to replay it.
func (x *explorer) runLine() string {
	s := fmt.Sprintf("explore: seed %d, %d of %d requests spent exploring (%d shrinking), %d sequences; replay with --seed %d",
		x.seed, x.spent, x.budget, x.shrinkSpent, x.cases, x.seed)
	if x.stopped != "" {
		s += " (" + x.stopped + ")"
	}
	return s
}

// failureText renders a property's failure: what broke, the minimal
// sequence as one curl line per step, and the seed that replays it.
func (x *explorer) failureText(o *outcome) string {
	f := o.failure
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %s\n", f.what, f.explain())
	how := "the sequence that broke it"
	if f.shrunk {
		how = "minimal sequence (shrunk)"
	} else {
		how += " (it did not break the property again when replayed, so it was not shrunk)"
	}
	fmt.Fprintf(&b, "%s, %d step(s); `--seed %d` replays it against a fresh server:\n", how, len(f.steps), x.seed)
	for i, s := range f.steps {
		line := "(no request)"
		if len(s.xs) > 0 {
			line = s.xs[0].Curl
			if len(s.xs) > 1 {
				line = fmt.Sprintf("%s   # then %d read(s)", line, len(s.xs)-1)
			}
		}
		fmt.Fprintf(&b, "  %d. %s: %s\n", i+1, s.op, line)
	}
	fmt.Fprintf(&b, "the answer that shows it: %s\n  %s\n", f.x.Line(), f.x.Curl)
	if o.alsoN > 0 {
		fmt.Fprintf(&b, "and %d more break(s) of this property, for instance:\n", o.alsoN)
		for _, a := range o.also {
			fmt.Fprintf(&b, "  - %s: %s\n    %s\n", a.what, a.explain(), a.x.Curl)
		}
	}
	b.WriteString(x.runLine())
	return b.String()
}

// answersText is what the phase sent, operation by operation: how many
// answers of each status.
func (x *explorer) answersText() string {
	var b strings.Builder
	for _, op := range x.cat.ops {
		counts := x.answers[op.ID]
		if len(counts) == 0 {
			fmt.Fprintf(&b, "%-22s never sent\n", op.ID)
			continue
		}
		statuses := make([]int, 0, len(counts))
		for s := range counts {
			statuses = append(statuses, s)
		}
		sort.Ints(statuses)
		var parts []string
		for _, s := range statuses {
			parts = append(parts, fmt.Sprintf("%d×%d", counts[s], s))
		}
		fmt.Fprintf(&b, "%-22s %s\n", op.ID, strings.Join(parts, " "))
	}
	return b.String()
}

// refusedText lists the valid requests a server refused: no failure (a
// server may have limits the seed does not show), but worth knowing.
func (x *explorer) refusedText() string {
	keys := make([]string, 0, len(x.refused))
	for k := range x.refused {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("valid requests (under the declared contract) the server refused; not a failure: a server may have limits the reference does not show\n")
	for _, k := range keys {
		n := x.refused[k]
		fmt.Fprintf(&b, "  - %s, %d time(s), e.g. %s\n    %s\n", k, n.n, firstLine(n.x.ResponseBody), n.x.Curl)
	}
	return b.String()
}
