package conformance

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"contractkit/report"
	"contractkit/spec"
)

// CLAUSES.md is generated from the checks; a stale copy fails here (and in
// `make check-clauses`). Regenerate with
// `go run ./cmd/conformance --clauses > conformance/CLAUSES.md`.
func TestClausesDocumentIsCurrent(t *testing.T) {
	code, out := runChild(t, "--clauses")
	if code != ExitPass {
		t.Fatalf("--clauses: exit %d\n%s", code, out)
	}
	checkedIn, err := os.ReadFile("CLAUSES.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(checkedIn) != out {
		t.Errorf("conformance/CLAUSES.md is stale: run `go run ./cmd/conformance --clauses > conformance/CLAUSES.md`")
	}

	// Every decision a check names is a row of spec/DECISIONS.md.
	decisions, err := os.ReadFile("../spec/DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^### (D-\d+)$`).FindAllStringSubmatch(out, -1) {
		if !strings.Contains(string(decisions), "| "+m[1]+" |") {
			t.Errorf("checks name %s, which spec/DECISIONS.md does not have", m[1])
		}
	}
}

func TestClassLabels(t *testing.T) {
	if got, want := strings.Join(declared("5.3", "1.2", "D-17").Labels(), " "), "declared seed:5.3 seed:1.2 D-17"; got != want {
		t.Errorf("declared labels = %q, want %q", got, want)
	}
	if got, want := strings.Join(decidedBy("D-13", "3.1.1").Labels(), " "), "decided D-13 seed:3.1.1"; got != want {
		t.Errorf("decided labels = %q, want %q", got, want)
	}
}

// Every operation of the contract names its seed clause (its x-seed mark,
// read by opClause), a clause of report.SeedClauses.
func TestEveryOperationHasAClause(t *testing.T) {
	known := map[string]bool{}
	for _, c := range report.SeedClauses {
		known[c.ID] = true
	}
	for _, op := range spec.Strict().Operations {
		switch clause := opClause(op.ID); {
		case clause == "":
			t.Errorf("operation %s (%s %s) has no x-seed clause in the contract", op.ID, op.Method, op.Path)
		case !known[clause]:
			t.Errorf("operation %s has clause %s, which is not in report.SeedClauses", op.ID, clause)
		}
	}
}
