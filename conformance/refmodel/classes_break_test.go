package refmodel_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"contractkit/conformance/refmodel"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/spec"
)

// How one fact is broken alone in one recorded answer: a value of another
// type, a null, a value outside its enum, a date that is none, a member
// dropped, another 2xx, another refusal status, another default.

// modelFact reports whether a fact is one only the model can judge: it
// holds of the answer given the calls before it (a default the create left
// out, the status of a refusal the request called for).
func modelFact(f spec.Fact) bool {
	switch f.Kind {
	case spec.FactDefault, spec.FactRefusalStatus, spec.FactGone, spec.FactStateRefusal:
		return true
	}
	return false
}

// firstInstance finds the first recorded answer, of any of facts' operations
// (one place shown by several), where the fact stands and can be broken.
func firstInstance(run []recorded, facts []spec.Fact) (spec.Fact, instance, bool) {
	for i, ev := range run {
		if ev.advance || ev.x == nil || ev.answer.Stream != nil {
			continue
		}
		for _, f := range facts {
			if ev.call.Op != f.Op || !statusFits(f, ev.answer.Status) {
				continue
			}
			if f.Kind == spec.FactGone && deletedBefore(run[:i], ev.call, f.Want.(string)) < 0 {
				continue
			}
			if ptr, ok := standsAt(ev, f); ok {
				return f, instance{step: i, ptr: ptr}, true
			}
		}
	}
	return spec.Fact{}, instance{}, false
}

func statusFits(f spec.Fact, status int) bool {
	switch f.Kind {
	case spec.FactSuccessStatus:
		return status == f.Want
	case spec.FactGone:
		return status/100 == 4 && status != 401 && status != 429
	}
	return status == f.Status
}

// deletedBefore is the step of run where the delete op removed what c
// names in its path (every path parameter of the delete the same), -1 when
// none did.
func deletedBefore(run []recorded, c refmodel.Call, del string) int {
	for i := len(run) - 1; i >= 0; i-- {
		ev := run[i]
		if ev.advance || ev.call.Op != del || ev.answer.Status/100 != 2 || len(ev.call.Path) == 0 {
			continue
		}
		same := true
		for k, v := range ev.call.Path {
			same = same && c.Path[k] == v
		}
		if same {
			return i
		}
	}
	return -1
}

// servedBody is the body a success of c's operation had: the latest for
// the same path before step, else any the run holds.
func servedBody(run []recorded, step int) any {
	c := run[step].call
	var any0 any
	for i, ev := range run {
		if ev.advance || ev.call.Op != c.Op || ev.answer.Status/100 != 2 || ev.answer.Body == nil {
			continue
		}
		if i < step && fmt.Sprint(ev.call.Path) == fmt.Sprint(c.Path) {
			any0 = ev.answer.Body
		} else if any0 == nil {
			any0 = ev.answer.Body
		}
	}
	return any0
}

// standsAt is the concrete pointer of an answer where f stands, ok false
// when the answer does not show it (an optional member left out, a null).
func standsAt(ev recorded, f spec.Fact) (string, bool) {
	switch f.Kind {
	case spec.FactSuccessStatus, spec.FactRefusalStatus, spec.FactGone, spec.FactStateRefusal:
		return "status", true
	case spec.FactDefault:
		if sentField(ev.call, f.Field) {
			return "", false
		}
		data, ok := ev.answer.Body.(map[string]any)["data"].(map[string]any)
		return f.Pointer, ok && data != nil
	}
	var found string
	walkPattern(ev.answer.Body, strings.Split(strings.TrimPrefix(f.Pointer, "/"), "/"), "", func(ptr string, _ any, present bool) bool {
		// A member present, null or not: a value of another type, outside
		// the enum or no date breaks the fact wherever the member may be
		// null. An empty array's first slot takes an item that breaks it;
		// a required member needs its object.
		if present || f.Kind != spec.FactRequired {
			found = ptr
			return true
		}
		return false
	})
	if f.Pointer == "" {
		return "", ev.answer.Body != nil
	}
	return found, found != ""
}

// walkPattern calls fn on each place of v that segs (with "*" for any
// item) reaches, with the value there and whether it is present, until fn
// returns true. An empty array's items are reached at its first slot, not
// present.
func walkPattern(v any, segs []string, ptr string, fn func(ptr string, v any, present bool) bool) bool {
	if len(segs) == 0 || len(segs) == 1 && segs[0] == "" {
		return fn(ptr, v, true)
	}
	seg := strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[0])
	switch t := v.(type) {
	case map[string]any:
		child, ok := t[seg]
		if !ok || seg == "*" {
			return false
		}
		return walkPattern(child, segs[1:], ptr+"/"+segs[0], fn)
	case []any:
		if seg != "*" {
			return false
		}
		if len(t) == 0 && len(segs) == 1 {
			return fn(ptr+"/0", nil, false)
		}
		for i, item := range t {
			if walkPattern(item, segs[1:], ptr+"/"+strconv.Itoa(i), fn) {
				return true
			}
		}
	}
	return false
}

