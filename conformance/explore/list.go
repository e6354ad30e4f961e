package explore

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"contractkit/conformance/client"
	"contractkit/exchange"
	"contractkit/judge"

	"pgregory.net/rapid"
)

// A list as the explore phase reads it: every page walked, then judged
// whole. Paging is a decision (D-05, D-06), so the walk never trusts it: it
// asks for pages by the contract's paging parameters (x-paging) and stops
// at an empty page, at the total the answer states, or when a page repeats
// the one before (a server that ignores the parameters). Only a walk that
// is known to have seen every item judges what is missing.

// maxListPages bounds one walk.
const maxListPages = 20

// walked is a list read page by page.
type walked struct {
	items []judge.J
	// complete: every item of the list was seen.
	complete bool
	// pages holds the exchange of every page.
	pages []*exchange.Exchange
	// refused is the answer when the list was not served.
	refused *exchange.Exchange
}

func (c *exploreCase) list(op *exploreOp) {
	k := op.kind
	p := plan{}
	base := url.Values{}
	scope := ""
	if k.scope != "" {
		id, r, why := c.target(c.x.cat.byParam[k.scope], false)
		scope = id
		if why != "" {
			p.mayRefuse = true // an unknown parent: refused, or an empty list
		}
		_ = r
		base.Set(k.scope, id)
	}
	filter, filterValue, filterDecision := c.filter(op)
	if filter != "" {
		base.Set(filter, filterValue)
	}
	foreign := c.x.cfg.SecondAccount && c.g.chance(6, "foreign.list")
	if foreign {
		p.foreign = true
	}
	w := c.walk(op, base, c.pageSize(), foreign, p)
	if w.refused != nil || foreign {
		if foreign && w.refused == nil {
			for _, r := range c.m.res {
				if r.kind == k && !r.deleted && !r.shared && slices.Contains(judge.IDs(w.items), r.id) {
					c.x.violate(c, finding{prop: PropIsolation, x: w.pages[0],
						what:   fmt.Sprintf("%s: the other account's list shows a resource", op.ID),
						detail: fmt.Sprintf("%s %s of the first account is in the second account's list", k.param, r.id),
						fs:     breaks(op.ID, "/data", "isolation", "none of the other account's resources", k.param+" "+r.id, "")})
				}
			}
		}
		return
	}
	c.judgeList(op, w, scope, filter, filterValue, filterDecision)
}

// pageSize draws the page size of a walk: the largest the contract allows
// (0), or now and then a tiny one, so that paging itself is walked.
func (c *exploreCase) pageSize() int {
	if c.g.chance(2, "small.pages") {
		return rapid.IntRange(1, 3).Draw(c.t, "page.size")
	}
	return 0
}

// filter draws, sometimes, a value for a list parameter that filters by a
// field of the items (an enum, such as the evaluation status).
func (c *exploreCase) filter(op *exploreOp) (name, value, decision string) {
	for _, pr := range op.query {
		if pr.Required || op.paging[pr.Name] != "" || pr.Schema == nil || pr.Schema.Value == nil {
			continue
		}
		s := flatten(pr.Schema.Value)
		if len(s.Enum) == 0 || op.kind.schema == nil || op.kind.schema.Properties[pr.Name] == nil || !c.g.chance(3, "filter."+pr.Name) {
			continue
		}
		v := fmt.Sprint(c.g.value(s, "filter."+pr.Name, nil))
		d, _ := decisionMark(pr.Extensions)
		return pr.Name, v, d
	}
	return "", "", ""
}

