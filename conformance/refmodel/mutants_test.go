package refmodel_test

import (
	"os"
	"testing"

	"contractkit/conformance/refmodel/drive"
	"contractkit/judge"
	"contractkit/mutation"
)

// The model's power and precision: each mutant only the model kills (a
// broken server, mutation.Modelled) breaks a prediction, in the class its
// rule has; each valid variant (a server that bends within the contract)
// breaks none the reference declares, and those where the model has
// latitude break none at all.

// mutantSteps are the random steps a run against one mutant or variant
// takes: none, since the phases before them (coverage of every operation,
// intent and named value, the tour of states, the effects) reach every
// trigger whatever the seed.
const mutantSteps = 0

// proofs skips the driven proofs (every mutant, every variant, lost
// answers) under the race detector: dozens of driven runs would take
// minutes, and the model has one caller (the mock's concurrency is tested
// in its own package). make model-proof runs them.
func proofs(t *testing.T) {
	if raceOn {
		t.Skip("driven proofs: run without -race (make model-proof)")
	}
}

func serveWrapped(t *testing.T, m mutation.Mutant) server {
	return startMock(t, m.Wrapper(mutation.Options{Keys: []string{keyA, keyB}}))
}

func TestModelKillsEachModelledMutant(t *testing.T) {
	proofs(t)
	only := os.Getenv("MODEL_MUTANT")
	for _, m := range mutation.Modelled() {
		if m.Valid || only != "" && m.Name != only {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			kills := func(f judge.Finding) bool {
				return f.Class == judge.Declared || m.Decided != "" && f.Class == judge.Decided
			}
			r := runUntil(t, serveWrapped(t, m), kills)
			for _, f := range r.Found {
				if kills(f.Finding) {
					t.Logf("killed: %s %s", f.Finding.Operation, f.Finding)
					return
				}
			}
			classes := "declared"
			if m.Decided != "" {
				classes = "declared or decided"
			}
			t.Errorf("%s survives (%s): no %s finding in %d calls; findings: %d", m.Name, m.Breaks, classes, len(r.Steps), len(r.Found))
		})
	}
}

func TestModelPassesEachVariant(t *testing.T) {
	proofs(t)
	only := os.Getenv("MODEL_MUTANT")
	latitude := map[string]bool{}
	var variants []mutation.Mutant
	for _, m := range mutation.Modelled() {
		if m.Valid {
			latitude[m.Name] = true
			variants = append(variants, m)
		}
	}
	for _, m := range mutation.List() {
		if m.Valid && !m.Model && m.Name != "valid-slow-answers" {
			variants = append(variants, m)
		}
	}
	for _, m := range variants {
		if only != "" && m.Name != only {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			r := run(t, serveWrapped(t, m), 1, mutantSteps)
			var bad []drive.Found
			for _, f := range r.Found {
				if f.Finding.Class == judge.Declared || latitude[m.Name] {
					bad = append(bad, f)
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s (%s) is within the contract, yet:\n%s", m.Name, m.Breaks, r.Explain(bad))
			}
		})
	}
}
