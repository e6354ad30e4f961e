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
// joins the index with one line in the test's list, its package exporting
//
//	func OperationTable() (name, file string, entries map[string]string)
//
// where name says what the table holds, file where it is written, and
// entries maps an operationId to "" (the table has an entry for it) or to
// the reason it needs none (an exemption). A package with several tables
// exports one such function per table.
//
// Registered: the mock's handlers (mockserver), the recorder's table
// (recording) and the mutants and variants keyed to an operation
// (mutation). Not registered, because they hold no table to forget: the
// contract coverage (package coverage reads every operation from the
// contract), the mock's console (it reads GET /openapi.json), the fixtures
// (a set of resources, not of operations), and the mock's alternative
// spellings (mockserver/normalize.go: only where real clients differ, an
// operation without one is the rule). The conformance suite's tables
// (clauses, id operations, sample requests, isolation rows) are to join once
// the suite is split into its packages.
package opindex
