package lifecycle

import (
	"errors"
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
	if tb.Name() != "door" {
		t.Errorf("Name() = %q", tb.Name())
	}
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

func TestTransitionsIsACopy(t *testing.T) {
	tb := NewTable("x", Transition{"a", "e", "b"})
	ts := tb.Transitions()
	ts[0].To = "hacked"
	if got, _ := tb.Fire("a", "e"); got != "b" {
		t.Fatalf("mutating Transitions() changed the table: Fire = %q", got)
	}
}

func TestStatesAndEventsOrder(t *testing.T) {
	tb := NewTable("x", Transition{"a", "e1", "b"}, Transition{"b", "e2", "c"}, Transition{"c", "e1", "a"})
	if got := tb.States(); strings.Join(toStrings(got), ",") != "a,b,c" {
		t.Errorf("States() = %v", got)
	}
	if got := tb.Events(); len(got) != 2 || got[0] != "e1" || got[1] != "e2" {
		t.Errorf("Events() = %v", got)
	}
}

func toStrings[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
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
			can := tb.Can(s, ev)
			if ok {
				allowed++
				if err != nil || got != to || !can {
					t.Errorf("%s: Fire(%q, %q) = %q, %v (Can %v); want %q allowed", tb.Name(), s, ev, got, err, can, to)
				}
				continue
			}
			var te *TransitionError
			if !errors.As(err, &te) || got != s || can {
				t.Errorf("%s: Fire(%q, %q) = %q, %v (Can %v); want refused", tb.Name(), s, ev, got, err, can)
				continue
			}
			if te.Machine != tb.Name() || te.From != s || te.Event != ev {
				t.Errorf("%s: TransitionError = %+v", tb.Name(), te)
			}
		}
	}
	if n := len(tb.Transitions()); n != allowed {
		t.Errorf("%s: table has %d transitions, test expects %d", tb.Name(), n, allowed)
	}
}
