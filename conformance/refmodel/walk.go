package refmodel

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

// walkStream judges a stream's reading: the done chunk's fields by the
// done chunk's shape, and the joined text by the shape of the chunk that
// carries the answer (rule answer: token, or the chunk itself when it is
// not a union).
func (j *judging) walkStream() {
	s := j.a.Stream
	for _, data := range s.NotJSON {
		j.find("stream", "chunk", "each event's data one JSON value", show(data), basis{clause: "4.4"})
	}
	if s.Done == nil && !s.Complete {
		return // nothing but text: a stream cut before its end is judged by its events elsewhere
	}
	chunk := j.x.op.chunk
	done := map[string]any{}
	for k, v := range s.Done {
		done[k] = v
	}
	answer := answerShape(chunk)
	name := contentField(answer)
	if answer == chunk.branch("done") && name != "" {
		done[name] = s.Text // one shape for both: the text under its answer field
	}
	j.walkObject(frame{}, chunk.branch("done"), done, "stream:done")
	if answer != chunk.branch("done") && name != "" {
		j.walkObject(frame{}, answer, map[string]any{name: s.Text}, "stream:text")
	}
}

// answerShape is the shape whose property carries the answer (rule
// answer): the chunk's own, or the first of its branches that has one.
func answerShape(s *shape) *shape {
	if contentField(s) != "" && len(s.alts) == 0 {
		return s
	}
	for _, alt := range s.alts {
		if contentField(alt) != "" {
			return alt
		}
	}
	return s
}

// contentField is the property of s that carries the answer (rule
// answer), "" when none does.
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
