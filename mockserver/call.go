package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/store"
)

// call is one routed, authenticated, validated API request.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	op      *openapi3.Operation
	params  map[string]string
	account *store.Account
	// body is the JSON body, already read (bounded) and validated; nil for
	// multipart operations, whose handlers read the stream themselves.
	body []byte
	// in is the request body as the server reads it (body.go); nil when
	// the request has none.
	in *body
	// fault is a stream fault an override asked for; the X-Mock-Stream-Fault
	// header asks when it is empty.
	fault string
	// pace is the token pace an override asked for; nil: --token-interval.
	pace *streamPace
}

// handler serves one operation. It returns the success envelope's data, or
// (nil, nil) when it wrote the answer itself (a stream).
type handler func(c *call) (any, error)

// routes maps every operationId of the contract to its handler, gathered
// from the file of each resource; New refuses to start when an operation has
// none, so the mock cannot silently lag the contract.
func (s *Server) routes() map[string]handler {
	all := map[string]handler{}
	for _, table := range []map[string]handler{
		s.modelRoutes(), s.datasetRoutes(), s.conversationRoutes(), s.inferenceRoutes(), s.evaluationRoutes(),
	} {
		for op, h := range table {
			if _, dup := all[op]; dup {
				// Two files claiming one operation is a bug of this package;
				// every New (every test) would hit it, so it cannot ship.
				panic("mockserver: operation " + op + " is routed twice")
			}
			all[op] = h
		}
	}
	return all
}

// OperationTable is the mock's handler table for the kit's operation index
// (internal/opindex): every operationId it routes, mapped to "". There are
// no exemptions: New refuses to start while an operation of the contract
// has no handler.
func OperationTable() (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for id := range (&Server{}).routes() {
		entries[id] = ""
	}
	return "mockserver: the handler of each operation", "mockserver/call.go routes() and each resource file's *Routes()", entries
}

// decode reads the validated JSON body into v.
func (c *call) decode(v any) error {
	if c.body == nil {
		return nil
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		// The contract validated the body, so only a type the contract
		// allows but v cannot hold gets here.
		return apierr.New(apierr.Invalid, "request body: %s", jsonProblem(err))
	}
	return nil
}

// queryInt reads a validated integer query parameter, or def when absent.
func (c *call) queryInt(name string, def int) int {
	v := c.r.URL.Query().Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}
