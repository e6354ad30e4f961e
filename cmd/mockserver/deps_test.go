package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheMockDoesNotLinkTheSuite: the mock links the mutation wrappers (for
// --break) but neither the suite's test framework nor its matchers (the
// runner, which reads the suite's reports, is package mutation/runner), nor
// package testing, nor the contract's test companion (spec/spectest).
func TestTheMockDoesNotLinkTheSuite(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "contractkit/mutation\n") {
		t.Fatalf("go list -deps named %d packages, without contractkit/mutation: %s", len(deps), out)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/onsi/ginkgo") || strings.HasPrefix(p, "github.com/onsi/gomega") ||
			p == "testing" || strings.HasPrefix(p, "testing/") || p == "contractkit/spec/spectest" {
			t.Errorf("cmd/mockserver depends on %s", p)
		}
	}
}
