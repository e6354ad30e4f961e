package drive

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"contractkit/spec"
)

// toured are the operations of the tour and the states of their resource
// each must meet: every state of a model and of an evaluation (a deleted
// model is not failed: the fixtures' failed model is kept).
var toured = map[string][]string{
	"getModel": {"pending", "training", "ready", "failed"}, "listConversations": {"pending", "training", "ready", "failed"},
	"createConversation": {"pending", "training", "ready", "failed"}, "runInference": {"pending", "training", "ready", "failed"},
	"createEvaluation": {"pending", "training", "ready", "failed"}, "deleteModel": {"pending", "training", "ready"},
	"getEvaluation": {"pending", "running", "completed", "failed"}, "updateEvaluation": {"pending", "running", "completed", "failed"},
	"runRagasEvaluation": {"pending", "running", "completed", "failed"}, "startEvaluation": {"pending", "running", "completed", "failed"},
	"deleteEvaluation": {"pending", "running", "completed", "failed"},
}

// Misses are what the run did not reach: an operation of the tour that
// never met its resource in one of its states, a status a client can
// provoke that an operation never answered. Against a fake clock a run
// reaches everything; against a real server a state may pass between two
// reads, and a server may accept what the mock refuses.
func (r *Run) Misses() []string {
	var out []string
	for _, op := range slices.Sorted(maps.Keys(toured)) {
		for _, s := range toured[op] {
			if r.Toured[op][s] == 0 {
				out = append(out, fmt.Sprintf("%s never met its resource %s (met %v)", op, s, r.Toured[op]))
			}
		}
	}
	for _, op := range spec.Strict().Operations {
		for _, code := range provokable(op) {
			if r.Cover[op.ID][code] == 0 {
				out = append(out, fmt.Sprintf("%s never answered %d, a status a client can provoke", op.ID, code))
			}
		}
	}
	return out
}

// Coverage is the table of what each operation answered: each documented
// status and how often, one operation a line.
func (r *Run) Coverage() string {
	var rows []string
	for _, op := range spec.Strict().Operations {
		got := r.Cover[op.ID]
		var codes []string
		for _, s := range op.Statuses {
			n, _ := strconv.Atoi(s)
			codes = append(codes, fmt.Sprintf("%s:%d", s, got[n]))
		}
		rows = append(rows, fmt.Sprintf("%-20s %s", op.ID, strings.Join(codes, " ")))
	}
	return strings.Join(rows, "\n")
}

// provokable are the documented statuses of op a client can provoke: a
// success and a refused key always; 404 with an id in the path or the body;
// 400 (malformed), 413 (too large) and 422 (invalid) with a body, 422 with
// a query parameter the contract constrains; 409 where it is documented (a
// state or a taken name). 429 and 500 are the server's to give.
func provokable(op spec.Operation) []int {
	kin := spec.Strict().Kin.Paths.Value(op.Path).GetOperation(strings.ToUpper(op.Method))
	documented := func(c string) bool { return slices.Contains(op.Statuses, c) }
	out := []int{200, 401}
	body := kin.RequestBody != nil
	ids := strings.Contains(op.Path, "{")
	query := false
	for _, p := range append(spec.Strict().Kin.Paths.Value(op.Path).Parameters, kin.Parameters...) {
		if p.Value != nil && p.Value.In == "query" {
			query = true
			ids = ids || strings.HasSuffix(p.Value.Name, "_id")
		}
	}
	if body {
		ids = true // every body of the contract names a resource, or creates one that needs none
		out = append(out, 400, 422)
		if documented("413") {
			out = append(out, 413)
		}
	} else if query {
		out = append(out, 422)
	}
	if ids && documented("404") && op.ID != "createDataset" {
		out = append(out, 404)
	}
	if documented("409") {
		out = append(out, 409)
	}
	return out
}
