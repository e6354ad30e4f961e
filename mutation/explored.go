package mutation

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"contractkit/spec"
)

// explored are the mutants only the suite's explore phase can kill: bugs
// real implementations ship that no written check provokes, in three
// classes (issue: "find what nobody wrote a check for"): written but not
// stored, lists that lie, and valid but unusual input answered 5xx. Each
// is triggered by inputs or sequences the written checks never send, so
// the runner requires that every check it fails is an Explore check
// (Mutant.Explore). And valid variants the phase must pass.
var explored = []Mutant{
	// ---- written but not stored: the answer is right, a later read is not ----
	{Name: "stored-evaluation-description-update-lost", Area: "explore", Explore: true,
		Breaks: "an evaluation update answers the new description but keeps the old one",
		Request: jsonRequest(ops(spec.OpUpdateEvaluation), func(x *Exchange, body map[string]any) bool {
			return withhold(x, body, "description")
		}),
		Answer: setData("description")},
	{Name: "stored-model-description-ignored", Area: "explore", Explore: true,
		Breaks: "a model create echoes its description in the answer but does not keep it",
		Request: jsonRequest(ops(spec.OpCreateModel), func(x *Exchange, body map[string]any) bool {
			return withhold(x, body, "description")
		}),
		Answer: setData("description")},
	{Name: "stored-conversation-title-ascii-folded", Area: "explore", Explore: true,
		Breaks: "a conversation title outside ASCII is kept with those characters dropped (the answer shows it whole)",
		Request: func(x *Exchange) {
			jsonRequest(opTitledConversation, func(x *Exchange, body map[string]any) bool {
				t, ok := body["title"].(string)
				if !ok || isASCII(t) {
					return false
				}
				x.Note = t
				body["title"] = strings.Map(func(r rune) rune {
					if r > unicode.MaxASCII {
						return -1
					}
					return r
				}, t)
				return true
			})(x)
		},
		Answer: setData("title")},
	{Name: "stored-question-count-capped", Area: "explore", Explore: true,
		Breaks: "an evaluation's question_count above 100 is kept as 100 (the answer shows the value sent)",
		Request: jsonRequest(ops(spec.OpCreateEvaluation), func(x *Exchange, body map[string]any) bool {
			n, ok := body["question_count"].(json.Number)
			if v, err := n.Int64(); !ok || err != nil || v <= 100 {
				return false
			}
			x.Note = n
			body["question_count"] = 100
			return true
		}),
		Answer: setData("question_count")},

	// ---- lists that lie ----
	{Name: "list-models-omit-training", Area: "explore", Explore: true,
		Breaks: "the model list leaves out models still pending or training",
		Answer: onOperation(ops(spec.OpListModels), jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if list, ok := dig(v, "data").([]any); ok {
				kept := []any{}
				for _, m := range list {
					if s := dig(m, "status"); s != "pending" && s != "training" {
						kept = append(kept, m)
					}
				}
				v.(map[string]any)["data"] = kept
			}
			return v
		}))},
	{Name: "list-datasets-omit-non-ascii", Area: "explore", Explore: true,
		Breaks: "the dataset list leaves out datasets whose name is not ASCII",
		Answer: onOperation(ops(spec.OpListDatasets), jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if list, ok := dig(v, "data").([]any); ok {
				kept := []any{}
				for _, d := range list {
					if name, _ := dig(d, "name").(string); isASCII(name) {
						kept = append(kept, d)
					}
				}
				v.(map[string]any)["data"] = kept
			}
			return v
		}))},
	{Name: "list-conversations-not-scoped", Area: "explore", Explore: true,
		Breaks: "a model's conversation list also holds the conversations of the account's other models",
		Answer: onOperation(opListConversations, func(x *Exchange, a *Answer) {
			q := x.Client.URL.Query()
			if a.Status != http.StatusOK || q.Get("offset") != "" && q.Get("offset") != "0" {
				return
			}
			jsonAnswer(func(x *Exchange, _ int, v any) any {
				list, ok := dig(v, "data").([]any)
				if !ok {
					return v
				}
				models, _ := x.askData(collectionOf("model_id"))
				ms, _ := models.([]any)
				for _, m := range ms {
					id := fmt.Sprint(dig(m, "id"))
					if id == q.Get("model_id") {
						continue
					}
					target, _ := listPage("conversation_id", 0, url.Values{"model_id": {id}})
					others, _ := x.askData(target)
					o, _ := others.([]any)
					list = append(list, o...)
				}
				v.(map[string]any)["data"] = list
				return v
			})(x, a)
		})},
	{Name: "list-evaluations-total-undercounts", Area: "explore", Explore: true,
		Breaks: "the evaluation list's total counts only the evaluations on the page",
		Answer: onOperation(opListEvaluations, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				if list, ok := d["evaluations"].([]any); ok {
					d["total"] = len(list)
				}
			}
			return v
		}))},

	// ---- valid but unusual input answered 5xx ----
	{Name: "unusual-500-title-beyond-latin1", Area: "explore", Explore: true,
		Breaks: "a conversation title with characters beyond Latin-1 (Czech, CJK, emoji) is answered 500",
		Answer: func(x *Exchange, a *Answer) {
			if !x.is(opTitledConversation) || a.Status != http.StatusOK {
				return
			}
			v, _ := decode(a.Body)
			if t, ok := dig(dig(v, "data"), "title").(string); ok && beyond(t, 0xFF) {
				serverError(a)
			}
		}},
	{Name: "unusual-500-dataset-name-emoji", Area: "explore", Explore: true,
		Breaks: "a dataset name with a character beyond the Basic Multilingual Plane (an emoji) is answered 500",
		Answer: onOperation(ops(spec.OpCreateDataset), func(_ *Exchange, a *Answer) {
			v, _ := decode(a.Body)
			if n, ok := dig(dig(v, "data"), "name").(string); ok && beyond(n, 0xFFFF) {
				serverError(a)
			}
		})},
	{Name: "unusual-500-negative-id", Area: "explore", Explore: true,
		Breaks: "a negative id in a path is answered 500",
		Answer: func(x *Exchange, a *Answer) {
			for _, seg := range strings.Split(x.Client.URL.Path, "/") {
				if _, err := strconv.ParseInt(seg, 10, 64); err == nil && strings.HasPrefix(seg, "-") && strings.HasPrefix(x.Client.URL.Path, "/api/v1/") {
					serverError(a)
					return
				}
			}
		}},
	{Name: "unusual-500-max-tokens-large", Area: "explore", Explore: true,
		Breaks: "an inference with max_tokens above 100000 is answered 500",
		Request: jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
			if n, ok := body["max_tokens"].(json.Number); ok {
				if v, err := n.Int64(); err == nil && v > 100000 {
					x.Req.Header.Set("Prefer", "code=500") // the mock answers the operation's 500
				}
			}
			return false
		})},

	// ---- valid: a server may refuse or page differently where the seed is silent ----
	{Name: "valid-refuses-long-names", Area: "variant", Valid: true,
		Breaks: "names and titles over 40 characters are refused with a 422 envelope (the seed shows no length limit)",
		Request: refuseJSON(func(body map[string]any) bool {
			for _, k := range []string{"name", "model_name", "title"} {
				if s, ok := body[k].(string); ok && len([]rune(s)) > 40 {
					return true
				}
			}
			return false
		}),
		Answer: refusedAnswer},
	{Name: "valid-refuses-non-ascii", Area: "variant", Valid: true,
		Breaks: "text outside ASCII in a created or updated resource is refused with a 422 envelope",
		Request: refuseJSON(func(body map[string]any) bool {
			for _, v := range body {
				if s, ok := v.(string); ok && !isASCII(s) {
					return true
				}
			}
			return false
		}),
		Answer: refusedAnswer},
	{Name: "valid-smaller-pages", Area: "variant", Valid: true,
		Breaks: "list pages hold at most 5 items, whatever limit or per_page asks (page sizes are not shown)",
		Request: func(x *Exchange) {
			param := ""
			switch {
			case x.is(opListEvaluations):
				param = "per_page"
			case x.is(opConversationLists):
				param = "limit"
			default:
				return
			}
			// Only a valid size is changed: an invalid one stays the mock's to refuse.
			q := x.Req.URL.Query()
			if n, err := strconv.Atoi(q.Get(param)); q.Get(param) == "" || err == nil && n > 5 && n <= 100 {
				q.Set(param, "5")
				x.Req.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "valid-paging-names-other", Area: "variant", Valid: true,
		Breaks: "the evaluation list pages by parameters of other names: page and per_page are ignored, every call answers the first page of the default size (the names are decided, D-05)",
		Request: func(x *Exchange) {
			if !x.is(opListEvaluations) {
				return
			}
			q := x.Req.URL.Query()
			q.Del("page")
			q.Del("per_page")
			x.Req.URL.RawQuery = q.Encode()
		}},
}

// withhold takes field out of the body the mock gets and keeps its value
// in x.Note, for setData to show it in the answer.
func withhold(x *Exchange, body map[string]any, field string) bool {
	v, ok := body[field]
	if ok {
		x.Note = v
		delete(body, field)
	}
	return ok
}

// setData puts the value a request rewriter kept in x.Note back into the
// answer's data field, so the answer shows what was sent.
func setData(field string) answerFunc {
	return jsonAnswer(func(x *Exchange, status int, v any) any {
		if x.Note == nil || status != http.StatusOK {
			return v
		}
		if d, ok := dig(v, "data").(map[string]any); ok {
			d[field] = x.Note
		}
		return v
	})
}

func isASCII(s string) bool { return !beyond(s, unicode.MaxASCII) }

// beyond reports whether s has a character above limit.
func beyond(s string, limit rune) bool {
	for _, r := range s {
		if r > limit {
			return true
		}
	}
	return false
}

func serverError(a *Answer) {
	a.Status, a.Body = http.StatusInternalServerError, []byte(`{"status":"error","message":"Internal server error"}`)
}

// refusedPath is where a refused request goes instead of the mock's
// resources: nothing is created, and the answer is rewritten to a 422.
const refusedPath = "/api/v1/__refused-by-variant"

// refuseJSON sends a create or update whose JSON body refuse matches to a
// path the mock does not have. A request without a valid key is left to the
// mock: a key is checked before a body (§5.3: a bad key is a 401).
func refuseJSON(refuse func(map[string]any) bool) func(*Exchange) {
	return func(x *Exchange) {
		m := x.Req.Method
		if m != http.MethodPost && m != http.MethodPut && m != http.MethodPatch || x.is(opRunInference) || !x.keyed() {
			return
		}
		jsonRequest(nil, func(x *Exchange, body map[string]any) bool {
			if refuse(body) {
				x.Note = true
				x.Req.URL.Path = refusedPath
			}
			return false
		})(x)
	}
}

func refusedAnswer(x *Exchange, a *Answer) {
	if x.Note == true {
		a.Status, a.Body = http.StatusUnprocessableEntity, []byte(`{"status":"error","message":"value not accepted by this server"}`)
		a.Header.Set("Content-Type", "application/json")
	}
}

// keyed reports whether the request carries one of the server's keys (all
// requests do when the wrapper was not told the keys).
func (x *Exchange) keyed() bool {
	if len(x.opts.Keys) == 0 {
		return true
	}
	scheme, token, _ := strings.Cut(x.Req.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && slices.Contains(x.opts.Keys, strings.TrimSpace(token))
}
