package explore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"contractkit/internal/textcut"
	"contractkit/judge"

	"golang.org/x/text/unicode/norm"
)

// The expected state of one explored sequence: the resources it created,
// what it wrote into them, what it deleted and the states it saw. The suite
// keeps it itself (it imports neither the mock nor its store), and judges
// every answer against it.

// written is a field value a request sent, and who keeps it.
type written struct {
	value any
	// decision is "" when keeping the value is the seed's rule, else the
	// decision that keeps it (an x-stored mark).
	decision string
	// by is the operation that wrote it.
	by string
}

// resource is one item the sequence knows.
type resource struct {
	kind *resourceKind
	id   string
	// scope is the id of the parent its list is restricted to ("" none).
	scope  string
	stored map[string]written
	// deleted: a DELETE of it succeeded.
	deleted bool
	// shared: made by the written checks, before the phase; the phase
	// never deletes it and knows none of its fields.
	shared bool
	// status is the last state seen; busy is set once an action on it
	// succeeded (a run started): its state may move unseen, so a refused
	// delete or start is no news.
	status string
	busy   bool
}

// model is the expected state of the account as one sequence changed it.
type model struct {
	res []*resource
}

// live lists the resources of kind that are not deleted, in creation order.
func (m *model) live(k *resourceKind) []*resource {
	var out []*resource
	for _, r := range m.res {
		if r.kind == k && !r.deleted {
			out = append(out, r)
		}
	}
	return out
}

// deleted lists the deleted resources of kind.
func (m *model) deleted(k *resourceKind) []*resource {
	var out []*resource
	for _, r := range m.res {
		if r.kind == k && r.deleted {
			out = append(out, r)
		}
	}
	return out
}

// forgetUnder forgets the resources placed under parent (the conversations
// of a deleted model): whether they go with it the seed does not say, so
// the sequence expects nothing of them any more.
func (m *model) forgetUnder(parent *resource) {
	m.res = slices.DeleteFunc(m.res, func(r *resource) bool {
		return r.kind.scope == parent.kind.param && r.scope == parent.id
	})
}

// find returns the resource of kind with id, or nil.
func (m *model) find(k *resourceKind, id string) *resource {
	for _, r := range m.res {
		if r.kind == k && r.id == id {
			return r
		}
	}
	return nil
}

// sameValue reports whether a value read back is the value written: JSON
// equality, with an id written as a string read as a number (or the other
// way round), text compared after trimming and Unicode normalisation (a
// server may trim and normalise; the seed does not forbid it), numbers by
// value.
func sameValue(got judge.J, want any) bool {
	switch w := want.(type) {
	case string:
		switch g := got.Value().(type) {
		case string:
			return normText(g) == normText(w)
		case json.Number:
			return g.String() == w
		}
		return false
	case int64:
		if s, ok := got.Value().(string); ok {
			return s == fmt.Sprint(w)
		}
		n, ok := got.Int()
		return ok && n == w
	case float64:
		n, ok := got.Value().(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && (f == w || abs(f-w) <= 1e-9*max(abs(w), 1))
	case bool:
		b, ok := got.Bool()
		return ok && b == w
	}
	return reflect.DeepEqual(normJSON(got.Value()), normJSON(want))
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func normText(s string) string { return norm.NFC.String(strings.TrimSpace(s)) }

// normJSON renders a value the way encoding/json reads it back, numbers
// as float64, so two equal values compare equal whatever their Go types.
func normJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// show renders a value for a report, shortened.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return textcut.Shorten(string(b), 120)
}
