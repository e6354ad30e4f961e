package refmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Lists: what a page of a list holds. Membership is the reference's (a
// list shows the records of its account and scope, no deleted one, none
// twice); order and paging are decisions (D-01, D-05, D-06), so an exact
// page is a decided prediction, and a list is known whole only when it is
// unpaged or walked page by page to its end.

// listing is a list call as the model reads it.
type listing struct {
	k      *kind
	parent string
	sc     *scope
	// filter are the query parameters that keep only records with that
	// value, with the basis of filtering by them.
	filter      map[string]string
	filterBasis basis
	paged       bool
	size        int // 0: no size
	offset      int
	// in are the records certainly in the list, maybe those that may be
	// (a state that may have moved across the filter).
	in, maybe []*record
}

func (m *Model) listingOf(x *expectation) *listing {
	op, call := x.op, x.call
	l := &listing{k: op.kind, filter: map[string]string{}}
	if l.k == nil || l.k.record == nil {
		return nil
	}
	if l.k.scope != "" {
		l.parent = call.Query.Get(l.k.scope)
		if pk := m.cat.byParam[l.k.scope]; pk != nil {
			l.parent = pk.canonical(l.parent) // the parent's id spelt another way (D-20)
		}
	}
	l.sc = m.scope(x.acct, l.k, l.parent)
	for _, p := range op.params {
		if p.In != "query" || !call.Query.Has(p.Name) || p.Name == l.k.scope || pagingRole(op, p.Name) != "" || l.k.record.props[p.Name] == nil {
			continue
		}
		l.filter[p.Name] = call.Query.Get(p.Name)
		if d, ok := p.Extensions["x-decision"].(map[string]any); ok && d["class"] == "decided" && !m.honoured[op.id+" "+p.Name] {
			// The parameter's name is decided: a server that filters by
			// another name differs from a decision. Once it has filtered
			// by this one, a wrong filter breaks the rule the list's own
			// clause states (filtering by status, §3.1 rule 2).
			row, _ := d["row"].(string)
			l.filterBasis = basis{decision: row}
		}
	}
	l.size, l.paged = m.pageParam(op, call, "size")
	if off, ok := m.pageParam(op, call, "offset"); ok {
		l.offset, l.paged = off, true
	}
	if page, ok := m.pageParam(op, call, "page"); ok {
		l.offset, l.paged = max(page-1, 0)*l.size, true
	}
	unsure := false
	if l.k.scope != "" {
		p := x.acct.find(m.cat.byParam[l.k.scope], l.parent)
		if p == nil || (p.gone != live && p.gone != maybe) {
			return l // the parent is not the caller's: nothing may be listed
		}
		unsure = p.gone == maybe // its delete went unanswered: so may theirs
	}
	for _, r := range x.acct.live(l.k, l.parent) {
		fit := m.filterFit(r, l.filter)
		if unsure && fit == 1 {
			fit = 0
		}
		switch fit {
		case 1:
			l.in = append(l.in, r)
		case 0:
			l.maybe = append(l.maybe, r)
		}
	}
	for _, r := range x.acct.records {
		// A record whose delete went unanswered may still be listed.
		if r.kind == l.k && r.gone == maybe && (l.k.scope == "" || r.parent == l.parent) && m.filterFit(r, l.filter) >= 0 {
			l.maybe = append(l.maybe, r)
		}
	}
	return l
}

// pagingRole is the x-paging role of a query parameter, "" none.
func pagingRole(op *operation, name string) string {
	for role, p := range op.paging {
		if p == name {
			return role
		}
	}
	return ""
}

// pageParam is the value of the paging parameter of role: the one sent,
// or its default.
func (m *Model) pageParam(op *operation, call Call, role string) (int, bool) {
	name := op.paging[role]
	if name == "" {
		return 0, false
	}
	if call.Query.Has(name) {
		n, err := strconv.Atoi(call.Query.Get(name))
		return n, err == nil
	}
	if f, ok := number(paramDefault(op, "query:"+name)); ok {
		return int(f), true
	}
	return 0, false
}

