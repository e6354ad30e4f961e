// Package refmodel is the conformance suite's reference model of the whole
// service: every resource of both accounts, the relations between them,
// their state machines and what each operation does to them. Before a call
// it says what the call may meet (Expect); after it, it judges every field
// of the answer against what it predicts and learns what the answer shows
// (Observe).
//
// Everything it knows of the service's semantics is read from the contract
// (spec/openapi.yaml), from marks stated next to what they describe:
//
//   - x-predict on every property of every answer: how the model predicts
//     it (a rule, its parameters, and the clause or decision it rests on).
//     Gaps lists every property without one, and every mark naming a rule
//     this package does not implement.
//   - x-effect on operations: which state an action needs and moves to,
//     and what it does to other resources.
//   - x-refuse on requests: refusals a schema cannot state.
//   - x-named on request fields: values the reference itself names.
//   - x-stored, x-paging, x-transitions (shared with the explore phase):
//     where a request field is kept, how a list pages, a state machine
//     (its `clock` moves are those the server makes on its own).
//
// A prediction that rests on a clause of the reference is Declared (it
// fails a run); one that rests on a decision or on the meaning of a field's
// name is Decided (it fails only a strict run); a refusal of a request the
// reference does not show to be acceptable is Noted. The package imports
// neither the mock nor its store: it is an independent implementation of the
// same semantics, and the tests run the two against each other.
//
// A Model is not safe for concurrent use: a sequence is one caller.
package refmodel
