package mutation

import (
	"strings"
	"testing"
)

// The input mutants cover each shape of request the suite once did not
// send (issue 31): two faults at once, encodings, ids spelt wrong, a call
// repeated, calls at once, a resource's state; each runs with the Explore
// area only (Model), and the variants beside them are valid.
func TestInputMutantsCoverEveryShape(t *testing.T) {
	shapes := map[string]int{}
	for _, m := range inputMutants {
		if !m.Model || m.Valid || m.Area != "model" {
			t.Errorf("%s: an input mutant is Model, not valid, in area model", m.Name)
		}
		shape, _, _ := strings.Cut(m.Name, "-")
		shapes[shape]++
	}
	for shape, least := range map[string]int{"pair": 3, "encoding": 5, "id": 2, "repeat": 2, "burst": 1, "state": 3} {
		if shapes[shape] < least {
			t.Errorf("%d input mutants of shape %s, want at least %d", shapes[shape], shape, least)
		}
	}
	for _, v := range append(append([]Mutant{}, inputVariants...), inputLatitude...) {
		if !v.Valid || !strings.HasPrefix(v.Name, "valid-") {
			t.Errorf("%s: a variant", v.Name)
		}
	}
	for _, v := range inputLatitude {
		if !v.Model {
			t.Errorf("%s: a variant where the model has latitude is Model", v.Name)
		}
	}
}
