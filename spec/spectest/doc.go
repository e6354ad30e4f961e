// Package spectest is the test companion of package spec, as
// net/http/httptest is of net/http: a Transport that holds every answer a
// test reads to the contract, and fails the test — naming the operation, the
// status and the field — when one does not keep it. Tests of anything that
// serves the API (the mock), forwards it (the proxy) or records it (the
// recorder) wrap their client's transport with it, so a server that drifts
// from spec/openapi.yaml fails whichever test made the drifting request.
//
// What the caller must do:
//
//   - Build one Transport per test with NewTransport (or a client with
//     NewClient), giving it the test (any testing.TB) and the transport
//     that actually sends (nil: http.DefaultTransport). Set the exported
//     fields before the first request.
//   - Read every answer to its end, or close it. A JSON answer is read and
//     judged whole inside RoundTrip; an event stream is judged event by event
//     as the test reads it, and as a whole at its clean end, so a test that
//     stops reading early (a client that leaves) is judged on what it read.
//   - Point it only at servers meant to keep the contract. A test that
//     drives a deliberately broken server (a mutant) uses a plain client.
//
// What it checks, for every request under the contract's paths (/api/v1/):
// the seed's envelope (§1) of every answer that is not a successful event
// stream; for a request the contract's router finds an operation for, the
// whole answer (documented status, headers, content type and body schema)
// against the contract, with libopenapi-validator; for an event stream,
// each event's data against the schema the operation's x-event-schema mark
// names, no line that is not an SSE field, and, at its end, `data: [DONE]`
// with nothing after it (§4.4). Nothing here imports package testing: the
// Transport reports through the two methods of testing.TB it needs.
package spectest
