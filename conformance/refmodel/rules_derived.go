package refmodel

import (
	"fmt"
	"math"
	"strconv"
)

// The rules of fields computed from others: counts, sums, the latest
// item, a collection's items, a call's file parts, scores, names, times.

func (c *cell) coll() *collection {
	if c.f.rec == nil {
		return nil
	}
	return c.f.rec.colls[c.mk.str("of")]
}

func ruleCount(c *cell) {
	coll := c.coll()
	n, ok := number(c.v)
	if coll == nil || !ok {
		return
	}
	if coll.whole {
		if int(n) != len(coll.items) {
			c.find("count", strconv.Itoa(len(coll.items)), c.got(), c.mk.onDecision())
		}
		return
	}
	if base, ok := coll.base["count"]; ok {
		if want := base + float64(len(coll.items)); n != want {
			c.find("count", fmt.Sprint(want), c.got(), c.mk.onDecision())
		}
		return
	}
	coll.base["count"] = n - float64(len(coll.items))
}

// itemValue is what the model knows of an item's field: what the request
// said, or what the server showed.
func itemValue(it *item, field string) (any, bool) {
	if v, ok := it.fields[field]; ok && v != nil {
		return v, true
	}
	if f, ok := it.facts[field]; ok && f.value != nil {
		return f.value, true
	}
	return nil, false
}

func ruleSum(c *cell) {
	coll := c.coll()
	n, ok := number(c.v)
	if coll == nil || !ok {
		return
	}
	field := c.mk.str("field")
	total, known := 0.0, true
	for _, it := range coll.items {
		v, ok := itemValue(it, field)
		f, isNum := number(v)
		if !ok || !isNum {
			known = false
			break
		}
		total += f
	}
	switch {
	case known && coll.whole:
		if n != total {
			c.find("sum", fmt.Sprint(total), c.got(), c.mk.onDecision())
		}
	case sumOfAnswer(c, field) >= 0:
		if want := sumOfAnswer(c, field); n != want {
			c.find("sum", fmt.Sprintf("%v (its own %s)", want, c.mk.str("of")), c.got(), c.mk.onDecision())
		}
	case known:
		key := "sum:" + field
		if base, ok := coll.base[key]; ok {
			if n != base+total {
				c.find("sum", fmt.Sprint(base+total), c.got(), c.mk.onDecision())
			}
		} else {
			coll.base[key] = n - total
		}
	}
}

// sumOfAnswer is the sum of field over the answer's own list of the
// collection, -1 when the answer has none.
func sumOfAnswer(c *cell, field string) float64 {
	list, ok := array(c.obj[c.mk.str("of")])
	if !ok {
		return -1
	}
	total := 0.0
	for _, el := range list {
		v, _ := dig(el, field)
		f, ok := number(v)
		if !ok {
			return -1
		}
		total += f
	}
	return total
}

func ruleLast(c *cell) {
	coll := c.coll()
	if coll == nil {
		return
	}
	field := c.mk.str("field")
	if c.present && c.v != nil {
		c.after()
	}
	if n := len(coll.items); n > 0 {
		it := coll.items[n-1]
		want, ok := itemValue(it, field)
		switch {
		case !ok:
			if c.present && c.v != nil {
				it.facts[field] = fact{value: c.v}
			}
		case !sameValueOrTime(c.v, want):
			c.find("last", show(want)+" (its latest item's "+field+")", c.got(), c.mk.onDecision())
		}
		return
	}
	if !coll.whole {
		if old, same := c.remember(c.f.rec.facts, "last:"+field); !same {
			c.find("latitude", "unchanged: "+show(old.value), c.got(), c.f.rec.kind.keeps())
		}
		return
	}
	none := c.mk.params["none"]
	if none == "null" {
		if c.present && c.v != nil {
			c.find("last", "null (no item yet)", c.got(), c.mk.onDecision())
		}
	} else if c.present && !same(c.v, none) {
		c.find("last", show(none)+" (no item yet)", c.got(), c.mk.onDecision())
	}
}

// sameValueOrTime compares two times as instants, other values as values.
func sameValueOrTime(a, b any) bool {
	if ta, ok := instant(a); ok {
		tb, ok := instant(b)
		return ok && ta.Equal(tb)
	}
	return same(a, b)
}