// filterFit says whether r is in a filtered list: 1 surely, -1 surely
// not, 0 it may be (its state may have moved across the filter).
func (m *Model) filterFit(r *record, filter map[string]string) int {
	fit := 1
	for f, v := range filter {
		if r.kind.machines[f] != nil {
			poss := m.possible(r, f)
			switch {
			case poss == nil:
				fit = 0
			case !poss[v]:
				return -1
			case len(poss) > 1:
				fit = 0
			}
			continue
		}
		if s, ok := r.stored[f]; !ok || !same(s.value, v) {
			fit = 0
		}
	}
	return fit
}

// certain reports whether the listing's membership is known exactly.
func (l *listing) certain() bool { return l.sc.whole && l.sc.phantoms == 0 && len(l.maybe) == 0 }

// expected is the listing's records in the list's order.
func (l *listing) expected(order string) []*record {
	out := slices.Clone(l.in)
	if order == "newest" {
		slices.Reverse(out)
	}
	return out
}

func ruleList(c *cell) {
	list, ok := array(c.v)
	if !ok {
		return
	}
	if c.j.x.op.role == roleChild {
		listCollection(c, list)
		return
	}
	l := c.j.m.listingOf(c.j.x)
	if l == nil {
		return
	}
	order := c.mk.str("order")
	want := l.expected(order)
	certain := l.certain()
	var ids []string
	seen := map[string]bool{}
	idField := l.k.identityField()
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok {
			continue
		}
		ptr := c.ptr + "/" + strconv.Itoa(i)
		id := idString(obj[idField])
		if seen[id] {
			c.j.find(ptr+"/"+idField, "list:once", "each item once", id, c.mk.onSeed())
		}
		seen[id] = true
		ids = append(ids, id)
		r := c.j.m.listed(c, l, id, l.offset+i, order, ptr)
		if r == nil {
			continue
		}
		if l.k.scope != "" {
			if v, ok := obj[l.k.scope]; ok && idString(v) != l.parent {
				c.j.find(ptr+"/"+l.k.scope, "list:scope", l.parent+" (the list's "+l.k.scope+")", show(v), c.mk.onSeed())
			}
		}
		for f, v := range l.filter {
			if got, ok := obj[f]; ok && !same(got, v) {
				c.j.find(ptr+"/"+f, "list:filter", show(v)+" (the filter)", show(got), l.filterBasis.weaker(c.mk.onSeed()))
			}
		}
		c.j.walkObject(c.j.bind(r, obj), c.s.items, obj, ptr)
	}
	if certain {
		page := want
		if l.paged {
			page = window(want, l.offset, l.size)
		}
		if !sameIDs(ids, recordIDs(page), order == "any") {
			c.find("page", strings.Join(recordIDs(page), ",")+" (the "+order+" first)", strings.Join(ids, ","), c.mk.onDecision())
		}
		if !l.paged {
			for _, r := range want {
				if !seen[r.id] {
					c.find("complete", r.id+" listed", "absent", c.mk.onSeed())
				}
			}
		}
	}
	if !l.paged {
		l.sc.whole, l.sc.phantoms = true, 0
	}
	c.j.m.learnFilter(c.j.x, l, ids)
	c.j.m.walkPage(c, l, ids)
}

// learnFilter notes the filters a server honours: a first page, not full,
// whose items all fit the filter and that leaves out a live record the
// model knows does not — what a server ignoring the filter would have
// listed.
func (m *Model) learnFilter(x *expectation, l *listing, ids []string) {
	if len(l.filter) == 0 || l.offset != 0 || (l.size > 0 && len(ids) >= l.size) {
		return
	}
	listed := map[string]bool{}
	for _, id := range ids {
		listed[id] = true
		if r := x.acct.find(l.k, id); r == nil || m.filterFit(r, l.filter) != 1 {
			return
		}
	}
	for _, r := range x.acct.live(l.k, l.parent) {
		if r.gone == live && !listed[r.id] && m.filterFit(r, l.filter) == -1 {
			for name := range l.filter {
				m.honoured[x.op.id+" "+name] = true
			}
			return
		}
	}
}

