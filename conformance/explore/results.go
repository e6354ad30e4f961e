package explore

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// What the phase found, for the suite's Explore area to report: one
// outcome per property (its decided differences and its first declared
// break with the minimal sequence that shows it), how the phase ran, and
// the answers it had.

// Property is one property the phase judges: a check of the Explore area.
type Property struct {
	// ID names it ("no-5xx"); Behaviour is its check's sentence.
	ID, Behaviour string
	// Clauses are the seed clauses it tests; Operations those whose role
	// it judges (their clauses are its too).
	Clauses, Operations []string
	// Refines are the decisions of its decided refinements.
	Refines []string
}

// Properties lists the phase's properties in report order.
func Properties() []Property {
	cat := newCatalog(spec.Strict(), spec.Declared())
	out := make([]Property, 0, len(properties))
	for _, p := range properties {
		q := Property{ID: p.id, Behaviour: p.behaviour, Clauses: p.clauses}
		for _, op := range cat.ops {
			if slices.Contains(p.roles, op.role) {
				q.Operations = append(q.Operations, op.ID)
			}
		}
		switch p.id {
		case PropGone, PropIsolation:
			q.Refines = []string{"D-17"}
		case PropStates:
			q.Refines = []string{"D-12"}
		}
		out = append(out, q)
	}
	return out
}

// Result is what one run of the phase found.
type Result struct{ x *explorer }

// Requests counts the requests the phase sent, shrinking included.
func (r *Result) Requests() int { return r.x.requests }

// RunLine says how the phase ran and how to replay it.
func (r *Result) RunLine() string { return r.x.runLine() }

// Answers is what the phase sent, operation by operation: how many
// answers of each status.
func (r *Result) Answers() string { return r.x.answersText() }

// Refused lists the valid requests the server refused ("" when none): no
// failure (a server may have limits the seed does not show), but worth
// knowing.
func (r *Result) Refused() string {
	if len(r.x.refused) == 0 {
		return ""
	}
	return r.x.refusedText()
}

// Difference is a decided rule explored answers differ from: a few of its
// breaks.
type Difference struct {
	Decision string
	// Lines say what broke, one a break.
	Lines []string
	// Findings are the breaks as values.
	Findings judge.Findings
	// X is the first answer that shows it.
	X *exchange.Exchange
}

// Failure is a property's first fatal break: declared, or decided under
// Config.Strict (Decision), with its minimal sequence.
type Failure struct {
	Decision string
	// Text says what broke, the sequence that shows it (a curl line a
	// step), further breaks and the seed that replays it.
	Text     string
	Findings judge.Findings
	X        *exchange.Exchange
}

// Outcome is what the phase found of one property.
type Outcome struct {
	Differences []Difference
	// Failure is nil when the property held.
	Failure *Failure
	// Unconfirmed is a break of the property's own inference (what was
	// stored, listed, gone, refused) that the replay did not reproduce: a
	// state the server moved on its own, a limit it applied once. It is
	// reported, never a failure. A break of the contract an answer shows
	// (the envelope, the schema, a served invalid request) is never
	// unconfirmed: the answer itself shows it; nor is one whose replay
	// met other answers than the original before reaching it (a unique
	// name the first run took): that replay could not test it.
	Unconfirmed *Failure
}

// Outcome is what the phase found of property id.
func (r *Result) Outcome(id string) Outcome {
	o := r.x.outcomes[id]
	var out Outcome
	if o == nil {
		return out
	}
	for _, d := range slices.Sorted(maps.Keys(o.decided)) {
		fs := o.decided[d]
		diff := Difference{Decision: d, X: fs[0].x}
		for _, f := range fs {
			diff.Lines = append(diff.Lines, f.what+": "+f.explain())
			diff.Findings = append(diff.Findings, f.fs...)
		}
		out.Differences = append(out.Differences, diff)
	}
	if f := o.failure; f != nil {
		fail := &Failure{Decision: f.decision(), Text: r.x.failureText(o), Findings: f.fs, X: f.x}
		if f.reproduced || f.diverged || f.shown() {
			out.Failure = fail
		} else {
			out.Unconfirmed = fail
		}
	}
	return out
}

// runLine says how the phase ran and how to replay it.
func (x *explorer) runLine() string {
	s := fmt.Sprintf("explore: seed %d, %d of %d requests spent exploring (%d shrinking), %d sequences; replay with --seed %d",
		x.seed, x.spent, x.budget, x.shrinkSpent, x.cases, x.seed)
	if x.limited > 0 {
		s += fmt.Sprintf("; %d answer(s) rate-limited past the client's waits left unjudged", x.limited)
	}
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
