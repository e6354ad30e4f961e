package opindex

import (
	"fmt"
	"slices"
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
