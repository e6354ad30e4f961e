package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/exchange"
	"contractkit/judge"
)

// Judging one explored exchange by the properties every answer must keep,
// whatever the operation: no 5xx, invalid input refused, a refusal where the
// model expects one, and the answer documented by the contract.

// exploreStreamRead bounds the reading of one explored stream.
const exploreStreamRead = 300 * time.Millisecond

// judge judges x, the answer to a request planned as p (its event stream
// read as s, cut at the phase's bound), by the one judge's verdict mapped
// onto the properties, and by what the plan expects; it returns the data
// of a success.
func (c *exploreCase) judge(op *exploreOp, x *exchange.Exchange, p plan, s *judge.Stream, cut bool) judge.J {
	body, _ := judge.ParseJSON(x.Raw)
	data := body.Get("data")
	if (x.Status == 0 || x.Error != "" && s == nil) && (c.x.over() || timedOut(x)) {
		// Cut by the phase's own deadline, or by the client's wait: a busy
		// machine is not a broken server. No verdict.
		return data
	}
	// The one judge's verdict, taken when the client read the answer (as
	// read: s, cut); claimed here, so the run does not report it twice.
	fs := c.x.host.Client().Verdict(x)
	server := fs.Side(judge.Server)
	invalid := fs.Has(judge.Client, judge.Declared)
	switch served := server.Rule(judge.RuleServedInvalid); {
	case x.Status == 0:
		c.x.violate(c, finding{prop: PropNo5xx, x: x, fs: server,
			what:   fmt.Sprintf("%s: no answer", op.ID),
			detail: "the request got no answer: " + x.Error})
		return data
	case x.Status >= 500:
		prop, what := PropNo5xx, "a 5xx to an accepted request"
		if invalid || p.invalid != "" {
			prop, what = PropInvalid, "a 5xx to an invalid request"
		}
		c.x.violate(c, finding{prop: prop, x: x, what: fmt.Sprintf("%s: %s", op.ID, what),
			detail: fmt.Sprintf("answered %d%s", x.Status, planNote(p)),
			fs:     breaks(op.ID, judge.RuleStatus, judge.RuleStatus, "not a 5xx", strconv.Itoa(x.Status), "")})
	case len(served) > 0:
		c.x.violate(c, finding{prop: PropInvalid, x: x, fs: served,
			what: fmt.Sprintf("%s: an invalid request accepted", op.ID)})
	case p.refuse != "" && x.Status/100 == 2 && !p.mayRefuse:
		with := ""
		if s != nil {
			with = " with a stream"
		}
		c.x.violate(c, finding{prop: p.prop, x: x,
			what:   fmt.Sprintf("%s: served a request that %s", op.ID, stableRefusal(p.refuse)),
			detail: fmt.Sprintf("the request %s and was answered %d%s", p.refuse, x.Status, with),
			fs:     breaks(op.ID, judge.RuleStatus, "refused", "a refusal", strconv.Itoa(x.Status), p.decision)})
	case x.Status == http.StatusTooManyRequests:
		// Rate limited and not waited out (the phase's deadline came
		// first): no property is judged on it.
		c.x.limited++
	case x.Status/100 == 4 && p.refuse == "" && p.invalid == "" && !invalid && !p.mayRefuse && !p.foreign:
		c.x.refusedValid(op, x)
	}
	declared := server.Class(judge.Declared)
	envelope := append(declared.Rule(judge.RuleContentType), declared.Rule(judge.RuleEnvelope)...)
	if len(envelope) > 0 {
		what := "a success without the success envelope"
		if x.Status >= 400 {
			what = "a refusal without the error envelope"
		}
		c.x.violate(c, finding{prop: PropDocumented, x: x, fs: envelope, what: fmt.Sprintf("%s: %s", op.ID, what)})
	}
	if st := declared.Rule(judge.RuleStream); len(st) > 0 {
		c.x.violate(c, finding{prop: PropDocumented, x: x, fs: st,
			what: fmt.Sprintf("%s: a stream that breaks the seed's rules", op.ID)})
	}
	var undocumented judge.Findings
	for _, f := range declared {
		if f.Rule == judge.RuleSchema || f.Rule == judge.RuleContract || f.Rule == judge.RuleAnswer && x.Status != 0 {
			undocumented = append(undocumented, f)
		}
	}
	if len(undocumented) > 0 {
		c.x.violate(c, finding{prop: PropDocumented, x: x, fs: undocumented,
			what: fmt.Sprintf("%s: an answer the declared contract does not document", op.ID)})
	}
	decided := server.Class(judge.Decided)
	for _, id := range decided.Decisions() {
		name := id
		if name == "" {
			name = "the contract as written"
		}
		c.x.violate(c, finding{prop: PropDocumented, x: x, fs: decided.Decision(id),
			what: fmt.Sprintf("%s: an answer that differs from %s", op.ID, name)})
	}
	return data
}

