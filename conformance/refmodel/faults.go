package refmodel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Which status a request with several faults gets (x-fault-order, D-48):
// the fault first in the contract's order wins. A refusal of a missing or
// wrong key comes before anything (§5.3, the order's first entry, which
// Expect applies by refusing nothing else); the order of the others is
// decided, and a server that answers another of the faults' codes is a
// decided difference.

// The faults of x-fault-order the model's refusals answer.
const (
	faultKey       = "key"
	faultMedia     = "media-type"
	faultSize      = "size"
	faultSyntax    = "syntax"
	faultSchema    = "schema"
	faultRule      = "rule"
	faultReference = "reference"
	faultConflict  = "conflict"
)

// faultOrder is the contract's x-fault-order mark: each fault's place, and
// the decision the order rests on.
type faultOrder struct {
	rank     map[string]int
	decision string
}

// readFaultOrder reads the root mark.
func readFaultOrder(doc *openapi3.T) faultOrder {
	out := faultOrder{rank: map[string]int{}}
	m, _ := doc.Extensions["x-fault-order"].(map[string]any)
	out.decision, _ = m["decision"].(string)
	list, _ := m["order"].([]any)
	for i, raw := range list {
		if e, ok := raw.(map[string]any); ok {
			if f, ok := e["fault"].(string); ok {
				out.rank[f] = i
			}
		}
	}
	return out
}

// faultOf is the fault a refusal answers.
func (m *Model) faultOf(r reason) string {
	switch {
	case r.fault != "":
		return r.fault
	case r.rule == "auth":
		return faultKey
	case r.rule == "gone":
		return faultReference
	case r.rule == "state" || r.rule == "unique":
		return faultConflict
	case strings.HasPrefix(r.rule, "refuse:"):
		if r.reads {
			return faultConflict
		}
		return faultRule
	}
	return faultSchema
}

// rankOf is a fault's place in the order (after every named one when the
// order does not name it).
func (o faultOrder) rankOf(f string) int {
	if r, ok := o.rank[f]; ok {
		return r
	}
	return len(o.rank)
}

// precedence judges a refusal's code against the order: when the call
// must be refused for faults of different places, the code must be one
// the first of them (or a refusal that may come before it) calls for.
// It returns the finding, nil when the code keeps the order.
func (j *judging) precedence(code int) []string {
	x, o := j.x, j.m.cat.faults
	first := -1
	for _, r := range x.reasons {
		if r.Must && !r.Timing {
			if k := o.rankOf(j.m.faultOf(r)); first < 0 || k < first {
				first = k
			}
		}
	}
	if first < 0 {
		return nil
	}
	var want, faults []string
	ok := false
	for _, r := range x.reasons {
		k := o.rankOf(j.m.faultOf(r))
		if (r.Must && !r.Timing && k == first) || (!r.Must && k <= first) {
			if len(r.Codes) == 0 || slices.Contains(r.Codes, code) {
				ok = true
			}
		}
		if r.Must && !r.Timing && k == first {
			for _, c := range r.Codes {
				if s := fmt.Sprint(c); !slices.Contains(want, s) {
					want = append(want, s)
				}
			}
			if f := j.m.faultOf(r); !slices.Contains(faults, f) {
				faults = append(faults, f)
			}
		}
	}
	if ok {
		return nil
	}
	return []string{strings.Join(want, ", "), strings.Join(faults, ", ")}
}