func ruleCollection(c *cell) {
	coll := c.coll()
	list, ok := array(c.v)
	if coll == nil || !ok {
		return // not a field of the reference: a server may leave it out
	}
	if !coll.whole {
		coll.items = coll.items[:0]
		for range list {
			coll.items = append(coll.items, &item{fields: map[string]any{}, facts: map[string]fact{}})
		}
		coll.whole, coll.base = true, map[string]float64{}
	}
	if len(list) != len(coll.items) {
		c.find("collection", fmt.Sprintf("%d items", len(coll.items)), fmt.Sprintf("%d", len(list)), c.mk.onDecision())
	}
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok || i >= len(coll.items) || c.s.items == nil {
			continue
		}
		c.j.walkObject(frame{rec: c.f.rec, item: coll.items[i], top: c.f.top, sig: c.f.sig}, c.s.items, obj, c.ptr+"/"+strconv.Itoa(i))
	}
}

func ruleItem(c *cell) {
	it := c.f.item
	if it == nil {
		return
	}
	field := c.mk.str("field")
	if want, ok := it.fields[field]; ok && want != nil {
		if !c.present || !same(c.v, want) {
			c.find("item", show(want), c.got(), c.mk.onDecision())
		}
		return
	}
	if c.present {
		it.fields[field] = c.v
	}
}

func ruleMean(c *cell) {
	scores, ok := c.v.(map[string]any)
	samples, ok2 := array(c.obj[c.mk.str("of")])
	if !ok || !ok2 || len(samples) == 0 {
		return
	}
	for _, k := range sortedKeys(scores) {
		got, ok := number(scores[k])
		if !ok {
			continue
		}
		sum := 0.0
		for _, s := range samples {
			f, _ := dig(s, c.mk.str("field"))
			v, _ := dig(f, k)
			n, ok := number(v)
			if !ok {
				return
			}
			sum += n
		}
		// Scores are rounded (the mock keeps 4 decimals); a mean within
		// half a hundredth is the mean.
		if want := sum / float64(len(samples)); math.Abs(got-want) > 0.005 {
			c.j.find(c.ptr+"/"+escape(k), "mean", fmt.Sprintf("%.4f (the mean of its %s)", want, c.mk.str("of")), show(scores[k]), c.mk.onDecision())
		}
	}
}

func ruleScored(c *cell) {
	r := c.f.rec
	list, ok := array(c.v)
	if r == nil || !ok {
		return
	}
	known := r.hasScored
	if known && len(list) != len(r.scored) {
		c.find("scored", fmt.Sprintf("%d (the samples chosen)", len(r.scored)), strconv.Itoa(len(list)), c.mk.onDecision())
	}
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok || c.s.items == nil {
			continue
		}
		it := &item{fields: map[string]any{}, facts: map[string]fact{}}
		if known && i < len(r.scored) {
			it.fields["question"] = r.scored[i]
		}
		c.j.walkObject(frame{rec: r, item: it, top: c.f.top, sig: c.f.sig}, c.s.items, obj, c.ptr+"/"+strconv.Itoa(i))
	}
}

func ruleNameValid(c *cell) {
	name, ok := c.j.x.call.value(c.j.x.op, c.mk.str("param"))
	s, isText := name.(string)
	b, isBool := c.v.(bool)
	if ok && isText && isBool && b != validName(s) {
		c.find("name", strconv.FormatBool(validName(s)), c.got(), c.mk.onDecision())
	}
}

func ruleNameFree(c *cell) {
	x := c.j.x
	name, ok := x.call.value(x.op, c.mk.str("param"))
	s, isText := name.(string)
	b, isBool := c.v.(bool)
	k := c.j.m.cat.byParam[c.mk.str("of")]
	if !ok || !isText || !isBool || k == nil {
		return
	}
	want := validName(s)
	field := c.mk.str("field")
	fold := k.unique[field] != nil && k.unique[field].str("unique") == "case-insensitive"
	for _, r := range x.acct.records {
		if r.kind != k || r.gone != live {
			continue
		}
		if have, ok := r.stored[field].value.(string); ok && sameName(have, s, fold) {
			want = false
		}
		if _, known := r.stored[field]; !known && (r.adopted || r.learn) {
			return // a record whose name is not known yet
		}
	}
	for key, sc := range x.acct.scopes {
		if key.kind == k && sc.phantoms > 0 {
			return
		}
	}
	if b != want {
		c.find("name", strconv.FormatBool(want), c.got(), c.mk.onDecision())
	}
}
