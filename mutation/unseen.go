package mutation

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"contractkit/spec"
)

// unseenMutants are faults of servers written blind, from the reference
// alone, that the suite once let pass: each is killed only by what was
// added for it (a near-miss key of another form, a walk in pages of two,
// the filtered list read while a state is awaited, the default of a
// parameter the server echoes). They run like the input mutants (Model).
var unseenMutants = []Mutant{
	// ---- a wrong key a careless comparison takes for a real one (§5.3) ----
	{Name: "auth-key-suffix-accepted", Area: "model", Model: true,
		Breaks: "a real key with characters appended is accepted as that key (keys compared by prefix: a key is issued with a fixed length)",
		Request: func(x *Exchange) {
			scheme, token, _ := strings.Cut(x.Req.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") || x.keyed() {
				return
			}
			for _, k := range x.opts.Keys {
				if len(token) > len(k) && strings.HasPrefix(token, k) {
					x.Req.Header.Set("Authorization", "Bearer "+k)
					return
				}
			}
		}},

	// ---- a filter on a status the server's clock moved on from (§3.1 rule 2) ----
	{Name: "filter-status-stale", Area: "model", Model: true,
		Breaks: "the evaluation list's status filter compares the status an evaluation had when a handler last wrote or read it: a run that ended on its own is still listed as running (shown completed), and not as completed",
		Answer: jsonAnswer(filterStale)},

	// ---- a default the reference states (§3.3) ----
	{Name: "delete-dataset-permanent-by-default", Area: "model", Model: true,
		Breaks: "a dataset delete without the permanent flag erases the dataset for good (and says so: permanent true); with the flag either way it does as asked",
		Request: func(x *Exchange) {
			if q := x.Req.URL.Query(); x.is(opDeleteDatasetOnly) && !q.Has("permanent") {
				q.Set("permanent", "true")
				x.Req.URL.RawQuery = q.Encode()
			}
		}},

	// ---- an update that writes the whole row back (§3.1, §4.5) ----
	{Name: "evaluation-update-resets-status", Area: "model", Model: true,
		Breaks: "an evaluation update writes the row back from the create schema: a completed or failed evaluation is pending again (its results and run times gone) until it is started again",
		Answer: jsonAnswer(resetOnUpdate)},

	// ---- a page one item too long (§4.5: each record once) ----
	{Name: "list-evaluations-page-one-extra", Area: "model", Model: true,
		Breaks: "a full page of evaluations with more after it holds one more: the next page's first, which that page shows again (an off-by-one in the page's bound)",
		Answer: onOperation(opListEvaluations, jsonAnswer(func(x *Exchange, status int, v any) any {
			d, ok := dig(v, "data").(map[string]any)
			list, _ := d["evaluations"].([]any)
			page, per, total := integer(d["page"]), integer(d["per_page"]), integer(d["total"])
			if status != http.StatusOK || !ok || per < 1 || len(list) != int(per) || page*per >= total {
				return v
			}
			q := x.Req.URL.Query()
			q.Set("page", strconv.FormatInt(page+1, 10))
			q.Set("per_page", strconv.FormatInt(per, 10))
			next, _ := x.askData(x.Req.URL.Path + "?" + q.Encode())
			if more, _ := dig(next, "evaluations").([]any); len(more) > 0 {
				d["evaluations"] = append(list, more[0])
			}
			return v
		}))},
}

// filterStale: the evaluation list filtered by status compares a stored
// status that only a handler of one evaluation writes: the status an evaluation had
// when it was last created, written, started or read (by id or in an
// unfiltered list). A run that ends on the server's clock is listed under
// its old status until then.

