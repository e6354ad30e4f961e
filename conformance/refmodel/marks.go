package refmodel

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"contractkit/judge"
)

// mark is one x-predict mark: the rule that predicts a property, its
// parameters and what it rests on.
type mark struct {
	rule string
	// seed is the reference's clause the prediction rests on ("4.1"),
	// decision the DECISIONS.md row ("D-34"). A rule whose checks rest on
	// different grounds uses each where it says so.
	seed, decision string
	reason         string
	params         map[string]any
	// ptr is where the mark stands in the document.
	ptr string
}

// markKeys are the keys every mark may carry besides its rule's parameters.
var markKeys = []string{"rule", "seed", "decision", "reason"}

var (
	decisionRow = regexp.MustCompile(`^D-[0-9]{2}$`)
	seedClause  = regexp.MustCompile(`^[1-9](\.[0-9]{1,2}){0,2}$`)
)

// readMark reads the x-predict extension of a schema, nil when it has none.
func readMark(ext map[string]any, ptr string) (*mark, error) {
	raw, ok := ext["x-predict"]
	if !ok {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("x-predict is not a mapping")
	}
	out := &mark{params: m, ptr: ptr}
	out.rule, _ = m["rule"].(string)
	out.seed, _ = m["seed"].(string)
	out.decision, _ = m["decision"].(string)
	out.reason, _ = m["reason"].(string)
	return out, nil
}

// problems lists what is wrong with the mark: an unknown rule, a missing
// or unknown parameter, a basis that is neither a clause nor a row.
func (m *mark) problems() []string {
	spec, ok := rules[m.rule]
	if !ok {
		return []string{fmt.Sprintf("x-predict names rule %q, which the model does not implement", m.rule)}
	}
	var out []string
	for _, k := range spec.need {
		if _, ok := m.params[k]; !ok {
			out = append(out, fmt.Sprintf("rule %s needs %q", m.rule, k))
		}
	}
	keys := make([]string, 0, len(m.params))
	for k := range m.params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(markKeys, k) && !slices.Contains(spec.need, k) && !slices.Contains(spec.may, k) {
			out = append(out, fmt.Sprintf("rule %s takes no %q", m.rule, k))
		}
	}
	if spec.reason && strings.TrimSpace(m.reason) == "" {
		out = append(out, fmt.Sprintf("rule %s needs a reason", m.rule))
	}
	if !spec.reason && m.seed == "" && m.decision == "" {
		out = append(out, fmt.Sprintf("rule %s rests on nothing: give a seed clause or a decision row", m.rule))
	}
	if m.seed != "" && !seedClause.MatchString(m.seed) {
		out = append(out, fmt.Sprintf("seed %q is not a clause of the reference", m.seed))
	}
	if m.decision != "" && !decisionRow.MatchString(m.decision) {
		out = append(out, fmt.Sprintf("decision %q is not a row of DECISIONS.md", m.decision))
	}
	return out
}

// str is a string parameter, "" when absent.
func (m *mark) str(key string) string {
	s, _ := m.params[key].(string)
	return s
}

// list is a list parameter of strings.
func (m *mark) list(key string) []string { return stringList(m.params[key]) }

func stringList(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// basis is what a check rests on: a clause (declared) or a row (decided).
type basis struct {
	clause, decision string
}

// class is what a finding on this basis weighs.
func (b basis) class() judge.Class {
	if b.decision != "" {
		return judge.Decided
	}
	return judge.Declared
}

// weaker returns the weaker of two bases: a check that needs both rests
// on the decision.
func (b basis) weaker(o basis) basis {
	if b.decision != "" || o.decision == "" {
		return b
	}
	return o
}

// onSeed is the mark's basis for a check the reference states, the
// decision when the mark names no clause.
func (m *mark) onSeed() basis {
	if m.seed != "" {
		return basis{clause: m.seed}
	}
	return basis{decision: m.decision}
}

// onDecision is the mark's basis for what it decides, the clause when it
// names no decision.
func (m *mark) onDecision() basis {
	if m.decision != "" {
		return basis{decision: m.decision}
	}
	return basis{clause: m.seed}
}

// effect is one entry of an operation's x-effect mark, or of a request's
// x-refuse mark: a Go-implemented rule placed by the contract.
type effect struct {
	rule   string
	params map[string]any
	ptr    string
}

func (e effect) str(key string) string {
	s, _ := e.params[key].(string)
	return s
}

func (e effect) list(key string) []string { return stringList(e.params[key]) }

// basis is what the effect rests on.
func (e effect) basis() basis {
	seed, _ := e.params["seed"].(string)
	decision, _ := e.params["decision"].(string)
	if seed != "" {
		return basis{clause: seed}
	}
	return basis{decision: decision}
}

// refusal is the status and decision an x-effect entry refuses with
// (`refuse: {status, decision}`), or an x-refuse entry's.
func (e effect) refusal() (status int, decision string) {
	m, ok := e.params["refuse"].(map[string]any)
	if !ok {
		m = e.params
	}
	switch n := m["status"].(type) {
	case int:
		status = n
	case float64:
		status = int(n)
	}
	decision, _ = m["decision"].(string)
	return status, decision
}

// readEffects reads an x-effect or x-refuse extension: one mapping or a
// list of them.
func readEffects(ext map[string]any, key, ptr string) []effect {
	var out []effect
	add := func(v any) {
		if m, ok := v.(map[string]any); ok {
			rule, _ := m["rule"].(string)
			out = append(out, effect{rule: rule, params: m, ptr: ptr})
		}
	}
	switch v := ext[key].(type) {
	case []any:
		for _, x := range v {
			add(x)
		}
	case map[string]any:
		add(v)
	}
	return out
}
