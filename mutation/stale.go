package mutation

import (
	"net/http"
	"net/url"
	"sync"

	"contractkit/spec"
)

// The evaluation list filtered by status compares a stored status that
// only a handler of one evaluation writes: the status an evaluation had
// when it was last created, written, started or read (by id or in an
// unfiltered list). A run that ends on the server's clock is listed under
// its old status until then.

var (
	opListEvaluationsOnly = ops(spec.OpListEvaluations)
	opEvaluationHandlers  = ops(spec.OpGetEvaluation, spec.OpCreateEvaluation, spec.OpUpdateEvaluation,
		spec.OpStartEvaluation, spec.OpRunRagasEvaluation)
)

// staleStatus is the status column: id → status as last written.
var staleStatus struct {
	mu sync.Mutex
	of map[string]string
}

func noteStatus(e any) {
	id, status := jsonString(dig(e, "id")), dig(e, "status")
	s, ok := status.(string)
	if id == "" || !ok {
		return
	}
	staleStatus.mu.Lock()
	defer staleStatus.mu.Unlock()
	if staleStatus.of == nil {
		staleStatus.of = map[string]string{}
	}
	staleStatus.of[id] = s
}

func storedStatus(e any) string {
	staleStatus.mu.Lock()
	defer staleStatus.mu.Unlock()
	if s, ok := staleStatus.of[jsonString(dig(e, "id"))]; ok {
		return s
	}
	s, _ := dig(e, "status").(string)
	return s
}

// filterStale is the mutant's answer rewriter.
func filterStale(x *Exchange, status int, v any) any {
	if status != http.StatusOK {
		return v
	}
	switch {
	case x.is(opEvaluationHandlers):
		noteStatus(dig(v, "data"))
	case x.is(opListEvaluationsOnly):
		q := x.Req.URL.Query()
		want := q.Get("status")
		list, _ := dig(dig(v, "data"), "evaluations").([]any)
		if want == "" {
			for _, e := range list {
				noteStatus(e)
			}
			return v
		}
		if page := q.Get("page"); page != "" && page != "1" {
			return v // the first page is enough to show it
		}
		all, _ := x.askData(x.Req.URL.Path + "?" + url.Values{"per_page": {"100"}}.Encode())
		var kept []any
		for _, e := range asList(dig(all, "evaluations")) {
			if storedStatus(e) == want {
				kept = append(kept, e)
			}
		}
		d, ok := dig(v, "data").(map[string]any)
		if !ok {
			return v
		}
		per := int(integer(d["per_page"]))
		if per < 1 {
			per = len(kept)
		}
		d["total"] = len(kept)
		if len(kept) > per {
			kept = kept[:per]
		}
		d["evaluations"] = append([]any{}, kept...)
	}
	return v
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
