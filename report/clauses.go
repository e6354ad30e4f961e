package report

import (
	"contractkit/spec"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Clause is one rule of the seed (the API reference v1).
// Ids follow the seed's numbering: "1.2" is rule 2 of §1, "3.1.1" rule 1 of
// §3.1, "5.3" item 3 of §5; in §4, "4.N.k" is the k-th endpoint of §4.N in
// the seed's order ("4.4.1" the inference request, "4.4.2" its stream); a
// bare section number ("2", "4", "9") is the section's preamble.
type Clause struct {
	ID   string
	Rule string
	// Untestable, when set, says why no check can test the clause.
	Untestable string
	// Implicit, when set, says how the clause is tested without a label of
	// its own.
	Implicit string
}

// SeedClauses are every clause of the seed, testable or not.
var SeedClauses = []Clause{
	{ID: "1.1", Rule: "A successful response is a JSON object {status, data} whose status is the string \"success\"."},
	{ID: "1.2", Rule: "A failed response is a JSON object {status, message} whose status is the string \"error\" and message a string."},
	{ID: "1.3", Rule: "Every request and response body is JSON, except the two dataset uploads (multipart/form-data) and the inference response (an event stream)."},
	{ID: "2", Rule: "Timestamps are ISO 8601 date-times; types marked |null may be null; objects may carry additional properties.",
		Implicit: "Every response a check judges is validated against the contract (libopenapi-validator), whose schemas carry these formats, nullabilities and open objects."},
	{ID: "2.1", Rule: "Model: the fields, types and defaults of the table; only id and name are always present."},
	{ID: "2.2", Rule: "Metrics (Model.metrics): all six fields required."},
	{ID: "2.3", Rule: "DatasetInfo (Model.dataset_info): all five fields required."},
	{ID: "2.4", Rule: "Conversation: the fields and types of the table; title defaults to the empty string."},
	{ID: "2.5", Rule: "Message: id, role and content strings."},
	{ID: "2.6", Rule: "Dataset: the fields and types of the table."},
	{ID: "2.7", Rule: "Upload result: success, dataset_id, failed_files, files_uploaded, files_failed, total_size (counts default to 0)."},
	{ID: "2.8", Rule: "Evaluation: the fields and types of the table; status is one of pending, running, completed, failed; pending is the initial value."},
	{ID: "2.9", Rule: "Name check result: valid, available (booleans), message (string)."},
	{ID: "2.10", Rule: "Evaluation start result: message (string), model_id (integer)."},
	{ID: "2.11", Rule: "Inference result assembled from the stream: response, conversation_id, thread_id, tokens_used, latency_ms, metadata."},
	{ID: "3.1", Rule: "Evaluation states: pending (initial), running (executing), completed and failed (terminal)."},
	{ID: "3.1.1", Rule: "When an evaluation is running, deleting it is refused."},
	{ID: "3.1.2", Rule: "The evaluation list can be filtered by the four status values."},
	{ID: "3.2", Rule: "status, graph_status (with the integer graph_build_progress) and fine_tuning_status describe a model's training and graph build."},
	{ID: "3.3", Rule: "Deleting a dataset is a soft delete by default."},
	{ID: "4", Rule: "Every endpoint needs the Authorization header; path parameters are strings in the path."},
	{ID: "4.1.1", Rule: "GET /api/v1/user/model lists all models in the caller's account."},
	{ID: "4.1.2", Rule: "GET /api/v1/user/model/{model_id} returns one model as {status, data: Model}."},
	{ID: "4.1.3", Rule: "POST /api/v1/user/model creates a model from {model_name, dataset_id (required), description, base_model_id, training_type_id, use_case_id, persona_id}; 200 {status: success, data: Model}."},
	{ID: "4.1.4", Rule: "DELETE /api/v1/user/model/{model_id} deletes a model; HTTP 200 on success."},
	{ID: "4.2.1", Rule: "GET /api/v1/user/conversations?model_id= (required) lists a model's conversations as {status, data: [Conversation]}."},
	{ID: "4.2.2", Rule: "POST /api/v1/user/conversations creates a conversation from {model_id (integer), title}; {status, data: Conversation}."},
	{ID: "4.2.3", Rule: "PATCH /api/v1/user/conversations/{conversation_id} renames from {title}; {status, data: Conversation}."},
	{ID: "4.2.4", Rule: "DELETE /api/v1/user/conversations/{conversation_id} permanently deletes a conversation and its messages; HTTP 200."},
	{ID: "4.2.5", Rule: "GET /api/v1/user/conversations/{conversation_id}/messages lists the messages as {status, data: [Message]}."},
	{ID: "4.3.1", Rule: "GET /api/v1/user/dataset lists datasets as {status, data: [Dataset]}."},
	{ID: "4.3.2", Rule: "GET /api/v1/user/dataset/{dataset_id} returns one dataset as {status, data: Dataset}."},
	{ID: "4.3.3", Rule: "POST /api/v1/user/dataset creates a dataset from a multipart form (dataset_name, description, tags, urls, files); {status, data: Dataset}."},
	{ID: "4.3.4", Rule: "POST /api/v1/user/dataset/upload adds files (multipart dataset_id and one or more files); {status, data: upload result}."},
	{ID: "4.3.5", Rule: "DELETE /api/v1/user/dataset/{dataset_id} deletes a dataset, soft by default."},
	{ID: "4.4.1", Rule: "POST /api/v1/user/inference takes query (string) and model_id (integer), both required, and the optional fields of the table with their types."},
	{ID: "4.4.2", Rule: "The inference answer is a Server-Sent Events stream of `data: {json}` chunks ended by `data: [DONE]`, joined into one result."},
	{ID: "4.5.1", Rule: "GET /api/v1/evaluations lists evaluations as {status, data: {evaluations, page, per_page, total}}."},
	{ID: "4.5.2", Rule: "POST /api/v1/evaluations creates an evaluation from {name, type, model_id, benchmark_type, question_count, description}; {status, data: Evaluation}."},
	{ID: "4.5.3", Rule: "GET /api/v1/evaluations/{evaluation_id} returns one evaluation."},
	{ID: "4.5.4", Rule: "PUT /api/v1/evaluations/{evaluation_id} updates name and description (both optional); {status, data: Evaluation}."},
	{ID: "4.5.5", Rule: "DELETE /api/v1/evaluations/{evaluation_id} deletes an evaluation, refused while running; success is HTTP 200 with a message string."},
	{ID: "4.5.6", Rule: "GET /api/v1/evaluations/check-name?name= (required) answers {status, data: name check result}."},
	{ID: "4.5.7", Rule: "POST /api/v1/evaluations/{evaluation_id}/start starts a run (no body); {status, data: {message, model_id}}."},
	{ID: "4.5.8", Rule: "POST /api/v1/evaluations/{evaluation_id}/run-ragas takes {samples, selected_questions} (arrays); {status, data: Evaluation}."},
	{ID: "5.1", Rule: "Every endpoint requires the header `Authorization: Bearer <API_KEY>`."},
	{ID: "5.2", Rule: "The key is a static API key that does not expire, obtained from the service's user dashboard.",
		Untestable: "How a key is obtained is outside the API, and that a key never expires cannot be observed in a finite run. The suite relies only on each key naming one account (the isolation checks, §4.1.1)."},
	{ID: "5.3", Rule: "When the key is invalid or missing, the response is HTTP 401 with the error envelope."},
	{ID: "6", Rule: "Webhooks or other event notifications: not shown; the only event-style output is the inference stream.",
		Untestable: "The absence of notifications cannot be observed by a client; the inference stream itself is §4.4.2."},
	{ID: "7.1", Rule: "Every error body is {status: error, message: <string>}."},
	{ID: "7.2", Rule: "Model creation answers 400 (bad request), 401 (invalid or missing key), 404 (not found), 422 (validation error), 429 (rate limited) or 500 (server error).",
		Implicit: "500 is not checked: a server error cannot be forced on a real server."},
	{ID: "7.3", Rule: "Every other endpoint's codes, the message texts and the condition-to-code mapping: not shown.",
		Untestable: "Not shown. The contract decides the codes (D-17); the checks test them as decided refinements of declared refusals (label D-17)."},
	{ID: "8.1", Rule: "temperature on inference ranges from 0.0 to 1.0."},
	{ID: "8.2", Rule: "max_tokens and temperature defaults are model-specific.",
		Untestable: "A model-specific default has no value a client could compare against (the contract's D-23 defaults are not observable in an answer)."},
	{ID: "8.3", Rule: "A running evaluation cannot be deleted."},
	{ID: "8.4", Rule: "Requests can be rate limited (HTTP 429); thresholds, window, upload sizes, field lengths and page sizes: not shown (D-05, D-06, D-14, D-15)."},
	{ID: "9", Rule: "The interface is v1, in the path prefix /api/v1, where every endpoint lives; deprecation policy and change notification: not shown."},
}

// catalogued is one check as the dry run reports it.
type catalogued struct {
	Area, Name, Class string
	Decision          string
	Clauses, Refines  []string
	// Costs are the kinds the check may create or start (CostLabel).
	Costs []string
}

// CostLabel starts the label of a kind a check may create or start
// ("cost:models"): --list shows the kinds in its COST column.
const CostLabel = "cost:"

func catalogue(r Run, includeNotSelected bool) []catalogued {
	var out []catalogued
	for _, ch := range r.Checks {
		if !includeNotSelected && ch.State != Passed {
			continue
		}
		c := catalogued{Area: ch.Area, Name: ch.Name(), Class: "declared"}
		for _, l := range ch.Labels {
			switch {
			case l == "decided":
				c.Class = "decided"
			case strings.HasPrefix(l, "seed:"):
				c.Clauses = append(c.Clauses, strings.TrimPrefix(l, "seed:"))
			case strings.HasPrefix(l, "D-"):
				c.Refines = append(c.Refines, l)
			case strings.HasPrefix(l, CostLabel):
				c.Costs = append(c.Costs, strings.TrimPrefix(l, CostLabel))
			}
		}
		if c.Class == "decided" && len(c.Refines) > 0 {
			c.Decision, c.Refines = c.Refines[0], c.Refines[1:]
		}
		out = append(out, c)
	}
	// A run may order the top-level containers as it likes (Ginkgo
	// shuffles them); the Areas' order is fixed (the order inside an area
	// is the order of definition).
	sort.SliceStable(out, func(i, j int) bool { return areaIndex(out[i].Area) < areaIndex(out[j].Area) })
	return out
}

// WriteList prints the checks of r, a dry run, that a run with the same
// filter would select (the rate-limit ones included; a dry run's selected
// checks are Passed), one a line.
func WriteList(out io.Writer, r Run) {
	checks := catalogue(r, false)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AREA\tCLASS\tSEED CLAUSES\tCOST\tCHECK")
	declaredN := 0
	for _, c := range checks {
		class := c.Class
		if c.Decision != "" {
			class += " " + c.Decision
		}
		if len(c.Refines) > 0 {
			class += " (" + strings.Join(c.Refines, ",") + ")"
		}
		if c.Class == "declared" {
			declaredN++
		}
		cost := strings.Join(c.Costs, ",")
		switch len(c.Costs) {
		case 0:
			cost = "-"
		case len(spec.CostKinds()):
			cost = "all"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Area, class, strings.Join(c.Clauses, ","), cost, c.Name)
	}
	tw.Flush()
	fmt.Fprintf(out, "\n%d checks: %d declared, %d decided. The rate-limit checks run only when --label-filter names rate-limit.\n",
		len(checks), declaredN, len(checks)-declaredN)
}

// WriteClauses writes CLAUSES.md from r, a dry run of every check: every clause with the checks covering it, the decisions with
// theirs, and the untestable clauses with the reason. It fails when a
// testable clause has no check or a check names an unknown clause, so the
// document cannot silently lose coverage.
func WriteClauses(out io.Writer, r Run) error {
	checks := catalogue(r, true)
	byClause := map[string][]catalogued{}
	byDecision := map[string][]string{}
	known := map[string]bool{}
	for _, cl := range SeedClauses {
		known[cl.ID] = true
	}
	var errs []error
	for _, c := range checks {
		for _, id := range c.Clauses {
			if !known[id] {
				errs = append(errs, fmt.Errorf("check %q names clause %s, which the seed does not have", c.Name, id))
			}
			byClause[id] = append(byClause[id], c)
		}
		if c.Decision != "" {
			byDecision[c.Decision] = append(byDecision[c.Decision], "decided: "+c.Name)
		}
		for _, d := range c.Refines {
			byDecision[d] = append(byDecision[d], "refinement of: "+c.Name)
		}
	}
	for _, cl := range SeedClauses {
		if cl.Untestable == "" && cl.Implicit == "" && len(byClause[cl.ID]) == 0 {
			errs = append(errs, fmt.Errorf("clause %s is testable but no check covers it", cl.ID))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}

	w := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	w("# Seed clauses and the checks that cover them\n\n")
	w("Generated by `go run ./cmd/conformance --clauses > conformance/CLAUSES.md` from the checks' labels;\n")
	w("do not edit by hand (a test in conformance/ fails when this file is stale).\n\n")
	w("The seed is the API reference v1 (the source of truth). Clause ids follow its numbering: `1.2` is rule 2\n")
	w("of §1, `3.1.1` rule 1 of §3.1, `5.3` item 3 of §5; in §4, `4.N.k` is the k-th endpoint of §4.N in\n")
	w("the seed's order (`4.4.1` the inference request, `4.4.2` its stream); a bare section number is the\n")
	w("section's preamble. A **declared** check tests the seed's own rule and fails the run; a **decided**\n")
	w("check tests a row of `spec/DECISIONS.md` and fails the run only with `--strict`. A declared check\n")
	w("may hold decided refinements (for example the exact status code of a refusal), listed under\n")
	w("Decisions.\n\n")

	declaredN := 0
	for _, c := range checks {
		if c.Class == "declared" {
			declaredN++
		}
	}
	w("%d checks: %d declared, %d decided.\n\n", len(checks), declaredN, len(checks)-declaredN)

	w("## Coverage\n\n| Clause | Rule | Declared | Decided |\n|---|---|---:|---:|\n")
	for _, cl := range SeedClauses {
		d, o := 0, 0
		for _, c := range byClause[cl.ID] {
			if c.Class == "declared" {
				d++
			} else {
				o++
			}
		}
		switch {
		case cl.Untestable != "":
			w("| %s | %s | untestable | |\n", cl.ID, mdCell(cl.Rule))
		case d+o == 0:
			w("| %s | %s | implicit | |\n", cl.ID, mdCell(cl.Rule))
		default:
			w("| %s | %s | %d | %d |\n", cl.ID, mdCell(cl.Rule), d, o)
		}
	}

	w("\n## Checks by clause\n")
	for _, cl := range SeedClauses {
		if cl.Untestable != "" {
			continue
		}
		w("\n### %s\n\n%s\n\n", cl.ID, cl.Rule)
		if cl.Implicit != "" {
			w("%s\n\n", cl.Implicit)
		}
		for _, c := range byClause[cl.ID] {
			class := c.Class
			if c.Decision != "" {
				class += " " + c.Decision
			}
			w("- %s (%s): %s\n", class, c.Area, mdInline(c.Name))
		}
	}

	w("\n## Decisions\n\nThe checks of each row of `spec/DECISIONS.md`: decided checks, and declared checks that\nhold a decided refinement.\n")
	ids := make([]string, 0, len(byDecision))
	for id := range byDecision {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return decisionNumber(ids[i]) < decisionNumber(ids[j]) })
	for _, id := range ids {
		w("\n### %s\n\n", id)
		for _, n := range byDecision[id] {
			w("- %s\n", mdInline(n))
		}
	}

	w("\n## Untestable clauses\n\n| Clause | Rule | Why |\n|---|---|---|\n")
	for _, cl := range SeedClauses {
		if cl.Untestable != "" {
			w("| %s | %s | %s |\n", cl.ID, mdCell(cl.Rule), mdCell(cl.Untestable))
		}
	}
	return nil
}

func decisionNumber(id string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(id, "D-"), "%d", &n)
	return n
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// mdInline keeps a check name literal in Markdown: emphasis characters
// and angle brackets are escaped outside its code spans, never inside.
func mdInline(s string) string {
	esc := strings.NewReplacer("*", "\\*", "_", "\\_", "<", "&lt;", ">", "&gt;")
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = esc.Replace(parts[i])
	}
	return strings.Join(parts, "`")
}
