package judge

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFindingKeyIgnoresGot(t *testing.T) {
	a := Finding{Operation: "getModel", Pointer: "/data/name", Rule: "stored", Expected: `"a"`, Got: `"b"`}
	b := a
	b.Got = `"c"`
	if a.Key() != b.Key() {
		t.Errorf("Key differs only by Got: %q vs %q", a.Key(), b.Key())
	}
	c := a
	c.Pointer = "/data/description"
	if a.Key() == c.Key() {
		t.Errorf("Key is the same for two pointers: %q", a.Key())
	}
}

func TestFindingStringAndJSON(t *testing.T) {
	f := Finding{Operation: "deleteEvaluation", Pointer: "status", Rule: "refused", Expected: "409", Got: "200", Decision: "D-13", Class: Decided}
	if got, want := f.String(), "status: refused: want 409, got 200 (D-13)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"class":"decided"`, `"side":"server"`, `"text":"status: refused: want 409, got 200 (D-13)"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	var back Finding
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != f {
		t.Errorf("round trip: got %+v, want %+v", back, f)
	}
}
