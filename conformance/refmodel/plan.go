package refmodel

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// What a planner (the explore phase, a test's driver) needs of the model
// to aim its calls: the resources it knows, in which states, and ids made
// from real ones.

// Resource is what the model knows of one resource.
type Resource struct {
	// Kind is its kind's path parameter ("model_id").
	Kind string
	ID   string
	// Parent is the id of the resource its list is scoped to ("" none).
	Parent string
	// Gone: deleted (or soft-deleted, or its delete went unanswered).
	Gone bool
	// States are the states each state field may be in now.
	States map[string][]string
	// Fields are its stored fields the model knows (name, model_id, ...).
	Fields map[string]any
	// Items are the sizes of its collections the model knows wholly.
	Items map[string]int
}

// Resources lists what the model knows of the account of key k, in
// creation order.
func (m *Model) Resources(k Key) []Resource {
	if !k.account() {
		return nil
	}
	var out []Resource
	for _, r := range m.accts[k].records {
		res := Resource{Kind: r.kind.param, ID: r.id, Parent: r.parent, Gone: r.gone != live,
			States: map[string][]string{}, Fields: map[string]any{}, Items: map[string]int{}}
		for f := range r.states {
			res.States[f] = m.possible(r, f).list()
		}
		for f, v := range r.stored {
			res.Fields[f] = v.value
		}
		if res.Parent == "" && r.kind.scope != "" {
			res.Parent = idString(r.stored[r.kind.scope].value)
		}
		for name, c := range r.colls {
			if c.whole {
				res.Items[name] = len(c.items)
			}
		}
		out = append(out, res)
	}
	return out
}

// Kinds lists the resources' kinds by their path parameter.
func (m *Model) Kinds() []string {
	out := make([]string, len(m.cat.kinds))
	for i, k := range m.cat.kinds {
		out[i] = k.param
	}
	return out
}

// NearMisses are ids close to the real ids of kind in the account of key
// k that no resource of that kind has, in either account as far as the
// model knows: a number one off a real one, a string with one character
// changed; those made from live resources first. A call naming one must be
// refused (404) once the model knows the account's resources of that kind
// whole.
func (m *Model) NearMisses(kind string, k Key) []string {
	kd := m.cat.byParam[kind]
	if kd == nil || !k.account() {
		return nil
	}
	taken := m.ids[kd]
	var out []string
	add := func(id string) {
		if id != "" && !taken[id] && !contains(out, id) {
			out = append(out, id)
		}
	}
	records := slices.Clone(m.accts[k].records)
	slices.SortStableFunc(records, func(a, b *record) int { return cmp.Compare(a.gone, b.gone) })
	for _, r := range records {
		if r.kind != kd {
			continue
		}
		if n, err := strconv.ParseInt(r.id, 10, 64); err == nil {
			add(strconv.FormatInt(n+1, 10))
			add(strconv.FormatInt(n-1, 10))
			continue
		}
		add(oneOff(r.id))
	}
	return out
}

// oneOff changes the last hexadecimal digit or letter of s.
func oneOff(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c >= '0' && c <= '8', c >= 'a' && c <= 'e', c >= 'A' && c <= 'E':
			b[i]++
			return string(b)
		case c == '9' || c == 'f' || c == 'F':
			b[i] = strings.ToLower(string(c))[0] - 1
			return string(b)
		}
	}
	return ""
}
