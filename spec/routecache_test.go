package spec

import (
	"maps"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestFindAgreesWithTheRouter: Find, through its route cache, answers
// what the router answers, on the first and on later asks, for paths of
// every operation with several ids, unknown paths and methods; a caller
// changing the parameters it got does not change the next answer; and the
// cache stays within its bound.
func TestFindAgreesWithTheRouter(t *testing.T) {
	c := Strict()
	if c.routes == nil {
		t.Fatal("the contract's servers are path-only, yet Find caches nothing")
	}
	var targets []struct{ method, path string }
	for _, op := range c.Operations {
		for _, id := range []string{"7", "abc", "a%2Fb", "caf%C3%A9", ""} {
			for _, m := range []string{op.Method, "PATCH", "OPTIONS"} {
				targets = append(targets, struct{ method, path string }{m, fillPath(op.Path, id)})
				targets = append(targets, struct{ method, path string }{m, fillPath(op.Path, id) + "/"})
			}
		}
	}
	targets = append(targets, struct{ method, path string }{"GET", "/nope"}, struct{ method, path string }{"GET", "/api/v1/user/model/7?x=1"})
	for round := range 3 {
		for _, tg := range targets {
			r := httptest.NewRequest(tg.method, tg.path, nil)
			op, params, known, ok := c.Find(r)
			wantOp, wantParams, wantKnown, wantOK := c.route(r).answer()
			if op != wantOp || !maps.Equal(params, wantParams) || known != wantKnown || ok != wantOK {
				t.Errorf("round %d %s %s: got %v %v %v %v, the router says %v %v %v %v", round, tg.method, tg.path,
					op != nil, params, known, ok, wantOp != nil, wantParams, wantKnown, wantOK)
			}
			for k := range params {
				params[k] = "changed by the caller"
			}
		}
	}
	for i := range 3 * maxCachedRoutes {
		c.Find(httptest.NewRequest("GET", "/api/v1/user/model/"+strconv.Itoa(i), nil))
	}
	n := 0
	c.routes.m.Range(func(any, any) bool { n++; return true })
	if n > maxCachedRoutes {
		t.Errorf("the route cache holds %d answers, over its bound %d", n, maxCachedRoutes)
	}
}
