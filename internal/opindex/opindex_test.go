package opindex

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"contractkit/conformance"
	"contractkit/mockserver"
	"contractkit/mutation"
	"contractkit/recording"
	"contractkit/spec"
)

// table is one per-operation table: derived from the contract c (the
// tables that read it take it), or kept in code (kept).
type table func(c *spec.Contract) (name, file string, entries map[string]string)

// kept adapts a table kept in code, which reads no contract.
func kept(f func() (name, file string, entries map[string]string)) table {
	return func(*spec.Contract) (string, string, map[string]string) { return f() }
}

// tables are the per-operation tables of the kit: one line each.
var tables = []table{
	kept(spec.OperationIDTable),
	kept(mockserver.OperationTable),
	recording.RouteTable,
	kept(mutation.OperationTable),
	conformance.ClauseTable,
	conformance.SampleTable,
	conformance.DeletionTable,
}

// problems lists, table by table, the operations of c a table lacks and
// the entries that name no operation of c, one line each, naming the table
// and its file.
func problems(c *spec.Contract, tabs []table) []string {
	var out []string
	for _, tab := range tabs {
		name, file, entries := tab(c)
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
// review imagined one: PATCH /api/v1/user/dataset/{dataset_id}, renaming a
// dataset from a JSON body, written as a developer would write it first
// (no seed clause, no request example).
const patchDataset = `    patch:
      operationId: patchDataset
      tags: [datasets]
      summary: Rename a dataset
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties: { dataset_name: { type: string } }
      responses:
        '200':
          description: The renamed dataset.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DatasetEnvelope' }
              examples:
                renamed: { $ref: '#/components/examples/Dataset' }
`

// datasetItem is the path item patchDataset joins.
const datasetItem = "  /api/v1/user/dataset/{dataset_id}:\n    parameters:\n      - $ref: '#/components/parameters/DatasetId'\n"

// withOperation is the contract with op added to the path item at anchor.
func withOperation(t *testing.T, anchor, op string) *spec.Contract {
	t.Helper()
	raw := strings.Replace(string(spec.Document), anchor, anchor+op, 1)
	if raw == string(spec.Document) {
		t.Fatal("the contract no longer has the path item this test extends")
	}
	c, err := spec.Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// theWork is the index's lines for the new operation id, in table order.
func theWork(c *spec.Contract, id string) []string {
	var out []string
	for _, p := range problems(c, tables) {
		if strings.Contains(p, " "+id+" ") {
			out = append(out, p)
		}
	}
	return out
}

// TestAnAddedEndpointListsTheWork: with one operation added to the
// contract, every table that needs an entry for it is named, with its file
// and the new operation, and only those: a table derived from the contract
// that derives the new operation's entry (its deletion checks: it deletes
// nothing) stays silent. An entry whose operation is gone is named too.
func TestAnAddedEndpointListsTheWork(t *testing.T) {
	c := withOperation(t, datasetItem, patchDataset)
	got := problems(c, tables)
	if others := slices.DeleteFunc(slices.Clone(got), func(p string) bool { return strings.Contains(p, " patchDataset ") }); len(others) > 0 {
		t.Errorf("problems beyond the new operation:\n%s", strings.Join(others, "\n"))
	}
	line := func(name, file string) string {
		return fmt.Sprintf("%s, in %s: no entry for patchDataset (PATCH /api/v1/user/dataset/{dataset_id}), and no exemption with its reason", name, file)
	}
	var want []string
	// The recorder derives the new operation (it answers a dataset: a read
	// of the dataset) and the isolation checks derive its check from its
	// place and summary, so neither is named.
	for _, tab := range []table{
		kept(spec.OperationIDTable), kept(mockserver.OperationTable), kept(mutation.OperationTable),
		conformance.ClauseTable, conformance.SampleTable,
	} {
		name, file, _ := tab(c)
		want = append(want, line(name, file))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the work listed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The contributor guide's "Adding an endpoint" shows a developer these lines.
	readme, err := os.ReadFile("../../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range got {
		if !strings.Contains(string(readme), "\n"+l+"\n") {
			t.Errorf("docs/contributing.md (For contributors, Adding an endpoint) does not show the line\n%s", l)
		}
	}

	// Written with what it rests on and a request example, the contract's
	// own tables have the operation's entries: what is left is code. The
	// seed states no PATCH of a dataset: the operation is the contract's
	// own, added by a decision (its row in spec/DECISIONS.md, which go test
	// ./spec holds the mark to).
	done := strings.Replace(patchDataset, "      tags: [datasets]\n", "      x-decision: { row: D-50, class: decided }\n      tags: [datasets]\n", 1)
	done = strings.Replace(done, "              properties: { dataset_name: { type: string } }\n",
		"              properties: { dataset_name: { type: string } }\n            examples:\n              rename: { value: { dataset_name: Handbook 2026 } }\n", 1)
	left := theWork(withOperation(t, datasetItem, done), "patchDataset")
	if len(left) != 3 || !strings.HasPrefix(left[0], "spec: ") || !strings.HasPrefix(left[1], "mockserver: ") || !strings.HasPrefix(left[2], "mutation: ") {
		t.Errorf("with its clause and example, the work left:\n%s\nwant the constants', the mock's and the mutants' tables", strings.Join(left, "\n"))
	}

	// The cost of an endpoint: the files the listed work touches, at most
	// 8 (issue #34). Each line names the file its entry goes in first; the
	// mock's handler also takes a line in its resource's file.
	// An operation the seed does not state adds its decision's row to
	// spec/DECISIONS.md.
	files := map[string]bool{"mockserver/<resource>.go": true}
	for _, l := range got {
		_, rest, _ := strings.Cut(l, ", in ")
		first := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })[0]
		files[first] = true
		if strings.Contains(l, "spec/DECISIONS.md") {
			files["spec/DECISIONS.md"] = true
		}
	}
	if !files["spec/DECISIONS.md"] {
		t.Errorf("the work listed does not name spec/DECISIONS.md, where the decision that adds an operation the seed does not state is recorded")
	}
	if len(files) > 8 {
		t.Errorf("a new endpoint touches %d files, more than 8: %v", len(files), slices.Sorted(maps.Keys(files)))
	}

	stale := func(*spec.Contract) (string, string, map[string]string) {
		return "a table", "x/y.go", map[string]string{"getDataset": "", "patchDataset": "", "renameDataset": "gone"}
	}
	p := problems(spec.Strict(), []table{stale})
	for _, want := range []string{
		"a table, in x/y.go: patchDataset is no operation of the contract",
		"a table, in x/y.go: renameDataset is no operation of the contract",
		"a table, in x/y.go: no entry for listModels (GET /api/v1/user/model), and no exemption with its reason",
	} {
		if !slices.Contains(p, want) {
			t.Errorf("no line %q; got:\n%s", want, strings.Join(p, "\n"))
		}
	}
	blank := func(*spec.Contract) (string, string, map[string]string) {
		return "a table", "x/y.go", map[string]string{"getDataset": " "}
	}
	if p := problems(spec.Strict(), []table{blank}); !slices.Contains(p, "a table, in x/y.go: the exemption of getDataset gives no reason") {
		t.Errorf("an exemption without a reason is not named; got:\n%s", strings.Join(p, "\n"))
	}
}

// TestAnAddedDeleteListsItsGoneChecks: a DELETE of a resource's item needs
// its delete check, which a read or a child operation does not.
func TestAnAddedDeleteListsItsGoneChecks(t *testing.T) {
	anchor := "  /api/v1/user/conversations/{conversation_id}/messages:\n    parameters:\n      - $ref: '#/components/parameters/ConversationId'\n"
	clear := `    delete:
      operationId: clearMessages
      x-seed: '4.2.5'
      tags: [conversations]
      summary: Delete every message of a conversation
      responses:
        '200':
          description: Cleared.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DeleteEnvelope' }
              examples:
                cleared: { value: { status: success, data: { message: cleared, id: '1' } } }
`
	for _, p := range theWork(withOperation(t, anchor, clear), "clearMessages") {
		if strings.HasPrefix(p, "conformance: the delete check") {
			t.Errorf("a DELETE under an item needs no delete check of its own: %s", p)
		}
	}
	projects := `  /api/v1/user/projects:
    get:
      operationId: listProjects
      x-seed: '4.1.1'
      tags: [models]
      summary: List projects
      responses:
        '200':
          description: The projects.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DeleteEnvelope' }
              examples:
                none: { value: { status: success, data: { message: none, id: '1' } } }
  /api/v1/user/projects/{project_id}:
    parameters:
      - { name: project_id, in: path, required: true, x-seed: '4', schema: { type: string, example: '3' } }
` + strings.ReplaceAll(strings.ReplaceAll(clear, "clearMessages", "deleteProject"), "conversations]", "models]")
	work := theWork(withOperation(t, "\npaths:\n", projects), "deleteProject")
	c := withOperation(t, "\npaths:\n", projects)
	name, file, _ := conformance.DeletionTable(c)
	want := fmt.Sprintf("%s, in %s: no entry for deleteProject (DELETE /api/v1/user/projects/{project_id}), and no exemption with its reason", name, file)
	if !slices.Contains(work, want) {
		t.Errorf("the work of a new DELETE:\n%s\nlacks %q", strings.Join(work, "\n"), want)
	}
}
