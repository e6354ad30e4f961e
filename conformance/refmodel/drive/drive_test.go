package drive

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"contractkit/fixtures"
	"contractkit/spec"
)

// Every upload the generator sends is an embedded fixture: a name that
// reads nothing would send an empty file where a readable one was meant.
func TestFileSetsAreFixtures(t *testing.T) {
	for _, set := range fileSets {
		for _, name := range set {
			if _, err := fixtures.ReadFile(name); err != nil {
				t.Errorf("file set names %s: %v", name, err)
			}
		}
	}
	if _, err := fixtures.ReadFile("employee-handbook.md"); err != nil {
		t.Error(err)
	}
}

// A replay file keeps the newest line of each seed, newest first, and
// refuses a line that says no call to replay.
func TestReplayFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	if seqs, err := ReadReplay(path); err != nil || seqs != nil {
		t.Fatalf("no file: %v %v", seqs, err)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 3, Calls: 10}, {Seed: 4, Calls: 20}}); err != nil {
		t.Fatal(err)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 3, Calls: 30, Finding: "f"}}); err != nil {
		t.Fatal(err)
	}
	seqs, err := ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0].Seed != 3 || seqs[0].Calls != 30 || seqs[1].Seed != 4 {
		t.Fatalf("read %+v", seqs)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 5}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReplay(path); err == nil {
		t.Fatal("a line with no calls was read")
	}
}

// The driver names no operation: its tables come from the contract
// (package inputs), so an operation added, renamed or removed changes what
// it sends without a line of it. Every string literal of its non-test
// files is checked against the contract's operationIds.
func TestTheDriverNamesNoOperation(t *testing.T) {
	ops := map[string]bool{}
	for _, op := range spec.Strict().Operations {
		ops[op.ID] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && ops[s] {
					t.Errorf("%s names the operation %s", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
}
