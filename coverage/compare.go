package coverage

import (
	"slices"
	"strconv"
)

// Change is what one run's coverage has that another's lacks, both ways:
// the operations called in one run and not in the other, and the answer
// fields observed in one and not in the other. A scheduled run compares
// itself with the last (--compare): a field that left the coverage is a
// field the server stopped sending, or a status it stopped answering.
type Change struct {
	// OperationsAppeared are the operations called now and not before
	// ("GET /api/v1/user/model (listModels)"); OperationsGone the reverse.
	OperationsAppeared []string `json:"operations_appeared"`
	OperationsGone     []string `json:"operations_gone"`
	// FieldsAppeared are the answer fields observed now and not before,
	// each "operation status media-type: field" ("getModel 200
	// application/json: data.metrics"); FieldsGone the reverse.
	FieldsAppeared []string `json:"fields_appeared"`
	FieldsGone     []string `json:"fields_gone"`
}

// Empty reports a Change that holds nothing.
func (c Change) Empty() bool {
	return len(c.OperationsAppeared)+len(c.OperationsGone)+len(c.FieldsAppeared)+len(c.FieldsGone) == 0
}

// Compare says what after has that before lacks and the reverse. Only
// what both reports document is compared: an operation or an answer body
// of one contract and not the other's is no change of the server. A
// field's observation is read from what each report never observed: a
// field never observed before and observed now appeared.
func Compare(before, after Report) Change {
	c := Change{OperationsAppeared: []string{}, OperationsGone: []string{}, FieldsAppeared: []string{}, FieldsGone: []string{}}
	was := map[string]Operation{}
	for _, o := range before.Operations {
		was[o.ID] = o
	}
	for _, o := range after.Operations {
		b, ok := was[o.ID]
		if !ok {
			continue
		}
		name := o.Method + " " + o.Path + " (" + o.ID + ")"
		switch {
		case o.Calls > 0 && b.Calls == 0:
			c.OperationsAppeared = append(c.OperationsAppeared, name)
		case o.Calls == 0 && b.Calls > 0:
			c.OperationsGone = append(c.OperationsGone, name)
		}
		appeared, gone := fieldChanges(b, o)
		c.FieldsAppeared = append(c.FieldsAppeared, appeared...)
		c.FieldsGone = append(c.FieldsGone, gone...)
	}
	return c
}

// fieldChanges compares the answer bodies two reports hold of one
// operation.
func fieldChanges(before, after Operation) (appeared, gone []string) {
	bodies := func(o Operation) map[string]Body {
		m := map[string]Body{}
		for _, s := range o.Statuses {
			for _, b := range s.Bodies {
				m[s.Code+" "+b.MediaType] = b
			}
		}
		return m
	}
	was := bodies(before)
	now := bodies(after)
	keys := make([]string, 0, len(now))
	for k := range now {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, ok := was[k]
		if !ok || b.Fields != now[k].Fields {
			continue // another contract's body
		}
		prefix := after.ID + " " + k + ": "
		unseenBefore, unseenNow := set(b.NeverObserved), set(now[k].NeverObserved)
		for _, f := range b.NeverObserved {
			if !unseenNow[f] {
				appeared = append(appeared, prefix+f)
			}
		}
		for _, f := range now[k].NeverObserved {
			if !unseenBefore[f] {
				gone = append(gone, prefix+f)
			}
		}
	}
	return appeared, gone
}

func set(items []string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

// Lines renders the change for a summary, each list bounded to limit
// entries ("… and N more"); none when the change is empty.
func (c Change) Lines(limit int) []string {
	var out []string
	add := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		shown := items
		if len(shown) > limit {
			shown = shown[:limit]
		}
		out = append(out, title+" ("+strconv.Itoa(len(items))+"):")
		for _, s := range shown {
			out = append(out, "  - "+s)
		}
		if len(items) > len(shown) {
			out = append(out, "  … and "+strconv.Itoa(len(items)-len(shown))+" more (the JSON report's changes has them all)")
		}
	}
	add("operations called now, not before", c.OperationsAppeared)
	add("operations called before, not now", c.OperationsGone)
	add("answer fields observed now, not before", c.FieldsAppeared)
	add("answer fields observed before, not now", c.FieldsGone)
	return out
}
