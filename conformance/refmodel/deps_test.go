package refmodel

import (
	"os/exec"
	"strings"
	"testing"
)

// The model is an independent implementation of the service's semantics:
// of this repository it links only the contract and the judges' finding
// type, never the mock, its store or a test framework.
func TestTheModelLinksOnlyTheContractAndTheJudge(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps named %d packages", len(deps))
	}
	// The judge's own dependencies (the exchange it judges) come with it.
	judgeDeps, err := exec.Command(goTool, "list", "-deps", "contractkit/judge").Output()
	if err != nil {
		t.Fatalf("go list -deps judge: %v", err)
	}
	allowed := map[string]bool{"contractkit/conformance/refmodel": true}
	for _, p := range strings.Fields(string(judgeDeps)) {
		allowed[p] = true
	}
	for _, p := range []string{"contractkit/spec", "contractkit/judge"} {
		if !allowed[p] {
			t.Fatalf("go list -deps judge does not name %s", p)
		}
	}
	for _, p := range deps {
		switch {
		case strings.HasPrefix(p, "contractkit/") && !allowed[p]:
			t.Errorf("the model depends on %s", p)
		case p == "testing", strings.HasPrefix(p, "pgregory.net/rapid"), strings.HasPrefix(p, "github.com/onsi/"), strings.HasPrefix(p, "github.com/brianvoe/gofakeit"):
			t.Errorf("the model links %s, a test library", p)
		}
	}
}
