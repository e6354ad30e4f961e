package lifecycle

import (
	"fmt"
	"slices"
)

// State is one state of a state machine, spelled exactly as it appears on
// the wire where it is exposed.
type State string

// Event is something that happens to a resource and may move it to another
// state.
type Event string

// Transition is one allowed move: firing Event in state From yields To.
type Transition struct {
	From  State
	Event Event
	To    State
}

// key identifies a transition by what the caller supplies when firing.
type key struct {
	from State
	ev   Event
}

// Table is an explicit, immutable table of allowed transitions. Anything not
// listed is refused; that default-deny is the point, because a mock that
// silently accepts impossible moves would let client bugs pass the
// conformance suite.
type Table struct {
	name string
	// transitions is the table as declared; the package's tests walk it to
	// check that the table allows exactly the moves they spell out.
	transitions []Transition
	index       map[key]State
}

// NewTable builds a table called name (used in error messages) from ts.
// It panics on a duplicate (From, Event) pair or an empty field: tables are
// package-level constants, so a malformed one is a programming error that
// must fail at start-up rather than produce a nondeterministic machine.
func NewTable(name string, ts ...Transition) *Table {
	t := &Table{
		name:        name,
		transitions: slices.Clone(ts),
		index:       make(map[key]State, len(ts)),
	}
	for _, tr := range ts {
		if tr.From == "" || tr.Event == "" || tr.To == "" {
			panic(fmt.Sprintf("lifecycle: table %q: transition with empty field: %+v", name, tr))
		}
		k := key{tr.From, tr.Event}
		if prev, dup := t.index[k]; dup {
			panic(fmt.Sprintf("lifecycle: table %q: duplicate transition %q --%q--> (%q and %q)",
				name, tr.From, tr.Event, prev, tr.To))
		}
		t.index[k] = tr.To
	}
	return t
}

// Fire returns the state reached by firing ev in state from, or a
// *TransitionError when the table does not allow it.
func (t *Table) Fire(from State, ev Event) (State, error) {
	if to, ok := t.index[key{from, ev}]; ok {
		return to, nil
	}
	return from, &TransitionError{Machine: t.name, From: from, Event: ev}
}

// TransitionError reports an event the table does not allow in the current
// state. Handlers map it to an HTTP error (e.g. 409/400) with Error() as the
// message.
type TransitionError struct {
	Machine string // table name, e.g. "evaluation"
	From    State  // state the resource was in
	Event   Event  // event that was refused
}

// Error reads e.g. `evaluation: cannot "start" from "running"`.
func (e *TransitionError) Error() string {
	return fmt.Sprintf("%s: cannot %q from %q", e.Machine, e.Event, e.From)
}