// window is the page of list at offset, size items.
func window(list []*record, offset, size int) []*record {
	if offset >= len(list) || offset < 0 {
		return nil
	}
	end := len(list)
	if size > 0 && offset+size < end {
		end = offset + size
	}
	return list[offset:end]
}

func recordIDs(list []*record) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = r.id
	}
	return out
}

func sameIDs(a, b []string, anyOrder bool) bool {
	if anyOrder {
		a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	}
	return slices.Equal(a, b)
}

// listed finds the record a list item is, adopting one the model has not
// seen when the list's scope is not known whole; nil when the item cannot
// be judged as a record (another account's, a deleted one).
func (m *Model) listed(c *cell, l *listing, id string, pos int, order, ptr string) *record {
	a := c.j.x.acct
	r := a.find(l.k, id)
	switch {
	case r == nil:
		if _, other := m.holder(l.k, id); other != nil {
			c.j.find(ptr, "list:account", "only the caller's records", "the other account's "+id, c.mk.onSeed())
			return nil
		}
		if l.sc.whole && l.sc.phantoms == 0 {
			c.j.find(ptr, "list:unknown", "only records the account holds", "an unknown "+id, l.k.keeps())
			return nil
		}
		r = m.newRecord(a, l.k, id)
		r.adopted, r.learn, r.parent = true, true, l.parent
		for _, coll := range r.colls {
			coll.whole = false
		}
		if l.sc.whole {
			l.sc.phantoms--
			r.seq = a.seq
			a.seq++
		} else {
			r.seq = -1_000_000 + pos
			if order == "newest" {
				r.seq = -1_000_000 - pos
			}
		}
		a.add(r)
	case r.gone == deleted || r.gone == soft:
		c.j.find(ptr, "list:gone", "no deleted record", "deleted "+id, r.goneBasis)
		return nil
	case r.gone == maybe:
		r.gone = live
	}
	return r
}

// earlier is the latest time at key of the records (or collection items)
// created before the cell's.
func (m *Model) earlier(c *cell, key string) (time.Time, bool) {
	var latest time.Time
	found := false
	consider := func(f fact, ok bool) {
		if t, isTime := instant(f.value); ok && isTime && (!found || t.After(latest)) {
			latest, found = t, true
		}
	}
	r := c.f.rec
	if it := c.f.item; it != nil && r != nil {
		for _, coll := range r.colls {
			if i := slices.Index(coll.items, it); i > 0 {
				for _, prev := range coll.items[:i] {
					f, ok := prev.facts[key]
					consider(f, ok)
				}
			}
		}
		return latest, found
	}
	if r == nil || r.adopted {
		return latest, false
	}
	for _, o := range m.accts[r.acct].records {
		if o.kind == r.kind && o.seq < r.seq && !o.adopted {
			f, ok := o.facts[key]
			consider(f, ok)
		}
	}
	return latest, found
}

func ruleTotal(c *cell) {
	n, ok := number(c.v)
	l := c.j.m.listingOf(c.j.x)
	if !ok || l == nil {
		return
	}
	lo, hi := len(l.in), len(l.in)+len(l.maybe)+l.sc.phantoms
	switch {
	case l.certain() && int(n) != lo:
		c.find("total", strconv.Itoa(lo), c.got(), c.mk.onDecision())
	case l.sc.whole && (int(n) < lo || int(n) > hi):
		c.find("total", fmt.Sprintf("%d..%d", lo, hi), c.got(), c.mk.onDecision())
	case !l.sc.whole && int(n) < lo:
		c.find("total", fmt.Sprintf("at least %d", lo), c.got(), c.mk.onDecision())
	}
}
