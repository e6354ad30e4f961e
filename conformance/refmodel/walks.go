package refmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Walks: a paged list read page after page, from its first page to an
// empty one (or to the total it states), with no write in between. Only a
// walk shows a whole list: when it ends, every record the model knows in
// the list's scope and filter must have been among its pages (the
// reference: a list shows the account's records), and the scope is known
// whole from then on (what the walk showed and the model had not seen is
// adopted).

type walkKey struct {
	acct   int
	op     string
	parent string
	filter string
	size   int
}

type walk struct {
	next int
	seen map[string]bool
	// items are a collection's items the walk has read, in order.
	items []*item
	// last are the ids of the page before; sized: the server was seen to
	// page by the size the walk sends.
	last  []string
	sized bool
}

func (l *listing) key(acct int, op string) walkKey {
	var f []string
	for _, k := range sortedKeys(l.filter) {
		f = append(f, k+"="+l.filter[k])
	}
	return walkKey{acct: acct, op: op, parent: l.parent, filter: strings.Join(f, "&"), size: l.size}
}

// step advances the walk at key by one page at offset; it returns the walk
// and whether the page continues it (a page at offset 0 starts one).
func (m *Model) step(key walkKey, offset int) (*walk, bool) {
	w := m.walks[key]
	switch {
	case offset == 0:
		w = &walk{seen: map[string]bool{}}
		m.walks[key] = w
	case w == nil || w.next != offset:
		delete(m.walks, key)
		return nil, false
	}
	return w, true
}

// walkPage follows a page of a paged list of records.
func (m *Model) walkPage(c *cell, l *listing, ids []string) {
	if !l.paged {
		return
	}
	x := c.j.x
	key := l.key(x.acct.idx, x.op.id)
	w, ok := m.step(key, l.offset)
	if !ok {
		return
	}
	total, hasTotal := number(c.obj["total"])
	// The server pages by the size the walk sends (the paging names are
	// decided, D-05/D-06): its answer states that size, or a page holds
	// exactly that many of more items.
	if v, ok := number(c.obj[x.op.paging["size"]]); ok && int(v) == l.size ||
		hasTotal && int(total) > l.size && len(ids) == l.size {
		w.sized = true
	}
	// A record on two pages of one walk is listed twice (the reference:
	// each record once). Unless the server was not seen to page by the
	// walk's size, this page repeats the last (paging ignored), or the
	// list may have moved under the walk: a record whose state the
	// server's clock may move (an order by update time would move it), or
	// one the model does not know.
	steady := w.sized && !slices.Equal(ids, w.last) && l.sc.whole && l.sc.phantoms == 0 && m.steady(x.acct, l.k, l.parent)
	for _, id := range ids {
		if w.seen[id] && steady {
			c.find("twice", fmt.Sprintf("%s on one page of a walk (of %d items)", id, w.next), "on two pages", c.mk.onSeed())
		}
		w.seen[id] = true
	}
	w.last = ids
	// The next page of a list paged by page numbers starts a page size
	// on, whatever this page held (a page holding one item too many
	// repeats it on the next).
	if step := len(ids); x.op.paging["page"] != "" && l.size > 0 && step >= l.size {
		w.next += l.size
	} else {
		w.next += step
	}
	if len(ids) > 0 && (!hasTotal || w.next < int(total)) {
		return
	}
	delete(m.walks, key)
	if l.sc.phantoms == 0 {
		for _, r := range l.in {
			if !w.seen[r.id] {
				c.find("complete", fmt.Sprintf("%s listed (a walk of %d items)", r.id, w.next), "absent", c.mk.onSeed())
			}
		}
	}
	l.sc.whole, l.sc.phantoms = true, 0
}

// listCollection judges a page of a record's collection (a conversation's
// messages): item by item in the collection's order when it is known,
// else read by a walk and adopted at its end.
func listCollection(c *cell, list []any) {
	j := c.j
	x := j.x
	r := x.target
	if r == nil {
		return
	}
	coll := r.colls[x.op.coll]
	if coll == nil {
		return
	}
	size, _ := j.m.pageParam(x.op, x.call, "size")
	offset, _ := j.m.pageParam(x.op, x.call, "offset")
	if coll.whole {
		want := coll.items
		if offset >= len(want) {
			want = nil
		} else {
			want = want[offset:]
		}
		if size > 0 && len(want) > size {
			want = want[:size]
		}
		if len(list) != len(want) {
			c.find("page", fmt.Sprintf("%d items from %d of %d", len(want), offset, len(coll.items)), strconv.Itoa(len(list)), c.mk.onDecision())
		}
		for i, el := range list {
			if obj, ok := el.(map[string]any); ok && i < len(want) {
				j.walkObject(frame{rec: r, item: want[i], top: obj}, c.s.items, obj, c.ptr+"/"+strconv.Itoa(i))
			}
		}
		return
	}
	key := walkKey{acct: x.acct.idx, op: x.op.id, parent: r.id, size: size}
	w, ok := j.m.step(key, offset)
	if !ok {
		return
	}
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok {
			continue
		}
		it := &item{fields: map[string]any{}, facts: map[string]fact{}}
		w.items = append(w.items, it)
		j.walkObject(frame{rec: r, item: it, top: obj}, c.s.items, obj, c.ptr+"/"+strconv.Itoa(i))
	}
	w.next += len(list)
	if len(list) == 0 {
		delete(j.m.walks, key)
		coll.items, coll.whole, coll.base = w.items, true, map[string]float64{}
		r.epoch++
	}
}

// afterCall ends the walks of the account a write may have changed.
func (m *Model) afterCall(x *expectation) {
	if x.op.method == "GET" {
		return
	}
	for key := range m.walks {
		if x.acct == nil || key.acct == x.acct.idx {
			delete(m.walks, key)
		}
	}
}

// steady reports whether no live record of kind k under parent in acct
// may change on its own: each state the model knows has no clock move.
func (m *Model) steady(acct *account, k *kind, parent string) bool {
	for _, r := range acct.live(k, parent) {
		for field := range k.machines {
			known := r.states[field]
			if len(known) == 0 || len(m.possible(r, field)) > len(known) {
				return false // unknown, or it may move
			}
		}
	}
	return true
}
