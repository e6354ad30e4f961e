package judge

import (
	"slices"
)

// Rules, the stable names of what a finding breaks (Finding.Rule).
const (
	// RuleAnswer: an answer at all, and a whole one.
	RuleAnswer = "answer"
	// RuleStatus: the status code.
	RuleStatus = "status"
	// RuleContentType: the media type of a body.
	RuleContentType = "content-type"
	// RuleEnvelope: envelope rules 1 and 2 of seed §1.
	RuleEnvelope = "envelope"
	// RuleSchema: a body or parameter against a view of the contract.
	RuleSchema = "schema"
	// RuleContract: anything else the contract's validator says of an answer.
	RuleContract = "contract"
	// RuleServedInvalid: a success to a request the declared contract refuses.
	RuleServedInvalid = "served-invalid"
	// RuleAuth: the Authorization header of seed §5.
	RuleAuth = "auth"
	// RuleLenient: a request read by a reading the contract decides (x-lenient).
	RuleLenient = "lenient"
	// RuleStream: the event stream of seed §4.4.
	RuleStream = "stream"
	// RuleChunk: a streamed chunk against decision D-03.
	RuleChunk = "chunk"
	// RuleIncremental: the answer streamed as it is produced (D-26).
	RuleIncremental = "incremental"
	// RuleCheck: what a written check expects of an answer, its behaviour
	// sentence's rule (its clause, or its decision).
	RuleCheck = "check"
)

// Findings is what one judgement found, in the order found.
type Findings []Finding

// Side keeps the findings of one side.
func (fs Findings) Side(s Side) Findings {
	return fs.keep(func(f Finding) bool { return f.Side == s })
}

// Class keeps the findings of one class.
func (fs Findings) Class(c Class) Findings {
	return fs.keep(func(f Finding) bool { return f.Class == c })
}

// Decision keeps the findings resting on one decision ("" keeps those
// resting on none).
func (fs Findings) Decision(id string) Findings {
	return fs.keep(func(f Finding) bool { return f.Decision == id })
}

// Rule keeps the findings of one rule.
func (fs Findings) Rule(r string) Findings {
	return fs.keep(func(f Finding) bool { return f.Rule == r })
}

// Has reports whether a finding of side s and class c is among fs.
func (fs Findings) Has(s Side, c Class) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Side == s && f.Class == c })
}

// Decisions lists the distinct decisions of fs, sorted.
func (fs Findings) Decisions() []string {
	var ids []string
	for _, f := range fs {
		if !slices.Contains(ids, f.Decision) {
			ids = append(ids, f.Decision)
		}
	}
	slices.Sort(ids)
	return ids
}

// Lines renders every finding, one line each.
func (fs Findings) Lines() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

// For sets the operation of every finding that names none.
func (fs Findings) For(op string) Findings {
	for i := range fs {
		if fs[i].Operation == "" {
			fs[i].Operation = op
		}
	}
	return fs
}

func (fs Findings) keep(ok func(Finding) bool) Findings {
	var out Findings
	for _, f := range fs {
		if ok(f) {
			out = append(out, f)
		}
	}
	return out
}
