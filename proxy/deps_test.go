package proxy

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The light layers (exchange, judge, bound, report, the suite's client),
// the proxy's core, its command and the recorder never link the suite's
// test frameworks: no Ginkgo package at all, no Gomega, rapid, gofakeit or
// testing, and nothing of golang.org/x/tools. Nothing is exempt. The
// proxy's core links less still: no recorder (the mock's text extraction
// and a PDF library come with it), no flag parsing; and a program of the
// core alone links no coverage recorder either.

// forbidden says whether a package may not be linked by any of them.
func forbidden(p string) bool {
	for _, prefix := range []string{"github.com/onsi/", "golang.org/x/tools/", "github.com/brianvoe/gofakeit", "pgregory.net/rapid"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return p == "testing" || strings.HasPrefix(p, "testing/")
}

// forbiddenInCore adds what the proxy's core may not link: the recorder
// and what it brings (the mock's text extraction, the PDF library), the
// command line.
func forbiddenInCore(p string) bool {
	switch {
	case forbidden(p),
		p == "flag", p == "contractkit/internal/envflag",
		p == "contractkit/recording", strings.HasPrefix(p, "contractkit/mockserver"),
		strings.HasPrefix(p, "github.com/ledongthuc/pdf"),
		p == "contractkit/proxy/proxycmd":
		return true
	}
	return false
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

func TestTheLightLayersAndTheProxyLinkNoTestFramework(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	for _, c := range []struct {
		pkg       string
		forbidden func(string) bool
	}{
		{"contractkit/exchange", forbidden},
		{"contractkit/judge", forbidden},
		{"contractkit/bound", forbidden},
		{"contractkit/report", forbidden},
		{"contractkit/conformance/client", forbidden},
		{"contractkit/proxy", forbiddenInCore},
		{"contractkit/proxy/internal/corebin", forbiddenInCore},
		{"contractkit/proxy/proxycmd", forbidden},
		{"contractkit/recording", forbidden},
	} {
		order, imports := importGraph(t, goTool, c.pkg)
		if len(order) < 10 || !slices.Contains(order, c.pkg) {
			t.Fatalf("go list -deps %s named %d packages", c.pkg, len(order))
		}
		for _, v := range violations(order, imports, c.pkg, c.forbidden) {
			t.Errorf("%s links %s", c.pkg, v)
		}
	}
}

// A program of the proxy's core alone (proxy/internal/corebin) links no
// code of the coverage recorder, the recorder or the flag package: its
// binary's symbols say so, where a package list cannot (package report
// names the coverage's Report type, in the package of its Recorder).
func TestTheCoreProgramLinksNoRecorder(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build with")
	}
	bin := filepath.Join(t.TempDir(), "corebin")
	if out, err := exec.Command(goTool, "build", "-o", bin, "contractkit/proxy/internal/corebin").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(goTool, "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	proxyCode := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		sym := f[len(f)-1]
		proxyCode = proxyCode || strings.HasPrefix(sym, "contractkit/proxy.(*Proxy).ServeHTTP")
		for _, banned := range []string{"contractkit/coverage.(*Recorder)", "contractkit/recording.", "contractkit/mockserver", "flag.", "github.com/onsi/", "github.com/ledongthuc/pdf."} {
			if strings.HasPrefix(sym, banned) {
				t.Errorf("the core's program links %s", sym)
			}
		}
	}
	if !proxyCode {
		t.Fatal("no proxy code in the core's program: the symbols were not read")
	}
}

// The check itself: a forbidden package is found, with the chain that
// brings it in and the package of ours to change.
func TestDependencyViolationsNameTheChain(t *testing.T) {
	imports := map[string][]string{
		"contractkit/proxy":               {"contractkit/judge", "contractkit/report", "fmt"},
		"contractkit/judge":               {"contractkit/conformance/explore", "fmt"},
		"contractkit/conformance/explore": {"pgregory.net/rapid"},
		"pgregory.net/rapid":              {"testing"},
		"contractkit/report":              {"github.com/onsi/ginkgo/v2/types"},
		"github.com/onsi/ginkgo/v2/types": nil,
	}
	order := []string{"fmt", "testing", "pgregory.net/rapid", "contractkit/conformance/explore", "contractkit/judge",
		"github.com/onsi/ginkgo/v2/types", "contractkit/report", "contractkit/proxy"}
	got := violations(order, imports, "contractkit/proxy", forbidden)
	want := []string{
		"testing (brought in by contractkit/conformance/explore: contractkit/proxy → contractkit/judge → contractkit/conformance/explore → pgregory.net/rapid → testing)",
		"pgregory.net/rapid (brought in by contractkit/conformance/explore: contractkit/proxy → contractkit/judge → contractkit/conformance/explore → pgregory.net/rapid)",
		"github.com/onsi/ginkgo/v2/types (brought in by contractkit/report: contractkit/proxy → contractkit/report → github.com/onsi/ginkgo/v2/types)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for p, want := range map[string]bool{
		"github.com/onsi/ginkgo/v2": true, "github.com/onsi/ginkgo/v2/internal/reporters": true, "github.com/onsi/ginkgo/v2/types": true,
		"golang.org/x/tools/go/packages": true, "golang.org/x/text/language": false, "github.com/onsi/gomega/types": true,
		"github.com/brianvoe/gofakeit/v7": true, "testing/fstest": true, "flag": false, "contractkit/coverage": false,
	} {
		if got := forbidden(p); got != want {
			t.Errorf("forbidden(%s) = %v, want %v", p, got, want)
		}
	}
	for p, want := range map[string]bool{"flag": true, "contractkit/recording": true, "github.com/ledongthuc/pdf": true,
		"contractkit/mockserver/retrieval": true, "contractkit/report": false, "contractkit/coverage": false} {
		if got := forbiddenInCore(p); got != want {
			t.Errorf("forbiddenInCore(%s) = %v, want %v", p, got, want)
		}
	}
}
