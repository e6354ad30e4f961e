package conformance

import (
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"contractkit/report"
)

// The head start (early.go): what the selected checks wait for longest is
// started before any check, and only when a selected check needs it.

func TestSelectedFollowsLabelFilterAndFocus(t *testing.T) {
	var reg registry
	reg.open = []frame{{"Conversations", []string{"conversations"}}}
	reg.registered("MUST list the conversation", []string{labelNeedsModel, "declared"})
	reg.registered("MUST refuse a list without model_id", []string{"declared"})
	reg.open = []frame{{"Authentication", []string{"auth"}}}
	reg.registered("MUST refuse a missing key", []string{"declared"})
	for _, c := range []struct {
		filter, focus string
		want          bool
	}{
		{"", "", true},
		{"auth", "", false},
		{"conversations", "", true},
		{"!" + labelNeedsModel, "", false},
		{"conversations && !declared", "", false},
		{"", "without model_id", false},
		{"", "Conversations MUST list", true}, // the containers' texts count, as in Ginkgo
		{"auth || conversations", "missing key", false},
	} {
		e := &env{cfg: Config{LabelFilter: c.filter, Focus: c.focus}, reg: reg}
		if got := e.selected(labelNeedsModel); got != c.want {
			t.Errorf("label filter %q, focus %q: selected = %t, want %t", c.filter, c.focus, got, c.want)
		}
	}
}

// A run of checks that wait on two trainings (the shared model's and the
// Models area's own) starts both before any check polls a model.
func TestHeadStartCreatesBothModelsFirst(t *testing.T) {
	entries := runJournal(t, "--label-filter", "models || conversations")
	model := regexp.MustCompile("^" + regexp.QuoteMeta(pathModels) + `/\d+$`)
	var creates []int
	firstPoll := -1
	for i, en := range entries {
		switch {
		case en.Method == http.MethodPost && en.Path == pathModels && en.Status/100 == 2:
			creates = append(creates, i)
		case en.Method == http.MethodGet && model.MatchString(en.Path) && firstPoll < 0:
			firstPoll = i
		}
	}
	if len(creates) < 2 || firstPoll < 0 || creates[1] > firstPoll {
		t.Fatalf("models created at calls %v, the first poll of a model at call %d: the two trainings did not start first", creates, firstPoll)
	}
	for _, en := range entries[:creates[1]] {
		if en.Method != http.MethodPost || (en.Path != pathModels && en.Path != pathDatasets) {
			t.Errorf("%s %s came before the trainings started", en.Method, en.Path)
		}
	}
}

// The checks use the model the head start made: a run of checks that need
// the shared model trains exactly one.
func TestHeadStartIsTheSharedModel(t *testing.T) {
	n := 0
	for _, en := range runJournal(t, "--label-filter", "conversations || inference") {
		if en.Method == http.MethodPost && en.Path == pathModels {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d model creates, want 1: a check made the shared model again", n)
	}
}

// runJournal runs the suite against the mock with long trainings (driven
// clock) and returns the account's journal; the run must pass.
func runJournal(t *testing.T, args ...string) []journalEntry {
	t.Helper()
	base, admin := slowMock(t, nil)
	code, out := runChild(t, append([]string{"--base-url", base, "--api-key", testKey, "--timeout", "60s", "--explore", "0"}, args...)...)
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	return journal(t, admin)
}

// A run whose selected checks need no model trains none: a label filter or
// a focus that leaves them out leaves the head start out too.
func TestNoHeadStartWhenNoSelectedCheckNeedsIt(t *testing.T) {
	for _, args := range [][]string{
		{"--label-filter", "auth"},
		{"--label-filter", "conversations", "--focus", "refuse a conversation without model_id"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			for _, en := range runJournal(t, args...) {
				if en.Method == http.MethodPost && (en.Path == pathModels || en.Path == pathDatasets) {
					t.Errorf("%s %s → %d in a run that needs no model", en.Method, en.Path, en.Status)
				}
			}
		})
	}
}

// Each part of the explore phase runs only when one of its checks is
// selected: '!explore:model' explores properties alone, and the reverse.
func TestExplorePartsFollowTheSelection(t *testing.T) {
	for _, c := range []struct {
		filter, ran, absent string
	}{
		{"explore && !" + labelExploreModel, "requests spent exploring", "reference model, seed"},
		{labelExploreModel, "reference model, seed", "requests spent exploring"},
	} {
		t.Run(c.filter, func(t *testing.T) {
			base, _ := slowMock(t, nil)
			code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", "30s", "--explore", "30", "--seed", "2", "--label-filter", c.filter)
			if code != ExitPass {
				t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
			}
			if !strings.Contains(out, c.ran) || strings.Contains(out, c.absent) {
				t.Errorf("the summary should say %q and not %q:\n%s", c.ran, c.absent, out)
			}
		})
	}
}

// The areas that wait on a run of their own go after the others, in the
// order that lets the waits overlap: Evaluations (its run waits while the
// Models area's training goes on), Models, then Explore. Every spec of an
// earlier rank starts before every spec of a later one, whatever Ginkgo's
// shuffle.
func TestWaitingAreasGoLast(t *testing.T) {
	base, _ := slowMock(t, nil)
	file := filepath.Join(t.TempDir(), "r.json")
	// The areas of every rank, the light ones of rank 0 only.
	code, out := runChild(t, "--base-url", base, "--api-key", testKey, "--timeout", "60s", "--explore", "5", "--seed", "4", "--json", file,
		"--label-filter", "envelope || datasets || limits || evaluations || models || explore")
	if code != ExitPass {
		t.Fatalf("exit %d, want %d\n%s", code, ExitPass, out)
	}
	r, err := report.ReadJSON(file)
	if err != nil {
		t.Fatal(err)
	}
	rank := func(area string) int { return slices.Index([]string{"Evaluations", areaModels, "Explore"}, area) + 1 }
	last, lastArea := 0, ""
	for _, c := range r.Checks {
		if c.State == report.NotSelected {
			continue
		}
		area := c.Path[0]
		if r := rank(area); r < last {
			t.Errorf("%s ran after %s", area, lastArea)
		} else if r > last {
			last, lastArea = r, area
		}
	}
	if last != rank("Explore") {
		t.Errorf("the last area was %q, want Explore", lastArea)
	}
}
