package mutation

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestModelledTableIsSound(t *testing.T) {
	names := map[string]bool{}
	inList := map[string]bool{}
	for _, m := range List() {
		inList[m.Name] = true
		if !m.Model {
			names[m.Name] = true
		}
	}
	classes := map[string]int{}
	for _, m := range Modelled() {
		if names[m.Name] {
			t.Errorf("%s: the name is taken", m.Name)
		}
		names[m.Name] = true
		if !m.Model || !inList[m.Name] {
			t.Errorf("%s: a modelled entry is marked Model and in List (the runner runs it)", m.Name)
		}
		if m.Breaks == "" || (m.Request == nil && m.Answer == nil && m.Stream == nil && m.Serve == nil) {
			t.Errorf("%s: what it breaks and a rewriter are required", m.Name)
		}
		if m.Valid != strings.HasPrefix(m.Name, "valid-") || m.Valid != (m.Area == "variant") || !m.Valid && m.Area != "model" {
			t.Errorf("%s: a variant is valid-… in area variant, a mutant in area model", m.Name)
		}
		if got, err := Lookup(m.Name); err != nil || got.Name != m.Name {
			t.Errorf("Lookup(%q) got %q, %v", m.Name, got.Name, err)
		}
		if !m.Valid {
			class, _, _ := strings.Cut(m.Name, "-")
			classes[class]++
		}
	}
	// Each class of the issue, with varied triggers.
	for _, class := range []string{"effect", "computed", "state", "near", "named"} {
		if classes[class] < 3 {
			t.Errorf("%d mutants of class %s, want at least 3", classes[class], class)
		}
	}
}

func TestScrambledIdsAreABijection(t *testing.T) {
	for _, id := range []string{"1", "7", "999999999", "1000000001", "2000000042"} {
		s := scrambled(id)
		if s.String() == id {
			t.Errorf("%s is not scrambled", id)
		}
		if back := unscrambled(s.String()); back != id {
			t.Errorf("%s → %s → %s", id, s, back)
		}
	}
	// Neighbours are far apart: no id is another's next.
	a, _ := scrambled("41").Int64()
	b, _ := scrambled("42").Int64()
	if d := b - a; d > -1000 && d < 1000 {
		t.Errorf("41 and 42 became %d and %d: still neighbours", a, b)
	}
	for _, text := range []string{"abc", "-3", "", "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"} {
		if unscrambled(text) != text {
			t.Errorf("%q is not an id, yet changed", text)
		}
	}
}

func TestASCIIJSONKeepsTheValue(t *testing.T) {
	in := []byte(`{"name":"Žluťoučký kůň 😀","n":1}`)
	out := asciiJSON(in)
	for _, b := range out {
		if b >= 0x80 {
			t.Fatalf("%s is not ASCII", out)
		}
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
		t.Fatalf("not JSON: %s", out)
	}
	if a.(map[string]any)["name"] != b.(map[string]any)["name"] {
		t.Errorf("%v became %v", a, b)
	}
}
