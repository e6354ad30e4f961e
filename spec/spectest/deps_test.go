package spectest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoBinaryLinksThisPackage: spectest is for tests; no command of the
// module (the mock, the suite, the runner, the load generator) may link it.
func TestNoBinaryLinksThisPackage(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "contractkit/cmd/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 {
		t.Fatalf("go list named %d commands: %s", len(lines), out)
	}
	for _, line := range lines {
		cmd, deps, _ := strings.Cut(line, " ")
		for _, d := range strings.Fields(deps) {
			if d == "contractkit/spec/spectest" {
				t.Errorf("%s links contractkit/spec/spectest", cmd)
			}
		}
	}
}