// breaks is a break of the sequence's own expectations as a value: op is the
// operation it concerns, pointer where the answer shows it, rule what it
// breaks; decision is "" when the seed states the rule.
func breaks(op, pointer, rule, expected, got, decision string) judge.Findings {
	f := judge.Finding{Operation: op, Pointer: pointer, Rule: rule, Expected: expected, Got: got, Decision: decision}
	if decision != "" {
		f.Class = judge.Decided
	}
	return judge.Findings{f}
}

// opOf is the operation of ex's request, "" outside the contract.
func (x *explorer) opOf(ex *exchange.Exchange) string {
	op, _, _ := x.judge.Operation(ex.Method, ex.Path)
	return op
}

// timedOut reports whether x got no whole answer because the client
// stopped waiting.
func timedOut(x *exchange.Exchange) bool {
	return strings.Contains(x.Error, "deadline exceeded") || strings.Contains(x.Error, "Client.Timeout")
}

// stableRefusal keeps a failure's text free of ids.
func stableRefusal(why string) string {
	for _, w := range []string{"names a deleted", "names an unknown", "acts on a deleted", "acts on an id no", "acts as another account", "names the other account"} {
		if strings.HasPrefix(why, w) {
			return w
		}
	}
	return why
}

func planNote(p plan) string {
	if p.invalid != "" {
		return "; the request " + p.invalid
	}
	return ""
}

// breakBody returns body changed so that it breaks the declared request
// schema in one place, and says how; what is "" when no change the
// declared view refuses was found. Every candidate is checked by the
// contract's own request validator, so only a request the seed's rules
// refuse is ever called invalid.
func (x *explorer) breakBody(g gen, op *exploreOp, body map[string]any) (map[string]any, string) {
	s := op.declBody
	type change struct {
		what  string
		apply func(map[string]any)
	}
	var changes []change
	for _, name := range s.Required {
		changes = append(changes, change{"lacks the required " + name, func(b map[string]any) { delete(b, name) }})
	}
	for _, name := range sortedProperties(s) {
		p := flatten(s.Properties[name].Value)
		if addition(p.Extensions) {
			continue
		}
		if wrong := wrongType(p); wrong != nil {
			changes = append(changes, change{fmt.Sprintf("has %s of the wrong type (%s)", name, show(wrong)), func(b map[string]any) { b[name] = wrong }})
		}
		if len(p.Enum) > 0 && p.Type.Is("string") {
			changes = append(changes, change{name + " outside its values", func(b map[string]any) { b[name] = "not-one-of-the-values" }})
		}
		if p.Max != nil {
			over := *p.Max + 1
			changes = append(changes, change{fmt.Sprintf("has %s above its maximum (%v)", name, over), func(b map[string]any) { b[name] = over }})
		}
	}
	for len(changes) > 0 {
		i := g.pick(len(changes), "break")
		ch := changes[i]
		changes = append(changes[:i], changes[i+1:]...)
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		ch.apply(b)
		if x.declaredInvalid(op, b) {
			return b, ch.what
		}
	}
	return nil, ""
}

// wrongType is a value of another type than s, one no lenient server
// coerces (an object for a scalar, text for a number). A change is kept
// only when the one judge calls it the client's fault (declaredInvalid),
// so what the contract's readings read (x-lenient, D-21) is never planned
// as invalid.
func wrongType(s *openapi3.Schema) any {
	switch {
	case s.Type.Is("string"), s.Type.Is("boolean"):
		return map[string]any{"unexpected": "object"}
	case s.Type.Is("integer"), s.Type.Is("number"):
		return "not-a-number"
	case s.Type.Is("array"):
		return "not-an-array"
	case s.Type.Is("object"):
		return []any{"not", "an", "object"}
	}
	return nil
}

// declaredInvalid reports whether the one judge calls a request of op
// with body the client's fault in its body (a Declared finding of the
// client's there): a change the contract's lenient readings read (a string
// "7" for model_id on a conversation, D-21) is not, so the phase never
// plans as invalid a value a lenient server may read.
func (ex *explorer) declaredInvalid(op *exploreOp, body map[string]any) bool {
	b, err := json.Marshal(body)
	if err != nil {
		return false
	}
	x := &exchange.Exchange{Method: strings.ToUpper(op.Method), Path: pathParam.ReplaceAllString(op.Path, "1"),
		RequestHeader: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer <explore>"}}, Sent: b}
	for _, f := range ex.judge.Request(op.ID, x).Class(judge.Declared) {
		if strings.HasPrefix(f.Pointer, "/") {
			return true
		}
	}
	return false
}

// bodyRequest is op with a JSON body, for the contract's request checks
// (every path parameter set to 1: only the body is judged).
func bodyRequest(op *exploreOp, body map[string]any) (*http.Request, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(strings.ToUpper(op.Method), "http://contract.invalid"+pathParam.ReplaceAllString(op.Path, "1"), bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// pathParam is a path template's parameter.
var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// readAllBounded reads an answer that is not a stream, at most 1 MiB.
func readAllBounded(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 1<<20))
}
