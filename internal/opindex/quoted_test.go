package opindex

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"contractkit/internal/gotree"
	"contractkit/spec"
)

// quoted lists every quoted operation id of c — a string literal whose
// value is exactly an operationId of the contract — in the non-test Go
// files of the module tree fsys outside spec/, one line each, naming the
// file and line. Only spec/ holds the ids as literals (its generated
// constants, spec.Op…); everywhere else an operation is found by its place
// or named through its constant. Directories Go does not build (hidden
// ones, testdata, node_modules, vendor) are skipped.
func quoted(fsys fs.FS, c *spec.Contract) ([]string, error) {
	ids := map[string]bool{}
	for _, op := range c.Operations {
		ids[op.ID] = true
	}
	var out []string
	err := gotree.Files(fsys, func(dir string) bool { return dir == "spec" }, func(p string, src []byte) error {
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(p, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			if v, err := strconv.Unquote(lit); err == nil && ids[v] {
				out = append(out, fmt.Sprintf("%s:%d: the operation id %q, quoted: find the operation by its place (spec.OperationAt, ResourceNamed, Paged, its marks) or, where its behaviour is its own, name it spec.Op%s",
					p, fset.Position(pos).Line, v, strings.ToUpper(v[:1])+v[1:]))
			}
		}
		return nil
	})
	return out, err
}

// TestNoQuotedOperationIDs: no non-test Go file outside spec/ quotes an
// operation id of the contract (issue #34: the contract is the only index).
func TestNoQuotedOperationIDs(t *testing.T) {
	got, err := quoted(os.DirFS("../.."), spec.Strict())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		t.Error(p)
	}
}

// TestQuotedIDsAreFound: the scan finds an id quoted either way, in any
// directory Go builds, and nothing else: not a test file, not spec/, not
// an id inside a longer string or a comment, not a directory Go skips.
func TestQuotedIDsAreFound(t *testing.T) {
	file := func(src string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("package a\n\n" + src + "\n")} }
	fsys := fstest.MapFS{
		"a/found.go":              file(`var s = "listModels"`),
		"a/raw.go":                file("var s = []string{\"x\",\n\t`getModel`}"),
		"cmd/b/main.go":           file(`func f() { g("runInference") }`),
		"a/found_test.go":         file(`var s = "listModels"`),
		"spec/ids.go":             file(`const OpListModels = "listModels"`),
		"a/longer.go":             file(`var s = "listModels: the list" // "listModels"`),
		"a/other.go":              file(`var s = "listModel"`),
		"a/testdata/x.go":         file(`var s = "listModels"`),
		"npm/node_modules/x/y.go": file(`var s = "listModels"`),
		"a/notgo.txt":             file(`"listModels"`),
	}
	got, err := quoted(fsys, spec.Strict())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`a/found.go:3: the operation id "listModels", quoted: find the operation by its place (spec.OperationAt, ResourceNamed, Paged, its marks) or, where its behaviour is its own, name it spec.OpListModels`,
		`a/raw.go:4: the operation id "getModel", quoted: find the operation by its place (spec.OperationAt, ResourceNamed, Paged, its marks) or, where its behaviour is its own, name it spec.OpGetModel`,
		`cmd/b/main.go:3: the operation id "runInference", quoted: find the operation by its place (spec.OperationAt, ResourceNamed, Paged, its marks) or, where its behaviour is its own, name it spec.OpRunInference`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The ids are the contract's: renamed in a copy, the old one is no
	// longer found and the new one is.
	c := renamed(t, "checkEvaluationName", "checkName")
	got, err = quoted(fstest.MapFS{"a/x.go": file(`var s, t = "checkEvaluationName", "checkName"`)}, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], `"checkName"`) {
		t.Errorf("with checkEvaluationName renamed checkName: %q, want checkName found alone", got)
	}
}

// renamed is the contract with operation from renamed to.
func renamed(t *testing.T, from, to string) *spec.Contract {
	t.Helper()
	raw := strings.Replace(string(spec.Document), "operationId: "+from+"\n", "operationId: "+to+"\n", 1)
	if raw == string(spec.Document) {
		t.Fatalf("the contract has no %s to rename", from)
	}
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestARenamedOperationNamesItsConstant: an operation renamed in a copy of
// the contract is named, with the file of the constants, as one the
// contract no longer has (and the new id as one without a constant); the
// build then fails at every use of the old constant once the file is
// regenerated.
func TestARenamedOperationNamesItsConstant(t *testing.T) {
	got := problems(renamed(t, "checkEvaluationName", "checkName"), []table{kept(spec.OperationIDTable)})
	name, file, _ := spec.OperationIDTable()
	want := []string{
		fmt.Sprintf("%s, in %s: no entry for checkName (GET /api/v1/evaluations/check-name), and no exemption with its reason", name, file),
		fmt.Sprintf("%s, in %s: checkEvaluationName is no operation of the contract", name, file),
	}
	if !slices.Equal(got, want) {
		t.Errorf("with checkEvaluationName renamed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
