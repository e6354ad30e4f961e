package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"contractkit/spec"
)

// The judges every check uses on a response. Each reports all its problems
// at once; declared problems fail the check, decided ones go through
// env.decided with the decision that shaped the rule.

// do sends r and records the exchange.
func (e *env) do(ctx context.Context, r Request) *Exchange {
	GinkgoHelper()
	return e.client.Do(ctx, r)
}

// contract splits the response's mismatches with the contract into declared
// ones (against spec.Declared(), undocumented status codes excepted) and
// decided ones by decision id (against spec.Strict(), and undocumented
// status codes, D-17).
func contract(x *Exchange) (declaredLines []string, decidedLines map[string][]string) {
	decl := ContractMismatches(spec.Declared(), x)
	strict := ContractMismatches(spec.Strict(), x)
	inDecl := map[string]bool{}
	decidedLines = map[string][]string{}
	for _, m := range decl {
		inDecl[m.Text] = true
		if m.StatusCode {
			decidedLines["D-17"] = append(decidedLines["D-17"], m.Text)
			continue
		}
		declaredLines = append(declaredLines, m.Text)
	}
	for _, m := range strict {
		if inDecl[m.Text] {
			continue
		}
		id := m.Decision
		if id == "" {
			// Every relaxed keyword comes from an x-decision mark, so this
			// is a mark the walk did not reach (on a parameter, say).
			id = "the contract as written"
		}
		decidedLines[id] = append(decidedLines[id], m.Text)
	}
	return declaredLines, decidedLines
}

// judgeDecided reports the decided contract mismatches, one difference per
// decision.
func (e *env) judgeDecided(x *Exchange, lines map[string][]string) {
	GinkgoHelper()
	ids := make([]string, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		e.decided(id, func() {
			e.expectNone(x, "the response differs from the contract as written", lines[id])
		})
	}
}

// expectSuccess judges a success and returns its data. Declared: a 2xx
// status, an application/json body in envelope rule 1 (seed §1.1, §1.3)
// that matches the declared contract. Decided: the contract as written.
func (e *env) expectSuccess(x *Exchange) J {
	GinkgoHelper()
	var p []string
	switch {
	case x.Error != "":
		p = append(p, "no response: "+x.Error)
	case x.Status < 200 || x.Status > 299:
		p = append(p, fmt.Sprintf("status: %d, want 200", x.Status))
	}
	if x.Error == "" {
		p = append(p, JSONContentTypeProblems(x.ResponseHeader)...)
		p = append(p, EnvelopeProblems(x.raw, "success")...)
	}
	decl, dec := contract(x)
	p = append(p, decl...)
	e.expectNone(x, "not a conforming success", p)
	e.judgeDecided(x, dec)
	body, _ := ParseJSON(x.raw)
	return body.Get("data")
}

// refusal says how a request must be refused.
type refusal struct {
	// statuses are the declared codes; none means any 4xx.
	statuses []int
	// decision and exact, when set, are a decided refinement: the exact code.
	decision string
	exact    int
}

// expectError judges a refusal: the status, an application/json body in
// envelope rule 2 with a message (seed §1.2, §7), the declared contract;
// then the decided refinement and the contract as written.
func (e *env) expectError(x *Exchange, want refusal) {
	GinkgoHelper()
	p := StatusProblems(x, want.statuses...)
	if x.Error == "" {
		p = append(p, JSONContentTypeProblems(x.ResponseHeader)...)
		p = append(p, EnvelopeProblems(x.raw, "error")...)
	}
	decl, dec := contract(x)
	p = append(p, decl...)
	e.expectNone(x, "not refused with a conforming error", p)
	if want.exact != 0 {
		e.decided(want.decision, func() {
			e.expectNone(x, "refused with another status code", StatusProblems(x, want.exact))
		})
	}
	e.judgeDecided(x, dec)
}

// expectRefused: any 4xx with the error envelope is declared; the exact
// code is decision id's.
func (e *env) expectRefused(x *Exchange, id string, exact int) {
	GinkgoHelper()
	e.expectError(x, refusal{decision: id, exact: exact})
}

// expectNotFound: an unknown or foreign id is refused (declared), with 404
// (D-17).
func (e *env) expectNotFound(x *Exchange) {
	GinkgoHelper()
	e.expectRefused(x, "D-17", 404)
}

// expectInvalid: invalid input is refused with 400 or 422 and the envelope
// (the seed's codes for bad input, §7), and with 422 (D-17) for a schema
// or semantic violation.
func (e *env) expectInvalid(x *Exchange) {
	GinkgoHelper()
	e.expectError(x, refusal{statuses: []int{400, 422}, decision: "D-17", exact: 422})
}

// expectThat fails the check, showing x, when a condition on the content
// of a response does not hold; the message says what was expected.
func (e *env) expectThat(x *Exchange, ok bool, format string, args ...any) {
	GinkgoHelper()
	if !ok {
		e.expectNone(x, "unexpected content", []string{fmt.Sprintf(format, args...)})
	}
}

// idsOf returns the ids of the records in a list.
func idsOf(items []J) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Get("id").ID())
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// records finds the records of a list response whatever its shape: data
// itself when it is an array, else the first array among data's fields.
// The shape of the model list is not shown in the seed (D-01).
func records(data J) []J {
	if data.IsArray() {
		return data.Items()
	}
	m, _ := data.Value().(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := data.Get(k); v.IsArray() {
			return v.Items()
		}
	}
	return nil
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
