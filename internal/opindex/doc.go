// Package opindex is the kit's index of its per-operation tables. The
// contract (spec/openapi.yaml) is the one list of operations; every table
// the kit keeps per operation is keyed by operationId, and this package's
// test walks spec.Strict().Operations and fails, naming each table and its
// file, for every operation that has neither an entry nor an exemption with
// its reason, and for every entry or exemption that names no operation.
// Adding an endpoint to the contract therefore starts with this one failing
// test, which lists the work.
//
// The package holds no code: only this documentation and its test. A table
// joins the index with one line in the test's list. A table kept in code
// exports
//
//	func OperationTable() (name, file string, entries map[string]string)
//
// and a table derived from the contract (its marks, its examples) takes
// the contract it derives from, so that the test can ask it about a
// contract with an operation added:
//
//	func XTable(c *spec.Contract) (name, file string, entries map[string]string)
//
// where name says what the table holds, file where it is written, and
// entries maps an operationId to "" (the table has an entry for it) or to
// the reason it needs none (an exemption). A package with several tables
// exports one such function per table.
//
// Registered: the mock's handlers (mockserver), the recorder's table
// (recording), the mutants and variants keyed to an operation (mutation),
// and the conformance suite's (conformance/tables.go): each operation's seed
// clause (its x-seed mark) or, for one the seed does not state, the
// decision that adds it (an x-decision mark whose row spec/DECISIONS.md has), its sample request (its request example), its
// isolation check, and the delete checks of the DELETEs. Not registered,
// because they hold no table to forget: what is derived from the contract
// whole (the suite's unknown-id and valid-key checks, from the operations'
// references; the authentication checks, on every operation; the explore
// phase's catalog; the contract coverage), the mock's console (it reads GET
// /openapi.json), the fixtures (a set of resources, not of operations), and
// the mock's alternative spellings (mockserver/normalize.go: only where real
// clients differ, an operation without one is the rule).
package opindex