// walk reads every page of the list.
func (c *exploreCase) walk(op *exploreOp, base url.Values, size int, foreign bool, p plan) walked {
	var w walked
	sizeParam, offsetParam, pageParam := "", "", ""
	for name, role := range op.paging {
		switch role {
		case "size":
			sizeParam = name
		case "offset":
			offsetParam = name
		case "page":
			pageParam = name
		}
	}
	if size == 0 && sizeParam != "" {
		size = c.x.maxPageSize(op, sizeParam)
	}
	offset, page := 0, 1
	var prev []string
	for range maxListPages {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		if sizeParam != "" {
			q.Set(sizeParam, strconv.Itoa(size))
		}
		if offsetParam != "" {
			q.Set(offsetParam, strconv.Itoa(offset))
		}
		if pageParam != "" {
			q.Set(pageParam, strconv.Itoa(page))
		}
		r := client.Request{Method: "GET", Path: op.Path, Query: q}
		if foreign {
			r.Auth = client.AuthKey2
		}
		x := c.do(r)
		w.pages = append(w.pages, x)
		data := c.judge(op, x, p, nil, false)
		if x.Status/100 != 2 {
			w.refused = x
			return w
		}
		items := judge.Records(data)
		ids := judge.IDs(items)
		if len(prev) > 0 && len(ids) > 0 && sameIDs(prev, ids) {
			return w // the paging parameters are ignored: this page is the last one again
		}
		w.items = append(w.items, items...)
		total, hasTotal := data.Get("total").Int()
		switch {
		case sizeParam == "" && offsetParam == "" && pageParam == "":
			w.complete = true // an unpaged list is whole
		case len(items) == 0:
			w.complete = true
		case hasTotal && int64(len(w.items)) >= total:
			w.complete = true
		}
		if w.complete || !c.x.spend() {
			return w
		}
		prev = ids
		offset += len(items)
		page++
	}
	return w
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// judgeList judges a walked list: no item twice, every item under the
// list's parent and filter, every live resource of the sequence listed
// (when the walk saw everything), no deleted one listed, and what was
// written into each listed resource.
func (c *exploreCase) judgeList(op *exploreOp, w walked, scope, filter, filterValue, filterDecision string) {
	k := op.kind
	last := w.pages[len(w.pages)-1]
	seen := map[string]int{}
	for i, it := range w.items {
		id := it.Get("id").ID()
		if first, dup := seen[id]; dup && id != "" {
			decision := c.x.pagingDecision(op)
			if sameOrigin(w, first, i) {
				decision = ""
			}
			c.x.violate(c, finding{prop: PropLists, x: last,
				what:   fmt.Sprintf("%s: an item listed twice", op.ID),
				detail: fmt.Sprintf("%s %s is listed twice", k.param, id),
				fs:     breaks(op.ID, "/data", "listed-once", "each item once", k.param+" "+id+" twice", decision)})
		}
		seen[id] = i
		if scope != "" && !sameValue(it.Get(k.scope), scope) {
			c.x.violate(c, finding{prop: PropLists, x: last,
				what:   fmt.Sprintf("%s: an item of another %s", op.ID, k.scope),
				detail: fmt.Sprintf("the list for %s=%s holds %s %s with %s %s", k.scope, scope, k.param, id, k.scope, it.Get(k.scope)),
				fs:     breaks(op.ID, "/data", "list-scope", k.scope+" "+scope, it.Get(k.scope).String(), "")})
		}
		if filter != "" && !sameValue(it.Get(filter), filterValue) {
			c.x.violate(c, finding{prop: PropLists, x: last,
				what:   fmt.Sprintf("%s: an item outside the filter %s", op.ID, filter),
				detail: fmt.Sprintf("the list for %s=%s holds %s %s with %s %s", filter, filterValue, k.param, id, filter, it.Get(filter)),
				fs:     breaks(op.ID, "/data", "list-filter", filter+" "+filterValue, it.Get(filter).String(), filterDecision)})
		}
		if r := c.m.find(k, id); r != nil {
			if r.deleted {
				c.x.violate(c, finding{prop: PropGone, x: last,
					what:   fmt.Sprintf("%s: a deleted item listed", op.ID),
					detail: fmt.Sprintf("%s %s was deleted and is still listed", k.param, id),
					fs:     breaks(op.ID, "/data", "gone", "no deleted "+k.param, k.param+" "+id, k.gone)})
				continue
			}
			c.compareStored(last, r, it, "its list entry", false)
			c.observe(last, r, it, false)
		}
	}
	if !w.complete || filter != "" {
		return
	}
	for _, r := range c.m.live(k) {
		if k.scope != "" && r.scope != scope {
			continue
		}
		if _, ok := seen[r.id]; !ok {
			c.x.violate(c, finding{prop: PropLists, x: last,
				what:   fmt.Sprintf("%s: a resource missing from its list", op.ID),
				detail: fmt.Sprintf("%s %s is not in the list (%d items on %d page(s))", k.param, r.id, len(w.items), len(w.pages)),
				fs:     breaks(op.ID, "/data", "listed", k.param+" "+r.id, "missing", "")})
		}
	}
}

// sameOrigin reports whether items i and j of a walk came from one page.
func sameOrigin(w walked, i, j int) bool {
	n := 0
	for _, x := range w.pages {
		body, _ := judge.ParseJSON(x.Raw)
		count := len(judge.Records(body.Get("data")))
		if i < n+count && j < n+count {
			return i >= n && j >= n
		}
		n += count
	}
	return false
}
