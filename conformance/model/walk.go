package model

import (
	"strconv"
	"strings"
)

// The walk: an answer's JSON beside its shape, each property judged by
// its mark's rule, with the record (or collection item) it belongs to.

// frame is where the walk stands: the record an object belongs to and the
// object's place in it.
type frame struct {
	rec  *record
	item *item
	// top is the record's own object in the answer (its state fields are
	// read there), base the object's path below it ("metrics").
	top  map[string]any
	base string
	// sig is the record's state in this answer and its epoch: a value the
	// server chose is remembered under it.
	sig string
}

// cell is one property being judged.
type cell struct {
	j       *judging
	f       frame
	s       *shape
	parent  *shape // the shape of the object that holds it
	mk      *mark
	name    string
	obj     map[string]any // the object that holds the property
	ptr     string         // where it is in the answer (JSON pointer)
	v       any
	present bool
}

// key is the property's place in its record ("metrics/loss").
func (c *cell) key() string {
	if c.f.base == "" {
		return c.name
	}
	return c.f.base + "/" + c.name
}

// find records a finding on the property. Its rule is the mark's, and
// the check within it when that is another ("list:complete").
func (c *cell) find(check, expected, got string, b basis) {
	rule := c.mk.rule
	if check != rule {
		rule += ":" + check
	}
	c.j.find(c.ptr, rule, expected, got, b)
}

// got renders what the property holds.
func (c *cell) got() string {
	if !c.present {
		return "absent"
	}
	return show(c.v)
}

// walkObject judges the properties of obj by the shape s.
func (j *judging) walkObject(f frame, s *shape, obj map[string]any, ptr string) {
	if f.rec == nil && j.record != nil && j.x.op.kind != nil && s == j.x.op.kind.record {
		f = j.bind(j.record, obj)
	}
	for _, name := range s.names {
		p := s.props[name]
		v, present := obj[name]
		if p.mark == nil {
			if child, ok := v.(map[string]any); ok && p.container() {
				j.walkObject(j.below(f, name), p, child, ptr+"/"+escape(name))
			}
			continue
		}
		spec, ok := rules[p.mark.rule]
		if !ok {
			continue
		}
		spec.judge(&cell{j: j, f: f, s: p, parent: s, mk: p.mark, name: name, obj: obj, ptr: ptr + "/" + escape(name), v: v, present: present})
	}
}

// below is the frame of an object under property name.
func (j *judging) below(f frame, name string) frame {
	if f.base == "" {
		f.base = name
	} else {
		f.base += "/" + name
	}
	return f
}

// bind makes the frame of a record's object.
func (j *judging) bind(r *record, obj map[string]any) frame {
	return frame{rec: r, top: obj, sig: signature(r, obj)}
}

// signature is the record's state as an answer shows it, and its epoch.
func signature(r *record, obj map[string]any) string {
	var b strings.Builder
	for _, f := range sortedKeys(r.kind.machines) {
		v, _ := obj[f].(string)
		b.WriteString(f + "=" + v + ";")
	}
	b.WriteString("#" + strconv.Itoa(r.epoch))
	return b.String()
}

// descend judges what is below a property whose rule is done with it: an
// object's properties, or each item of an array in its own frame.
func (c *cell) descend() {
	if obj, ok := c.v.(map[string]any); ok && c.s.props != nil {
		c.j.walkObject(c.j.below(c.f, c.name), c.s, obj, c.ptr)
	}
}

// walkStream judges a stream's reading: the chunk shape's properties read
// from the done chunk, and its text as the answer's content.
func (j *judging) walkStream() {
	s := j.a.Stream
	obj := map[string]any{}
	for k, v := range s.Done {
		obj[k] = v
	}
	if name := contentField(j.x.op.chunk); name != "" {
		obj[name] = s.Text
	}
	if s.Done == nil && !s.Complete {
		return // nothing but text: a stream cut before its end is judged by its events elsewhere
	}
	j.walkObject(frame{}, j.x.op.chunk, obj, "stream:done")
}

// contentField is the chunk's property that carries the answer (rule
// answer).
func contentField(s *shape) string {
	for _, name := range s.names {
		if p := s.props[name]; p.mark != nil && p.mark.rule == "answer" {
			return name
		}
	}
	return ""
}

// remember compares a value the server chose with the one it showed
// before under the same signature, and keeps it. It reports whether the
// value is the one remembered (or new).
func (c *cell) remember(facts map[string]fact, key string) (fact, bool) {
	old, seen := facts[key]
	facts[key] = fact{value: c.v, sig: c.f.sig, basis: c.mk.onDecision()}
	if !seen || old.sig != c.f.sig {
		return old, true
	}
	return old, same(c.v, old.value)
}
