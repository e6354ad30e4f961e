package lifecycle

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNewTablePanicsOnDuplicate(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "duplicate") {
			t.Fatalf("recover() = %v, want duplicate panic", r)
		}
	}()
	NewTable("x",
		Transition{"a", "go", "b"},
		Transition{"a", "go", "c"},
	)
}

func TestNewTablePanicsOnEmptyField(t *testing.T) {
	for _, tr := range []Transition{{"", "e", "b"}, {"a", "", "b"}, {"a", "e", ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewTable(%+v) did not panic", tr)
				}
			}()
			NewTable("x", tr)
		}()
	}
}

func TestTableFireAndError(t *testing.T) {
	tb := NewTable("door", Transition{"closed", "open", "opened"}, Transition{"opened", "close", "closed"})
	got, err := tb.Fire("closed", "open")
	if err != nil || got != "opened" {
		t.Fatalf("Fire(closed, open) = %q, %v", got, err)
	}
	got, err = tb.Fire("opened", "open")
	if got != "opened" {
		t.Errorf("refused Fire returned state %q, want unchanged %q", got, "opened")
	}
	var te *TransitionError
	if !errors.As(err, &te) {
		t.Fatalf("error %v is not *TransitionError", err)
	}
	if te.Machine != "door" || te.From != "opened" || te.Event != "open" {
		t.Errorf("TransitionError = %+v", te)
	}
	if want := `door: cannot "open" from "opened"`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestTableKeepsItsOwnCopy(t *testing.T) {
	ts := []Transition{{"a", "e", "b"}}
	tb := NewTable("x", ts...)
	ts[0].To = "hacked"
	if got := tb.transitions[0].To; got != "b" {
		t.Fatalf("mutating NewTable's argument changed the table: To = %q", got)
	}
}

// statesOf returns every state the table mentions, in order of first
// appearance, so a test can compare a list of states with the table
// without a second list that could drift from it.
func statesOf(tb *Table) []State {
	var out []State
	for _, tr := range tb.transitions {
		for _, s := range []State{tr.From, tr.To} {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// checkExhaustive fires every event in every state (plus an unknown state
// and event) and compares with want, which the test spells out by hand so
// the table is checked against an independent statement of the rules.
func checkExhaustive(t *testing.T, tb *Table, states []State, events []Event, want map[State]map[Event]State) {
	t.Helper()
	states = append(states, "bogus")
	events = append(events, "bogus")
	allowed := 0
	for _, s := range states {
		for _, ev := range events {
			to, ok := want[s][ev]
			got, err := tb.Fire(s, ev)
			if ok {
				allowed++
				if err != nil || got != to {
					t.Errorf("%s: Fire(%q, %q) = %q, %v; want %q allowed", tb.name, s, ev, got, err, to)
				}
				continue
			}
			var te *TransitionError
			if !errors.As(err, &te) || got != s {
				t.Errorf("%s: Fire(%q, %q) = %q, %v; want refused", tb.name, s, ev, got, err)
				continue
			}
			if te.Machine != tb.name || te.From != s || te.Event != ev {
				t.Errorf("%s: TransitionError = %+v", tb.name, te)
			}
		}
	}
	if n := len(tb.transitions); n != allowed {
		t.Errorf("%s: table has %d transitions, test expects %d", tb.name, n, allowed)
	}
}
