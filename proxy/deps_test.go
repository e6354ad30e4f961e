package proxy

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The proxy and the recorder judge and write with the light layers (exchange,
// judge, report, client) and never link the suite's test frameworks: no
// Ginkgo DSL or machinery (its report types and writers excepted), no
// Gomega, rapid, gofakeit or testing. The judging layers link no Ginkgo at
// all.

// forbiddenFor says whether a package may not be linked; light are the
// judging layers, which may not link Ginkgo's report packages either.
func forbiddenFor(light bool) func(pkg string) bool {
	return func(p string) bool {
		switch {
		case p == "testing" || strings.HasPrefix(p, "testing/"),
			strings.HasPrefix(p, "github.com/onsi/gomega"),
			strings.HasPrefix(p, "pgregory.net/rapid"),
			strings.HasPrefix(p, "github.com/brianvoe/gofakeit"):
			return true
		case light:
			return strings.HasPrefix(p, "github.com/onsi/ginkgo")
		case p == "github.com/onsi/ginkgo/v2":
			return true // the DSL
		case strings.HasPrefix(p, "github.com/onsi/ginkgo/v2/internal"):
			return p != "github.com/onsi/ginkgo/v2/internal/reporters" // what the report writers pull in
		}
		return false
	}
}

// importGraph reads `go list -deps` of pkg: every package it links and
// what each imports.
func importGraph(t *testing.T, goTool, pkg string) (order []string, imports map[string][]string) {
	t.Helper()
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	imports = map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		order = append(order, f[0])
		imports[f[0]] = f[1:]
	}
	return order, imports
}

// chain is the shortest import chain from root to pkg ("a → b → pkg"), so
// a failure names who brings a package in: the last package of ours on it
// is the one to change.
func chain(imports map[string][]string, root, pkg string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == pkg {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append(path, p)
			}
			slices.Reverse(path)
			return path
		}
		for _, q := range imports[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

// violations lists every forbidden package root links, each with its chain
// and the first package of ours that imports outside our module on it.
func violations(order []string, imports map[string][]string, root string, forbidden func(string) bool) []string {
	var out []string
	for _, p := range order {
		if !forbidden(p) {
			continue
		}
		path := chain(imports, root, p)
		culprit := ""
		for i := len(path) - 2; i >= 0; i-- {
			if strings.HasPrefix(path[i], "contractkit/") || path[i] == "contractkit" {
				culprit = path[i]
				break
			}
		}
		out = append(out, p+" (brought in by "+culprit+": "+strings.Join(path, " → ")+")")
	}
	return out
}

func TestTheProxyAndTheRecorderLinkNoTestFramework(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	for _, c := range []struct {
		pkg   string
		light bool
	}{
		{"contractkit/proxy", false},
		{"contractkit/recording", false},
		{"contractkit/judge", true},
		{"contractkit/exchange", true},
		{"contractkit/conformance/client", true},
	} {
		order, imports := importGraph(t, goTool, c.pkg)
		if len(order) < 10 || !slices.Contains(order, c.pkg) {
			t.Fatalf("go list -deps %s named %d packages", c.pkg, len(order))
		}
		for _, v := range violations(order, imports, c.pkg, forbiddenFor(c.light)) {
			t.Errorf("%s links %s", c.pkg, v)
		}
	}
}

// The check itself: a forbidden package is found, with the chain that
// brings it in and the package of ours to change.
func TestDependencyViolationsNameTheChain(t *testing.T) {
	imports := map[string][]string{
		"contractkit/proxy":                {"contractkit/judge", "fmt"},
		"contractkit/judge":                {"contractkit/conformance/explore", "fmt"},
		"contractkit/conformance/explore":  {"pgregory.net/rapid"},
		"pgregory.net/rapid":               {"testing"},
		"github.com/onsi/ginkgo/v2/types":  nil,
		"github.com/onsi/ginkgo/v2/config": nil,
	}
	order := []string{"fmt", "testing", "pgregory.net/rapid", "contractkit/conformance/explore", "contractkit/judge", "contractkit/proxy", "github.com/onsi/ginkgo/v2/types"}
	got := violations(order, imports, "contractkit/proxy", forbiddenFor(false))
	want := []string{
		"testing (brought in by contractkit/conformance/explore: contractkit/proxy → contractkit/judge → contractkit/conformance/explore → pgregory.net/rapid → testing)",
		"pgregory.net/rapid (brought in by contractkit/conformance/explore: contractkit/proxy → contractkit/judge → contractkit/conformance/explore → pgregory.net/rapid)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for p, want := range map[string]bool{
		"github.com/onsi/ginkgo/v2": true, "github.com/onsi/ginkgo/v2/internal": true, "github.com/onsi/ginkgo/v2/internal/reporters": false,
		"github.com/onsi/ginkgo/v2/types": false, "github.com/onsi/gomega/types": true, "github.com/brianvoe/gofakeit/v7": true, "testing/fstest": true,
	} {
		if got := forbiddenFor(false)(p); got != want {
			t.Errorf("forbidden(%s) = %v, want %v", p, got, want)
		}
	}
	if !forbiddenFor(true)("github.com/onsi/ginkgo/v2/types") {
		t.Error("the judging layers may link no Ginkgo package")
	}
}
