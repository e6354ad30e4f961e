package budget_test

import (
	"fmt"
	"os"

	"contractkit/conformance/budget"
	"contractkit/spec"
)

// A read-only run, but for five inferences: settings apply left to right.
func ExampleParse() {
	b, err := budget.Parse("all=0,inferences=5")
	fmt.Println(err, b.ReadOnly())
	n, limited := b.Limit(spec.CostInferences)
	fmt.Println(n, limited)
	// Output:
	// <nil> false
	// 5 true
}

// One run's ledger: a model trained and removed, a second one refused, a
// dataset left behind.
func ExampleLedger() {
	b, _ := budget.Parse("models=1")
	l := budget.NewLedger(b)
	t, _ := l.Take(spec.CostModels)
	t.Created("21")
	if _, err := l.Take(spec.CostModels); err != nil {
		fmt.Println("skipped:", err)
	}
	l.Removed(spec.CostModels, "21")
	t, _ = l.Take(spec.CostDatasets)
	t.Created("8")
	l.WriteTable(os.Stdout)
	// Output:
	// skipped: the budget for models is spent (--budget models=1)
	// kind             budget  taken  created  started  removed  denied
	// models           1       1      1        0        1        1
	// datasets         -       1      1        0        0        0
	// evaluations      -       0      0        0        0        0
	// evaluation-runs  -       0      0        0        0        0
	// conversations    -       0      0        0        0        0
	// inferences       -       0      0        0        0        0
	// Left behind: 1: datasets 8
}
