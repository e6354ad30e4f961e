// Package fieldindex is the kit's index of the fields of its answers, as
// package opindex is of its operations. Every property of every answer the
// contract (spec/openapi.yaml) documents — each JSON body and each event
// stream's chunk, through references, allOf wrappers, arrays, nested
// objects and oneOf branches — needs three things, and the package's test
// fails, one line per field naming its JSON pointer, the answers that
// carry it and what it lacks, until it has them:
//
//   - a mark that says what it rests on: its x-predict names a clause of
//     the reference (seed: declared) or a row of spec/DECISIONS.md
//     (decision: decided), or a marked field above it does;
//   - the mock serves it: it is present (null included) in at least one
//     answer of a realistic run of the in-process mock, or the contract
//     says why the mock never serves it (x-unserved: a reason);
//   - the reference model predicts it (conformance/refmodel.Gaps names no
//     gap at its pointer).
//
// Adding an optional field to an answer therefore starts with this one
// failing test, which lists the work. The package holds no code: only this
// documentation and its tests.
package fieldindex
