package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/pb33f/libopenapi-validator/helpers"

	"contractkit/conformance/exchange"
	"contractkit/spec"
)

// Judging one explored exchange by the properties every answer must keep,
// whatever the operation: no 5xx, invalid input refused, a refusal where the
// model expects one, and the answer documented by the contract.

// exploreStreamRead bounds the reading of one explored stream.
const exploreStreamRead = 300 * time.Millisecond

// judge judges x, the answer to a request planned as p, and returns the
// data of a success.
func (c *exploreCase) judge(op *exploreOp, x *exchange.Exchange, p plan) J {
	body, _ := ParseJSON(x.Raw)
	data := body.Get("data")
	switch {
	case x.Status == 0 && (c.x.over() || timedOut(x)):
		// Cut by the phase's own deadline, or by the client's wait: a busy
		// machine is not a broken server. No verdict.
		return data
	case x.Status == 0:
		c.x.violate(c, finding{prop: propNo5xx, x: x,
			what:   fmt.Sprintf("%s: no answer", op.ID),
			detail: "the request got no answer: " + x.Error})
		return data
	case x.Status >= 500:
		prop, what := propNo5xx, "a 5xx to an accepted request"
		if p.invalid != "" {
			prop, what = propInvalid, "a 5xx to an invalid request"
		}
		c.x.violate(c, finding{prop: prop, x: x, what: fmt.Sprintf("%s: %s", op.ID, what),
			detail: fmt.Sprintf("answered %d%s", x.Status, planNote(p))})
	case p.invalid != "" && x.Status/100 == 2:
		c.x.violate(c, finding{prop: propInvalid, x: x,
			what:   fmt.Sprintf("%s: an invalid request accepted", op.ID),
			detail: fmt.Sprintf("the request %s (declared request schema) and was answered %d", p.invalid, x.Status)})
	case p.refuse != "" && x.Status/100 == 2 && !p.mayRefuse:
		c.x.violate(c, finding{prop: p.prop, decision: p.decision, x: x,
			what:   fmt.Sprintf("%s: served a request that %s", op.ID, stableRefusal(p.refuse)),
			detail: fmt.Sprintf("the request %s and was answered %d", p.refuse, x.Status)})
	case x.Status/100 == 4 && p.refuse == "" && p.invalid == "" && !p.mayRefuse && !p.foreign:
		c.x.refusedValid(op, x)
	}
	if x.Status >= 400 {
		if prob := append(JSONContentTypeProblems(x.ResponseHeader), EnvelopeProblems(x.Raw, "error")...); len(prob) > 0 {
			c.x.violate(c, finding{prop: propDocumented, x: x,
				what:   fmt.Sprintf("%s: a refusal without the error envelope", op.ID),
				detail: strings.Join(prob, "; ")})
		}
	} else if x.Status/100 == 2 {
		if prob := append(JSONContentTypeProblems(x.ResponseHeader), EnvelopeProblems(x.Raw, "success")...); len(prob) > 0 {
			c.x.violate(c, finding{prop: propDocumented, x: x,
				what:   fmt.Sprintf("%s: a success without the success envelope", op.ID),
				detail: strings.Join(prob, "; ")})
		}
	}
	decl, dec := contract(x)
	if len(decl) > 0 {
		c.x.violate(c, finding{prop: propDocumented, x: x,
			what:   fmt.Sprintf("%s: an answer the declared contract does not document", op.ID),
			detail: strings.Join(decl, "; ")})
	}
	for _, id := range slices.Sorted(maps.Keys(dec)) {
		c.x.violate(c, finding{prop: propDocumented, decision: id, x: x,
			what:   fmt.Sprintf("%s: an answer that differs from %s", op.ID, id),
			detail: strings.Join(dec[id], "; ")})
	}
	return data
}

// timedOut reports whether x got no answer because the client stopped
// waiting.
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

// judgeStream judges an event stream read for a bounded time: a 200 event
// stream whose events carry JSON; read to its end, it ends with [DONE].
func (c *exploreCase) judgeStream(op *exploreOp, x *exchange.Exchange, s *Stream, p plan) {
	if p.refuse != "" && !p.mayRefuse {
		c.x.violate(c, finding{prop: p.prop, decision: p.decision, x: x,
			what:   fmt.Sprintf("%s: served a request that %s", op.ID, stableRefusal(p.refuse)),
			detail: fmt.Sprintf("the request %s and was answered %d with a stream", p.refuse, x.Status)})
	}
	var prob []string
	for _, d := range s.NotJSON {
		prob = append(prob, fmt.Sprintf("event data is not JSON: %q", shorten(d, 120)))
	}
	if s.Err == nil {
		prob = s.Problems()
	}
	if len(prob) > 0 {
		c.x.violate(c, finding{prop: propDocumented, x: x,
			what:   fmt.Sprintf("%s: a stream that breaks the seed's rules", op.ID),
			detail: strings.Join(prob, "; ")})
	}
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
		if declaredInvalid(op, b) {
			return b, ch.what
		}
	}
	return nil, ""
}

// wrongType is a value of another type than s, one no lenient server
// coerces (an object for a scalar, text for a number): "7" for an integer
// is left out, since a server may read it as the number (D-21).
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

// declaredInvalid reports whether the declared view refuses op with body.
func declaredInvalid(op *exploreOp, body map[string]any) bool {
	req, err := bodyRequest(op, body)
	check := spec.Declared().Request(op.ID)
	if err != nil || check == nil {
		return false
	}
	_, errs := check.Validate(req)
	for _, e := range errs {
		if e.ValidationType == helpers.RequestBodyValidation {
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