var (
	opDeleteDatasetOnly  = ops(spec.OpDeleteDataset)
	opEvaluationHandlers = ops(spec.OpGetEvaluation, spec.OpCreateEvaluation, spec.OpUpdateEvaluation,
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
	case x.is(opListEvaluations):
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
		everyone, _ := dig(all, "evaluations").([]any)
		for _, e := range everyone {
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

// integer is a decoded JSON number as an int64, 0 when it is none.
func integer(v any) int64 {
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return i
}

// resetOnUpdate: an update of a completed or failed evaluation writes it
// back as pending, with no results and no run times, as every later read
// shows it, filtered lists included, until a start or a RAGAS run.
var (
	opUpdateEvaluationOnly = ops(spec.OpUpdateEvaluation)
	opEvaluationRuns       = ops(spec.OpStartEvaluation, spec.OpRunRagasEvaluation)
	opGetEvaluationOnly    = ops(spec.OpGetEvaluation)
)

// resetIDs are the evaluations written back as pending, by the account's
// Authorization header and the id (ids may repeat across accounts).
var resetIDs struct {
	mu sync.Mutex
	of map[[2]string]bool
}

// resetKey is an evaluation's key in resetIDs.
func resetKey(x *Exchange, id string) [2]string {
	return [2]string{x.Req.Header.Get("Authorization"), id}
}

func markReset(x *Exchange, id string, on bool) {
	resetIDs.mu.Lock()
	defer resetIDs.mu.Unlock()
	if resetIDs.of == nil {
		resetIDs.of = map[[2]string]bool{}
	}
	if on {
		resetIDs.of[resetKey(x, id)] = true
	} else {
		delete(resetIDs.of, resetKey(x, id))
	}
}

func isReset(x *Exchange, id string) bool {
	resetIDs.mu.Lock()
	defer resetIDs.mu.Unlock()
	return resetIDs.of[resetKey(x, id)]
}

// resetOf are the account's reset evaluations' ids.
func resetOf(x *Exchange) []string {
	resetIDs.mu.Lock()
	defer resetIDs.mu.Unlock()
	var ids []string
	for k := range resetIDs.of {
		if k[0] == x.Req.Header.Get("Authorization") {
			ids = append(ids, k[1])
		}
	}
	slices.Sort(ids)
	return ids
}

// asPending shows a reset evaluation as the row written back holds it,
// and reports whether it is one.
func asPending(x *Exchange, e any) bool {
	m, ok := e.(map[string]any)
	if !ok || !isReset(x, jsonString(m["id"])) {
		return false
	}
	m["status"], m["results"], m["started_at"], m["completed_at"] = "pending", nil, nil, nil
	return true
}

// resetOnUpdate is the mutant's answer rewriter.
func resetOnUpdate(x *Exchange, status int, v any) any {
	if status != http.StatusOK {
		return v
	}
	switch {
	case x.is(opUpdateEvaluationOnly):
		d := dig(v, "data")
		if s, _ := dig(d, "status").(string); s == "completed" || s == "failed" {
			markReset(x, jsonString(dig(d, "id")), true)
		}
		asPending(x, d)
	case x.is(opEvaluationRuns):
		markReset(x, x.param("evaluation_id"), false)
	case x.is(opGetEvaluationOnly):
		asPending(x, dig(v, "data"))
	case x.is(opListEvaluations):
		resetList(x, v)
	}
	return v
}

// resetList shows the reset evaluations of a list as pending: under a
// filter on another status they are gone, and a filter on pending lists
// them (on its first page).
func resetList(x *Exchange, v any) {
	d, ok := dig(v, "data").(map[string]any)
	list, _ := d["evaluations"].([]any)
	if !ok {
		return
	}
	q := x.Req.URL.Query()
	want := q.Get("status")
	kept, total := []any{}, integer(d["total"])
	for _, e := range list {
		if asPending(x, e) && want != "" && want != "pending" {
			total--
			continue
		}
		kept = append(kept, e)
	}
	if want == "pending" && (q.Get("page") == "" || q.Get("page") == "1") {
		for _, id := range resetOf(x) {
			if e, ok := x.askData(x.Req.URL.Path + "/" + url.PathEscape(id)); ok && asPending(x, e) {
				kept = append(kept, e)
				total++
			}
		}
	}
	d["evaluations"], d["total"] = kept, json.Number(strconv.FormatInt(total, 10))
}
