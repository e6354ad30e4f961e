package conformance

import (
	"contractkit/spec"
)

// The suite's per-operation tables as the kit's operation index
// (internal/opindex) reads them: for each, a name, where it is written, and
// every operationId mapped to "" (the table has an entry) or to the reason
// it needs none. Tables derived from the contract take the contract they
// are derived from, so the index can ask them about a contract with an
// operation added; the tables kept here take nothing.
//
// Derived entirely, and so not in the index (nothing to forget): the
// operations the unknown-id checks name (idOperations), those a valid key
// reads with nothing made (freeReads), the isolation checks (isolation.go:
// each operation's from its place and its summary), the explore phase's
// catalog.

// ClauseTable is what each operation of c rests on: the seed clause that
// states it (its x-seed mark; every check of the operation is labelled
// with it), or, for an operation the seed does not state (the contract's
// own addition), the decision that adds it: an x-decision mark on the
// operation, whose row spec/DECISIONS.md must have (go test ./spec).
func ClauseTable(c *spec.Contract) (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for _, op := range c.Operations {
		kop, err := c.KinOperation(op.ID)
		if err != nil {
			continue
		}
		if _, decided := spec.Mark(kop.Extensions); op.Clause != "" || decided {
			entries[op.ID] = ""
		}
	}
	return "conformance: the seed clause of each operation (the checks' labels), or the decision that adds one the seed does not state",
		"spec/openapi.yaml, x-seed on the operation (4.N.k), or x-decision on it naming its row of spec/DECISIONS.md", entries
}

// SampleTable is the sample request of each operation of c, built from
// the contract (samples.go): an operation whose request the contract does
// not give enough to build (a body without an example, a required query
// parameter that names no resource and has no example) has no entry.
func SampleTable(c *spec.Contract) (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for _, op := range c.Operations {
		if _, err := sampleOf(c, op); err == nil {
			entries[op.ID] = ""
		}
	}
	return "conformance: the sample request of each operation (authentication, unknown-id, isolation and deletion checks)",
		"spec/openapi.yaml, a request example on its body and an example on each required query parameter (built by conformance/samples.go)", entries
}

// DeletionTable is the delete check of each DELETE of a resource's item in
// c; every other operation deletes nothing of its own and needs none.
func DeletionTable(c *spec.Contract) (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for _, op := range c.Operations {
		role, r := c.Place(op)
		switch {
		case role == spec.RoleDelete && r != nil && hasDeleteCheck(r.Param):
			entries[op.ID] = ""
		case role != spec.RoleDelete:
			entries[op.ID] = "not the DELETE of a resource's item: no resource of its own to see gone"
		}
	}
	return "conformance: the delete check of each DELETE, and the checks that its resource is gone",
		"conformance/deletion.go deleteChecks, and deletionSpecs in the flow of the area that makes the resource", entries
}

// hasDeleteCheck reports whether the resource of id parameter param has its
// delete check.
func hasDeleteCheck(param string) bool {
	_, ok := deleteChecks[param]
	return ok
}
