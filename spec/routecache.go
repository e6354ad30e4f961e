package spec

import (
	"maps"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxCachedRoutes bounds the route cache. Paths carry ids, so the set of
// paths a server sees grows with its traffic; past the bound the cache
// starts again empty.
const maxCachedRoutes = 4096

// routeCache remembers what the router found for a method and escaped
// path. The router (kin-openapi's gorillamux, on a contract whose servers
// name neither host nor scheme) reads nothing else of a request, so the
// answer for the same key is the same: the cache spares its regular
// expressions, not its judgement.
type routeCache struct {
	m sync.Map // routeKey -> *routeFound
	n atomic.Int64
}

type routeKey struct{ method, path string }

type routeFound struct {
	op                 *openapi3.Operation
	params             map[string]string
	methodKnown, found bool
}

// find returns the cached answer for r, or nil.
func (rc *routeCache) find(r *http.Request) *routeFound {
	v, ok := rc.m.Load(routeKey{r.Method, r.URL.EscapedPath()})
	if !ok {
		return nil
	}
	return v.(*routeFound)
}

// keep caches f for r, clearing the cache first when it is full.
func (rc *routeCache) keep(r *http.Request, f *routeFound) {
	if rc.n.Add(1) > maxCachedRoutes {
		rc.m.Clear()
		rc.n.Store(1)
	}
	rc.m.Store(routeKey{r.Method, r.URL.EscapedPath()}, f)
}

// answer is f as Find returns it: the parameters are the caller's own copy.
func (f *routeFound) answer() (*openapi3.Operation, map[string]string, bool, bool) {
	return f.op, maps.Clone(f.params), f.methodKnown, f.found
}
