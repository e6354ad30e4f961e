package budget

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"contractkit/spec"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[Kind]int // nil entries: not capped
		str  string
	}{
		{"", map[Kind]int{}, ""},
		{"   ", map[Kind]int{}, ""},
		{"models=1", map[Kind]int{spec.CostModels: 1}, "models=1"},
		{" models = 1 , evaluation-runs=2 ", map[Kind]int{spec.CostModels: 1, spec.CostEvaluationRuns: 2}, "models=1,evaluation-runs=2"},
		{"all=0", map[Kind]int{spec.CostModels: 0, spec.CostDatasets: 0, spec.CostEvaluations: 0, spec.CostEvaluationRuns: 0, spec.CostConversations: 0, spec.CostInferences: 0}, "all=0"},
		// Later settings win, in either direction.
		{"all=0,inferences=5", map[Kind]int{spec.CostModels: 0, spec.CostDatasets: 0, spec.CostEvaluations: 0, spec.CostEvaluationRuns: 0, spec.CostConversations: 0, spec.CostInferences: 5},
			"models=0,datasets=0,evaluations=0,evaluation-runs=0,conversations=0,inferences=5"},
		{"inferences=5,all=2", map[Kind]int{spec.CostModels: 2, spec.CostDatasets: 2, spec.CostEvaluations: 2, spec.CostEvaluationRuns: 2, spec.CostConversations: 2, spec.CostInferences: 2}, "all=2"},
		{"models=3,models=1", map[Kind]int{spec.CostModels: 1}, "models=1"},
		{"all=1,datasets=unlimited", map[Kind]int{spec.CostModels: 1, spec.CostEvaluations: 1, spec.CostEvaluationRuns: 1, spec.CostConversations: 1, spec.CostInferences: 1},
			"models=1,evaluations=1,evaluation-runs=1,conversations=1,inferences=1"},
	} {
		b, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		for _, k := range spec.CostKinds() {
			n, limited := b.Limit(k)
			w, wantLimited := tc.want[k]
			if limited != wantLimited || n != w {
				t.Errorf("Parse(%q).Limit(%s) = %d, %v; want %d, %v", tc.in, k, n, limited, w, wantLimited)
			}
		}
		if got := b.String(); got != tc.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.str)
		}
		// String is Parse's syntax: it reads back to the same budget.
		back, err := Parse(b.String())
		if err != nil || back.String() != b.String() {
			t.Errorf("Parse(%q) does not read back: %q, %v", b.String(), back.String(), err)
		}
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"modles=1", `unknown kind "modles" (kinds: models, datasets, evaluations, evaluation-runs, conversations, inferences, or all)`},
		{"models", `"models" is not KIND=N`},
		{"models=", `models: "" is not a whole number`},
		{"models=x", `models: "x" is not a whole number 0 or more, nor "unlimited"`},
		{"models=-1", `models: "-1" is not a whole number`},
		{"models=+1", `models: "+1" is not a whole number`},
		{"models=1.5", `models: "1.5" is not a whole number`},
		{"models=99999999", "99999999 is over 1000000"},
		{"models=1,,datasets=2", "an empty setting"},
		{"models=1,", "an empty setting"},
		{"=3", `unknown kind ""`},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): got %v, want an error containing %s", tc.in, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), `budget "`+tc.in+`"`) {
			t.Errorf("Parse(%q): %v does not quote the setting", tc.in, err)
		}
	}
}

// TestSetIsAFlagThatLayers: --profile's budget first, then --budget on
// top; a bad setting leaves the budget as it was.
func TestSetIsAFlagThatLayers(t *testing.T) {
	var b Budget
	var _ flag.Value = &b
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&b, "budget", "")
	if err := fs.Parse([]string{"--budget", "all=1", "--budget", "inferences=9"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Limit(spec.CostInferences); n != 9 {
		t.Errorf("inferences: %d, want 9 (the later flag wins)", n)
	}
	if n, _ := b.Limit(spec.CostModels); n != 1 {
		t.Errorf("models: %d, want 1 (kept from the earlier flag)", n)
	}
	before := b.String()
	if err := b.Set("models=0,bogus=1"); err == nil {
		t.Fatal("a bad setting was accepted")
	}
	if b.String() != before {
		t.Errorf("a refused setting changed the budget: %q, was %q", b.String(), before)
	}
}

func TestReadOnly(t *testing.T) {
	for in, want := range map[string]bool{
		"all=0": true, "": false, "all=1": false, "all=0,inferences=1": false,
		"models=0,datasets=0,evaluations=0,evaluation-runs=0,conversations=0":              false, // inferences uncapped
		"models=0,datasets=0,evaluations=0,evaluation-runs=0,conversations=0,inferences=0": true,
	} {
		b, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.ReadOnly(); got != want {
			t.Errorf("Parse(%q).ReadOnly() = %v, want %v", in, got, want)
		}
	}
}

func TestPresets(t *testing.T) {
	if got := Presets(); len(got) == 0 || got[0] != "deployment" {
		t.Fatalf("Presets() = %v, want deployment among them", got)
	}
	for _, name := range Presets() {
		b, err := Preset(name)
		if err != nil {
			t.Fatalf("preset %s: %v", name, err)
		}
		// A preset caps every kind: a deployment run never spends
		// without a bound.
		for _, k := range spec.CostKinds() {
			if _, limited := b.Limit(k); !limited {
				t.Errorf("preset %s does not cap %s", name, k)
			}
		}
	}
	d, _ := Preset("deployment")
	if n, _ := d.Limit(spec.CostModels); n != 1 {
		t.Errorf("deployment trains %d models, want at most 1", n)
	}
	if n, _ := d.Limit(spec.CostEvaluationRuns); n != 1 {
		t.Errorf("deployment runs %d evaluations, want at most 1", n)
	}
	if s, _ := Preset("smoke"); !s.ReadOnly() {
		t.Errorf("smoke = %s, want a read-only budget (all=0)", s)
	}
	if _, err := Preset("staging"); !errors.Is(err, ErrNoPreset) || !strings.Contains(err.Error(), "deployment") {
		t.Errorf("unknown preset: got %v, want ErrNoPreset naming the presets", err)
	}
}
