package budget_test

import (
	"fmt"

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
	for _, r := range l.Rows()[:2] {
		fmt.Println(r)
	}
	fmt.Println(l.Left())
	// Output:
	// skipped: the budget for models is spent (--budget models=1)
	// models: budget 1, taken 1, created 1, started 0, removed 1, denied 1, left behind: none
	// datasets: budget -, taken 1, created 1, started 0, removed 0, denied 0, left behind: 8
	// [datasets 8]
}
