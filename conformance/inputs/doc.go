// Package inputs derives, from the contract, every request a client can
// send: for each operation the dimensions along which a call may vary, and
// the tables a driver needs to build each call. It is the input side of
// the reference model (conformance/refmodel), which predicts every field of
// every answer: the model's driver (conformance/refmodel/drive) sends each
// dimension at least once, the model predicts its answer, and a test fails
// when a dimension has no generator or a run does not reach it.
//
// Everything is read from spec/openapi.yaml — paths, parameters, schemas
// and marks — so a field or an operation added to the contract adds its
// dimensions without code here:
//
//   - value: each parameter and body field (nested fields by their dotted
//     path) absent, present, empty, at its bounds and just past them, each
//     member of its enum, each value an x-named mark lists, each boolean;
//   - alternative: each branch of an x-alternatives group (files only,
//     URLs only, both, neither) and of a oneOf or anyOf;
//   - encoding: the media type with a charset and in another case, Accept
//     lists, */* and parameters, a JSON content type on a call without a
//     body, a multipart part given twice, text outside ASCII, file text an
//     answer will quote; how a request is carried (a body chunked and after
//     Expect: 100-continue, a query's space as %20 and +, percent-encoded
//     path ids); text from every Unicode plane through every text field,
//     read back by every read of what it wrote (transport.go);
//   - id: each id-bearing field, in the path, the query, a JSON body or a
//     form, with each intent (a deleted id, the other account's, the id
//     with its last character dropped or a digit appended, with leading
//     zeros, another kind's id, for UUIDs one character changed and another
//     case);
//   - pair: each two faults of the operation (x-fault-order names them) in
//     one call, and the status that must win;
//   - repeat: a refused call sent again, a delete repeated;
//   - burst: the call among about eight concurrent calls with one key;
//   - state: each state of each resource the operation reads or writes,
//     from x-transitions and from the resource's collections (a
//     conversation with and without messages, after an inference continued
//     it, after a rename), and from the records that name it (a model with
//     conversations, with evaluations; a dataset with models); a request
//     field an answer compares with what a resource holds (check-name's
//     name) set to what one in each state holds, and in another letter
//     case (transport.go);
//   - reading: each x-lenient reading of its request (D-21: a field under
//     another name, a value of another JSON type, a file part under
//     another name), sent alone.
//
// The package links no test framework.
package inputs