// sentField reports whether a call sent a request field (a JSON body's
// member or a form field).
func sentField(c refmodel.Call, name string) bool {
	if b, ok := c.Body.(map[string]any); ok {
		if _, sent := b[name]; sent {
			return true
		}
	}
	return c.Form != nil && len(c.Form.Fields[name]) > 0
}

// breakFact returns the recorded answer with f broken at ptr, as the model
// reads it and as the judge does.
func breakFact(run []recorded, step int, f spec.Fact, ptr string, types map[string]string) (refmodel.Answer, *exchange.Exchange) {
	ev := run[step]
	a, x := ev.answer, *ev.x
	body := cloneJSON(a.Body)
	switch f.Kind {
	case spec.FactGone, spec.FactStateRefusal:
		// Served as if the refusal were not due.
		a.Status, x.Status = 200, 200
		body = cloneJSON(servedBody(run, step))
	case spec.FactSuccessStatus:
		a.Status, x.Status = 202, 202
		return a, &x
	case spec.FactRefusalStatus:
		a.Status, x.Status = 403, 403
		return a, &x
	case spec.FactDefault:
		body = setAt(body, ptr, otherDefault(f.Want, types[fmt.Sprintf("%s %d %s", f.Op, f.Status, f.Pointer)]))
	case spec.FactType:
		body = setAt(body, ptr, otherType(f.Want.(string)))
	case spec.FactNonNull:
		body = setAt(body, ptr, nil)
	case spec.FactEnum:
		body = setAt(body, ptr, outsideEnum(f.Want.([]any)))
	case spec.FactDateTime:
		body = setAt(body, ptr, "the day after tomorrow")
	case spec.FactRequired:
		body = setAt(body, ptr, dropped{})
	}
	raw, _ := json.Marshal(body)
	x.Raw = raw
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	a.Body = nil
	_ = dec.Decode(&a.Body)
	return a, &x
}

// dropped, set at a pointer, removes the member.
type dropped struct{}

// setAt sets the value at a concrete pointer ("" the whole body).
func setAt(body any, ptr string, v any) any {
	if ptr == "" {
		if _, drop := v.(dropped); drop {
			return nil
		}
		return v
	}
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := body
	for i, seg := range segs {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		last := i == len(segs)-1
		switch t := cur.(type) {
		case map[string]any:
			if last {
				if _, drop := v.(dropped); drop {
					delete(t, seg)
				} else {
					t[seg] = v
				}
				return body
			}
			cur = t[seg]
		case []any:
			n, _ := strconv.Atoi(seg)
			if last && n == len(t) {
				// An empty array's first slot: the broken item is its one
				// item (the parent holds the slice).
				return setAt(body, "/"+strings.Join(segs[:i], "/"), append(t, v))
			}
			if last {
				t[n] = v
				return body
			}
			cur = t[n]
		}
	}
	return body
}

// otherType is a value of a JSON type other than want.
func otherType(want string) any {
	switch want {
	case "string":
		return json.Number("42")
	case "array":
		return map[string]any{}
	case "object":
		return []any{}
	}
	return "not a " + want
}

// outsideEnum is a value of the enum's type that it does not list.
func outsideEnum(enum []any) any {
	for _, v := range enum {
		if _, ok := v.(string); ok {
			return "not-one-of-them"
		}
	}
	return json.Number("987654321")
}

// otherDefault is a value of the field's declared type other than want.
func otherDefault(want any, typ string) any {
	switch typ {
	case "integer", "number":
		if n, ok := want.(int); ok {
			return json.Number(strconv.Itoa(n + 1))
		}
		return json.Number("0")
	case "boolean":
		return want != true
	}
	if s, ok := want.(string); ok {
		return s + "x"
	}
	return "" // a string field whose default is null: the empty string
}

// cloneJSON copies a decoded JSON value.
func cloneJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}

// replay feeds a fresh model the run up to step and the broken answer at
// it, and returns what it finds there (timing findings included: against a
// real server a replay would confirm them).
func replay(run []recorded, step int, broken refmodel.Answer) judge.Findings {
	m := refmodel.New(refmodel.Config{Frozen: true})
	for _, ev := range run[:step] {
		if ev.advance {
			m.Advance()
			continue
		}
		m.Observe(ev.call, ev.answer)
	}
	v := m.Observe(run[step].call, broken)
	return append(judge.Findings(v.Findings), v.Timing...)
}

// at keeps the findings at ptr.
func at(fs judge.Findings, ptr string) judge.Findings {
	var out judge.Findings
	for _, f := range fs {
		if f.Pointer == ptr {
			out = append(out, f)
		}
	}
	return out
}

// declaredAt reports whether a server finding at ptr is declared.
func declaredAt(fs judge.Findings, ptr string) bool {
	return at(fs, ptr).Has(judge.Server, judge.Declared)
}
