package opindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"contractkit/mockserver"
	"contractkit/mutation"
	"contractkit/recording"
	"contractkit/spec"
)

// tables are the per-operation tables of the kit: one line each.
var tables = []func() (name, file string, entries map[string]string){
	mockserver.OperationTable,
	recording.OperationTable,
	mutation.OperationTable,
}

// problems lists, table by table, the operations of c a table lacks and
// the entries that name no operation of c, one line each, naming the table
// and its file.
func problems(c *spec.Contract, tabs []func() (string, string, map[string]string)) []string {
	var out []string
	for _, tab := range tabs {
		name, file, entries := tab()
		where := fmt.Sprintf("%s, in %s", name, file)
		known := map[string]bool{}
		for _, op := range c.Operations {
			known[op.ID] = true
			why, ok := entries[op.ID]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s: no entry for %s (%s %s), and no exemption with its reason", where, op.ID, op.Method, op.Path))
			case why != "" && strings.TrimSpace(why) == "":
				out = append(out, fmt.Sprintf("%s: the exemption of %s gives no reason", where, op.ID))
			}
		}
		var stale []string
		for id := range entries {
			if !known[id] {
				stale = append(stale, id)
			}
		}
		slices.Sort(stale)
		for _, id := range stale {
			out = append(out, fmt.Sprintf("%s: %s is no operation of the contract", where, id))
		}
	}
	return out
}

func TestEveryOperationIsInEveryTable(t *testing.T) {
	for _, p := range problems(spec.Strict(), tables) {
		t.Error(p)
	}
}

// patchDataset is an endpoint the contract does not have, as an outside
// review imagined one: PATCH /api/v1/user/dataset/{dataset_id}.
const patchDataset = `    patch:
      operationId: patchDataset
      tags: [datasets]
      summary: Rename a dataset
      responses:
        '200':
          description: The renamed dataset.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DatasetEnvelope' }
`

// TestAnAddedEndpointListsTheWork: with one operation added to the
// contract, every table is named, with its file and the new operation, and
// an entry whose operation is gone is named too.
func TestAnAddedEndpointListsTheWork(t *testing.T) {
	anchor := "  /api/v1/user/dataset/{dataset_id}:\n    parameters:\n      - $ref: '#/components/parameters/DatasetId'\n"
	raw := strings.Replace(string(spec.Document), anchor, anchor+patchDataset, 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract no longer has the dataset path item this test extends")
	}
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := problems(c, tables)
	if len(got) != len(tables) {
		t.Errorf("%d problems, want one per table (%d):\n%s", len(got), len(tables), strings.Join(got, "\n"))
	}
	for _, tab := range tables {
		name, file, _ := tab()
		want := fmt.Sprintf("%s, in %s: no entry for patchDataset (PATCH /api/v1/user/dataset/{dataset_id}), and no exemption with its reason", name, file)
		if !slices.Contains(got, want) {
			t.Errorf("no line %q; got:\n%s", want, strings.Join(got, "\n"))
		}
	}

	stale := func() (string, string, map[string]string) {
		return "a table", "x/y.go", map[string]string{"getDataset": "", "patchDataset": "", "renameDataset": "gone"}
	}
	p := problems(spec.Strict(), []func() (string, string, map[string]string){stale})
	for _, want := range []string{
		"a table, in x/y.go: patchDataset is no operation of the contract",
		"a table, in x/y.go: renameDataset is no operation of the contract",
		"a table, in x/y.go: no entry for listModels (GET /api/v1/user/model), and no exemption with its reason",
	} {
		if !slices.Contains(p, want) {
			t.Errorf("no line %q; got:\n%s", want, strings.Join(p, "\n"))
		}
	}
	blank := func() (string, string, map[string]string) {
		return "a table", "x/y.go", map[string]string{"getDataset": " "}
	}
	if p := problems(spec.Strict(), []func() (string, string, map[string]string){blank}); !slices.Contains(p, "a table, in x/y.go: the exemption of getDataset gives no reason") {
		t.Errorf("an exemption without a reason is not named; got:\n%s", strings.Join(p, "\n"))
	}
}
