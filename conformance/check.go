package conformance

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// Every check is an It whose text is its behaviour sentence (RFC 2119
// words), labelled with its area (from its top-level container), the seed
// clauses it tests ("seed:3.1.1") and its class:
//
//   - declared: the rule is the seed's; a server that breaks it fails the run.
//   - decided: the rule is ours (a row of spec/DECISIONS.md, label "D-13");
//     a server that differs is reported "decided: differs" and fails the run
//     only with --strict.
//
// A declared check may also hold decided refinements (the exact status code
// where the seed only says "refused"); they run under env.decided with their
// decision id, and the check carries that id as a label too. How a
// decided failure becomes a note is judge.go's (env.decided).

// Class is the class, the seed clauses and the decisions of a check.
type Class struct {
	// Decision is the DECISIONS.md id of a decided check, "" when declared.
	Decision string
	// Clauses are seed clause ids ("3.1.1", "5.3"); see clauses.go.
	Clauses []string
	// Refines are the decision ids of decided refinements in a declared check.
	Refines []string
}

// declared classes a check whose rule the seed states. Arguments are seed
// clause ids, and "D-nn" ids of the decided refinements the check holds;
// an empty one (the clause of an operation that has none, opClause) adds
// nothing.
func declared(clausesAndRefinements ...string) Class {
	var c Class
	for _, s := range clausesAndRefinements {
		switch {
		case s == "":
		case strings.HasPrefix(s, "D-"):
			c.Refines = append(c.Refines, s)
		default:
			c.Clauses = append(c.Clauses, s)
		}
	}
	return c
}

// decidedBy classes a check whose rule is decision id; clauses are the seed
// clauses whose gap the decision fills.
func decidedBy(id string, clauses ...string) Class {
	return Class{Decision: id, Clauses: clauses}
}

// Labels returns the Ginkgo labels of the class.
func (c Class) Labels() Labels {
	var l Labels
	if c.Decision == "" {
		l = append(l, "declared")
	} else {
		l = append(l, "decided", c.Decision)
	}
	for _, cl := range c.Clauses {
		l = append(l, "seed:"+cl)
	}
	l = append(l, c.Refines...)
	return l
}

// check registers one conformance check.
func (e *env) check(behaviour string, c Class, body func(ctx SpecContext), decorators ...any) bool {
	if len(c.Clauses) == 0 {
		panic(fmt.Sprintf("conformance: check %q names no seed clause", behaviour))
	}
	// Offset(1): the spec's location is the area file that called check.
	labels := []string(c.Labels())
	for _, d := range decorators {
		if l, ok := d.(Labels); ok {
			labels = append(labels, l...)
		}
	}
	e.reg.registered(behaviour, labels)
	args := append([]any{c.Labels(), Offset(1)}, decorators...)
	args = append(args, func(ctx SpecContext) {
		// Registered first, so it runs last: what the check read and did
		// not judge itself is judged when everything else is done. In a
		// closure: sweep is a helper, and Ginkgo calls a method value
		// through reflect, so a failure in it was placed in reflect's
		// source; it is placed here.
		DeferCleanup(func() { e.sweep() })
		e.basis = basis{clauses: c.Clauses}
		if c.Decision == "" {
			body(ctx)
			return
		}
		e.decided(c.Decision, func() { body(ctx) })
	})
	return It(behaviour, args...)
}
