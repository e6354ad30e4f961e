package spec

// The operation ids as Go names. Code outside this package finds an
// operation by its place (OperationAt, ResourceNamed, Paged, the marks it
// carries) wherever that says what it means; it names an operation only
// where the behaviour is that operation's own (the mock's handler of it, a
// mutant that breaks it, a check of its own rules), and then through the
// constant of operation_ids_gen.go (OpListModels = "listModels"), never a
// quoted id: internal/opindex fails on a quoted operation id in non-test Go
// code outside spec/.
//
// The constants are generated from openapi.yaml, so an operation removed or
// renamed in the contract breaks the build at every use of its old name.
// TestOperationIDsAreCurrent fails while the file lags the contract, and
// the operation index lists an operation without its constant:
//
//	go generate ./spec
//
// rewrites it.

//go:generate go test -run TestOperationIDsAreCurrent . -args -update

// OperationIDTable is the constants' table for the kit's operation index
// (internal/opindex): every operation with a constant, mapped to "". There
// are no exemptions: every operation of the contract has one.
func OperationIDTable() (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for _, id := range operationIDs {
		entries[id] = ""
	}
	return "spec: the Go constant of each operationId (spec.Op…, written by go generate ./spec)", "spec/operation_ids_gen.go", entries
}
