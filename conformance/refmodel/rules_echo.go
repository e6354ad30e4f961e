package refmodel

import "strings"

// ruleEcho: a field that shows a parameter of the request, as sent; and
// when the request left it out, its default (the decision's, or a clause
// of the reference's once the server echoes the parameter both ways).
func ruleEcho(c *cell) {
	x := c.j.x
	param := c.mk.str("param")
	if v, ok := x.call.value(x.op, param); ok {
		if s, blankText := v.(string); blankText && strings.TrimSpace(s) == "" && c.mk.str("unset") == "nonempty" {
			// A blank value is no value: the server may choose one (D-23).
			if got, ok := c.v.(string); !c.present || !ok || (got != s && got == "") {
				c.find("echo", show(v)+" as sent, or a value the server chose", c.got(), c.mk.onDecision())
			}
			return
		}
		k := c.j.m.cat.byParam[paramName(param)]
		if param == "path" {
			k = x.op.kind
		}
		if k != nil && c.present && k.canonical(idString(v)) == k.canonical(idString(c.v)) {
			return // an id echoed as the resource's own, not as it was spelt (D-20)
		}
		if !c.present || !same(c.v, v) {
			c.find("echo", show(v)+" as sent", c.got(), c.mk.onSeed())
		} else {
			c.j.m.learnEcho(x.op.id+" "+param, v)
		}
		return
	}
	switch c.mk.str("unset") {
	case "default":
		want := paramDefault(x.op, param)
		if c.present && c.v != nil && !same(c.v, want) {
			// The server echoes the parameter as sent, both ways: its
			// answer to a call without it says what it did by default.
			// Where the reference states the default (a soft delete,
			// §3.3), that answer breaks the clause.
			b := c.mk.onDecision()
			if clause := c.mk.str("default-seed"); clause != "" && len(c.j.m.echoed[x.op.id+" "+param]) >= 2 {
				b = basis{clause: clause}
			}
			c.find("echo", "absent or "+show(want)+" (the default)", c.got(), b)
		}
	case "nonempty":
		if s, ok := c.v.(string); !ok || s == "" {
			c.find("echo", "a value the server chose", c.got(), c.mk.onDecision())
		}
	case "any":
	default:
		if c.present && !blank(c.v) {
			c.find("echo", "absent (nothing was sent)", c.got(), c.mk.onDecision())
		}
	}
}

// learnEcho notes a value of a parameter the server echoed as sent; two
// values echoed (true and false) show it speaks the parameter.
func (m *Model) learnEcho(key string, v any) {
	if m.echoed[key] == nil {
		m.echoed[key] = map[string]bool{}
	}
	m.echoed[key][show(v)] = true
}
