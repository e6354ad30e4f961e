package refmodel

import (
	"fmt"
	"slices"
	"strconv"
)

// The rules of a call's file parts and of times.

// partFates are the fates of the call's file parts as the answer tells:
// the parts it names as failed failed, the others were kept; without such
// names in the answer, the fates the model predicts.
func (m *Model) partFates(x *expectation, data any, read bool) []fate {
	files := x.call.files(x.op)
	out := make([]fate, len(files))
	for i, f := range files {
		out[i] = fateOf(f)
	}
	names, ok := failedNames(x.op, data)
	if !read || !ok {
		return out
	}
	for i, f := range files {
		out[i] = partKept
		if j := slices.Index(names, baseName(f.Name)); j >= 0 {
			out[i] = partFailed
			names = slices.Delete(names, j, j+1)
		}
	}
	return out
}

// failedNames reads the names of failed parts from an answer's data, by
// its fields whose rule is parts of failed.
func failedNames(op *operation, data any) ([]string, bool) {
	d := dataOf(op.success)
	if d == nil {
		return nil, false
	}
	for _, name := range d.names {
		p := d.props[name]
		if p.mark == nil || p.mark.rule != "parts" || p.mark.str("of") != "failed" {
			continue
		}
		v, ok := dig(data, name)
		list, isList := array(v)
		if !ok || !isList {
			continue
		}
		var out []string
		for _, el := range list {
			if s, ok := el.(string); ok {
				out = append(out, s)
			} else if n, ok := dig(el, first(itemProp(p.items))); ok {
				s, _ := n.(string)
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

func ruleParts(c *cell) {
	x := c.j.x
	files := x.call.files(x.op)
	if len(files) == 0 || (x.op.role != roleCreate && x.op.role != roleOther) {
		if c.present && !blank(c.v) {
			c.find("parts", "absent or empty (no file part was sent)", c.got(), c.mk.onDecision())
		}
		return
	}
	want := partKept
	if c.mk.str("of") == "failed" {
		want = partFailed
	}
	count, size, unknown := 0, 0, false
	var names []string
	for i, f := range files {
		switch c.j.parts[i] {
		case want:
			count++
			size += len(f.Content)
			names = append(names, baseName(f.Name))
		case partUnknown:
			unknown = true
		}
	}
	if unknown {
		return
	}
	switch c.mk.str("as") {
	case "count":
		if n, ok := number(c.v); ok && int(n) != count {
			c.find("parts", strconv.Itoa(count), c.got(), c.mk.onDecision())
		}
	case "size":
		if n, ok := number(c.v); ok && int(n) != size {
			c.find("parts", strconv.Itoa(size)+" bytes", c.got(), c.mk.onDecision())
		}
	case "any":
		if b, ok := c.v.(bool); ok && b != (count > 0) {
			c.find("parts", strconv.FormatBool(count > 0), c.got(), c.mk.onDecision())
		}
	case "names", "records":
		partNames(c, files, want)
	}
}

// partNames judges a list of part names (or of records with a name): each
// is a part sent, an empty part is among the failed (D-16), a plain text
// part is not.
func partNames(c *cell, files []File, want fate) {
	list, ok := array(c.v)
	if !ok {
		return
	}
	var got []string
	for i, el := range list {
		s, isText := el.(string)
		if obj, isObj := el.(map[string]any); isObj && c.s.items != nil {
			prop, field := itemProp(c.s.items)
			n, _ := obj[prop].(string)
			s, isText = n, true
			it := &item{fields: map[string]any{field: n}, facts: map[string]fact{}}
			c.j.walkObject(frame{rec: c.f.rec, item: it, top: c.f.top, sig: c.f.sig}, c.s.items, obj, c.ptr+"/"+strconv.Itoa(i))
		}
		if isText {
			got = append(got, s)
		}
	}
	sent := make([]string, len(files))
	for i, f := range files {
		sent[i] = baseName(f.Name)
	}
	for _, n := range got {
		if !slices.Contains(sent, n) {
			c.find("parts", "names of parts sent", show(n), c.mk.onDecision())
		}
	}
	for i, f := range files {
		p, listed := fateOf(f), slices.Contains(got, sent[i])
		switch {
		case want == partFailed && p == partFailed && !listed:
			c.find("parts", fmt.Sprintf("%q listed (an empty file is refused)", sent[i]), c.got(), c.mk.onDecision())
		case want == partFailed && p == partKept && listed:
			c.find("parts", fmt.Sprintf("%q not listed (plain text is read)", sent[i]), c.got(), c.mk.onDecision())
		}
	}
}

func ruleTime(c *cell) {
	facts := c.facts()
	if facts == nil {
		return
	}
	key := c.key()
	old, seen := facts[key]
	t, ok := instant(c.v)
	if !ok {
		if !c.present || c.v == nil {
			facts[key] = fact{value: nil, sig: c.f.sig}
		}
		return
	}
	c.after()
	ot, hadTime := instant(old.value)
	switch c.mk.str("kind") {
	case "created":
		if seen && hadTime && !ot.Equal(t) {
			c.find("time", "unchanged: "+show(old.value), c.got(), c.mk.onDecision())
		}
		if !seen {
			if prev, ok := c.j.m.earlier(c, key); ok && t.Before(prev) {
				c.find("time", "not before an earlier one's "+prev.Format("2006-01-02T15:04:05.999Z07:00"), c.got(), c.mk.onDecision())
			}
		}
	case "updated":
		switch {
		case seen && hadTime && t.Before(ot):
			c.find("time", "not before "+show(old.value)+" (it never goes back)", c.got(), c.mk.onDecision())
		case seen && hadTime && old.sig == c.f.sig && !ot.Equal(t):
			c.find("time", "unchanged: "+show(old.value)+" (nothing changed it)", c.got(), c.mk.onDecision())
		}
	}
	facts[key] = fact{value: c.v, sig: c.f.sig}
}

// itemProp is the property of a list's items an item mark stands on (the
// part's name) and the item field it names.
func itemProp(items *shape) (prop, field string) {
	if items == nil {
		return "", ""
	}
	for _, name := range items.names {
		if p := items.props[name]; p.mark != nil && p.mark.rule == "item" {
			return name, p.mark.str("field")
		}
	}
	return "", ""
}

func first(a, _ string) string { return a }
