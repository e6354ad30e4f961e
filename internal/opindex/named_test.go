package opindex

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"contractkit/conformance"
	"contractkit/spec"
)

// named is a list of operations some code names by id because what it
// does is that operation's own: the file that names them and the ids.
type named func() (file string, ids []string)

// namedLists are the kit's lists of operations named by id, one line each.
var namedLists = []named{conformance.NamedOperations}

// unnamed lists, for each named list, the ids that are no operation of c.
func unnamed(c *spec.Contract, lists []named) []string {
	var out []string
	for _, l := range lists {
		file, ids := l()
		if len(ids) == 0 {
			out = append(out, file+": names no operation; take it out of the index")
		}
		for _, id := range ids {
			if _, ok := c.Operation(id); !ok {
				out = append(out, fmt.Sprintf("%s names %s, no operation of the contract", file, id))
			}
		}
	}
	return out
}

// TestNamedOperationsAreTheContracts: every operation a package names by
// id is an operation of the contract; renamed in a copy of the contract,
// the one that names it is listed.
func TestNamedOperationsAreTheContracts(t *testing.T) {
	for _, p := range unnamed(spec.Strict(), namedLists) {
		t.Error(p)
	}
	raw := strings.Replace(string(spec.Document), "operationId: checkEvaluationName\n", "operationId: checkName\n", 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract has no checkEvaluationName to rename")
	}
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := unnamed(c, namedLists), []string{"conformance/paths.go names checkEvaluationName, no operation of the contract"}; !slices.Equal(got, want) {
		t.Errorf("with checkEvaluationName renamed: %q, want %q", got, want)
	}
}

// switchTable is a table written as a switch on an operation id in a
// function of a source file (the reference model's driver draws each
// operation's call so): every string of the switch's cases is an entry.
// It is read from the source, since a switch has no value to ask.
func switchTable(name, file, fn string) table {
	return func(*spec.Contract) (string, string, map[string]string) {
		entries := map[string]string{}
		f, err := parser.ParseFile(token.NewFileSet(), "../../"+file, nil, 0)
		if err != nil {
			entries["(unreadable: "+err.Error()+")"] = ""
			return name, file, entries
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != fn {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok || sw.Tag == nil {
					return true
				}
				for _, s := range sw.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							id, _ := strconv.Unquote(lit.Value)
							entries[id] = ""
						}
					}
				}
				return false
			})
		}
		return name, file + " " + fn + "()", entries
	}
}
