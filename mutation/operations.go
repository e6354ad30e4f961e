package mutation

import (
	"net/url"
	"sort"
	"strconv"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"contractkit/spec"
)

// The wrappers name the requests they change by the contract's operationId
// (or its area, the operation's tag), looked up with the contract's router
// once per exchange (~1 µs, and only when a mutant asks), never by splitting
// path strings: a renamed path cannot leave a mutant matching nothing. A
// mutant names its operations through the contract's generated constants
// (spec.Op…), never a quoted id: a renamed or removed operation breaks the
// build at the mutant that names it.

// adminPrefix is where the mock's own controls live, outside the contract
// (mockserver/admin.go): no mutant touches them.
const adminPrefix = "/admin/"

// opSet is a set of the contract's operations, by operationId.
type opSet map[string]bool

var (
	// keyed is every operationId a mutant names, gathered by ops while the
	// tables are built, for operations_test.go and the operation index.
	keyed = map[string]bool{}
	// built is set once the package is initialised: ops is then refused,
	// so no set is made (and keyed written) per request.
	built bool
)

func init() { built = true }

// ops names operations of the contract, by their constants (spec.Op…).
// Call it only where the tables are built (package variables): it
// registers the names.
func ops(ids ...string) opSet {
	if built {
		panic("mutation: ops called after initialisation; name the set in a package variable")
	}
	s := opSet{}
	for _, id := range ids {
		s[id] = true
		keyed[id] = true
	}
	return s
}

// Operation sets the request rewriters test (answer rewriters take theirs
// as arguments of onOperation).
var (
	opListEvaluations    = ops(spec.OpListEvaluations)
	opListConversations  = ops(spec.OpListConversations)
	opConversationLists  = ops(spec.OpListConversations, spec.OpListMessages)
	opRenameConversation = ops(spec.OpRenameConversation)
	opTitledConversation = ops(spec.OpCreateConversation, spec.OpRenameConversation)
	opDeleteModel        = ops(spec.OpDeleteModel)
	opDeleteEvaluation   = ops(spec.OpDeleteEvaluation)
	opRunInference       = ops(spec.OpRunInference)
)

// route is what the contract's router says of the client's request.
type route struct {
	once   sync.Once
	kin    *openapi3.Operation // nil outside the contract
	op     string              // operationId; "" outside the contract
	area   string              // the operation's first tag
	params map[string]string   // path parameters, decoded
}

func (x *Exchange) route() *route {
	x.routed.once.Do(func() {
		op, params, _, ok := spec.Strict().Find(x.Client)
		if !ok {
			return
		}
		x.routed.kin, x.routed.op = op, op.OperationID
		if len(op.Tags) > 0 {
			x.routed.area = op.Tags[0]
		}
		x.routed.params = map[string]string{}
		for k, v := range params {
			if d, err := url.PathUnescape(v); err == nil {
				x.routed.params[k] = d
			}
		}
	})
	return &x.routed
}

// is reports whether the client's request is one of the operations of s.
func (x *Exchange) is(s opSet) bool { return s[x.route().op] }

// param is a path parameter of the client's request, decoded.
func (x *Exchange) param(name string) string { return x.route().params[name] }

// collectionOf is the collection path of the resource of id parameter
// param (the path that lists it), for the questions a mutant asks the
// wrapped mock.
func collectionOf(param string) string {
	r := spec.Strict().ResourceNamed(param)
	if r == nil {
		panic("mutation: the contract has no resource " + param)
	}
	return r.Collection
}

// listPage is the target of page p (from 0) of the list of the resource of
// id parameter param, of the resources scope names, each page as large as
// the contract lets one be (the maximum of its x-paging size parameter);
// size is that size, 0 for a list the contract does not page.
func listPage(param string, p int, scope url.Values) (target string, size int) {
	c := spec.Strict()
	op, ok := c.OperationAt(spec.RoleList, param)
	if !ok {
		panic("mutation: the contract lists no " + param)
	}
	q := url.Values{}
	for k, v := range scope {
		q[k] = v
	}
	paging := c.Paging(op)
	if s := paging["size"]; s != nil && s.Schema != nil && s.Schema.Value != nil && s.Schema.Value.Max != nil {
		size = int(*s.Schema.Value.Max)
		q.Set(s.Name, strconv.Itoa(size))
		if o := paging["offset"]; o != nil {
			q.Set(o.Name, strconv.Itoa(p*size))
		}
	}
	return op.Path + "?" + q.Encode(), size
}

// unmutated are the operations no mutant names by operationId, each with
// the reason (the operation index, internal/opindex, requires one).
var unmutated = map[string]string{}

// OperationTable is the mutants' table for the kit's operation index
// (internal/opindex): every operationId a mutant or variant names, mapped
// to "", and each operation none names, mapped to the reason.
func OperationTable() (name, file string, entries map[string]string) {
	entries = map[string]string{}
	for id := range keyed {
		entries[id] = ""
	}
	for id, why := range unmutated {
		if _, dup := entries[id]; !dup {
			entries[id] = why
		}
	}
	return "mutation: mutants and variants keyed to an operation", "mutation/mutants.go, variants.go and explored.go; exemptions in operations.go", entries
}

// keyedOperations lists keyed, sorted (for tests).
func keyedOperations() []string {
	out := make([]string, 0, len(keyed))
	for id := range keyed {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
