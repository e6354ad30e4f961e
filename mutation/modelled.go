package mutation

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"contractkit/spec"
)

// modelled are the mutants only the suite's reference model can kill
// (conformance/refmodel): bugs in what an answer says beyond what one
// sequence wrote into one resource — the effect of a write on other
// resources, fields computed from others, what each state allows, ids and
// keys close to real ones, values the reference names refused. Each is
// triggered by a state or a sequence, not by one request, and no written
// check provokes it. The runner runs them with the Explore area only
// (Model), where the suite's reference model phase kills them.
// The operations the modelled mutants name, and the paths they ask the
// wrapped mock.
var (
	opCreateConversation = ops(spec.OpCreateConversation)
	opUploadDatasetFiles = ops(spec.OpUploadDatasetFiles)
	opRunRagasEvaluation = ops(spec.OpRunRagasEvaluation)
	opUpdateEvaluation   = ops(spec.OpUpdateEvaluation)
	opGetEvaluation      = ops(spec.OpGetEvaluation)
	opListMessages       = ops(spec.OpListMessages)
	opGetDataset         = ops(spec.OpGetDataset)
)

// The collections' paths, read from the contract when a wrapper first asks
// (functions, not package variables: read at init, they would build the
// contract in every program linking the wrappers, see maxRewrittenBody).
func pathModels() string        { return collectionOf("model_id") }
func pathDatasets() string      { return collectionOf("dataset_id") }
func pathConversations() string { return collectionOf("conversation_id") }
func pathEvaluations() string   { return collectionOf("evaluation_id") }

var modelled = []Mutant{
	// ---- the effect of a write on other resources (D-32) ----
	{Name: "effect-later-exchanges-not-kept", Area: "model", Model: true, Decided: "D-32",
		Breaks: "an inference continuing a conversation that already has messages stores nothing (the first exchange is kept)",
		Request: jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
			id, _ := body["conversation_id"].(string)
			if id == "" {
				return false
			}
			msgs, _ := x.askData(pathConversations() + "/" + url.PathEscape(id) + "/messages?limit=100")
			if list, _ := msgs.([]any); len(list) < 2 {
				return false
			}
			x.Note = id
			delete(body, "conversation_id")
			return true
		}),
		Answer: setData("conversation_id"),
		Stream: eachWrite(func(x *Exchange, _ int, p []byte) []byte {
			id, ok := x.Note.(string)
			if !ok || !bytes.Contains(p, []byte(`"type":"done"`)) {
				return p
			}
			q, _ := json.Marshal(id)
			return bytes.Replace(p, []byte("data: {"), append([]byte(`data: {"conversation_id":`), append(q, ',')...), 1)
		})},
	{Name: "effect-deleted-model-summary-kept", Area: "model", Model: true, Decided: "D-32",
		Breaks: "an evaluation of a deleted model still shows the model's status as ready",
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if m, ok := x.(map[string]any); ok && k == "model" && m["status"] == nil && m["id"] != nil {
					m["status"] = "ready"
				}
				return x
			})
		}))},
	{Name: "effect-erased-name-on-soft-delete", Area: "model", Model: true, Decided: "D-32",
		Breaks: "a model whose dataset was soft-deleted shows an empty dataset_info.name",
		Answer: onArea("models", jsonAnswer(func(x *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, m any) any {
				obj, ok := m.(map[string]any)
				info, hasInfo := obj["dataset_info"].(map[string]any)
				if !ok || !hasInfo || obj["dataset_id"] == nil {
					return m
				}
				if rec := x.ask(http.MethodGet, pathDatasets()+"/"+jsonString(obj["dataset_id"]), nil); rec.Code == http.StatusNotFound {
					info["name"] = ""
				}
				return m
			})
		}))},

	// ---- fields computed from others (D-33) ----
	{Name: "computed-total-messages-first-exchange", Area: "model", Model: true, Decided: "D-33",
		Breaks: "a conversation's total_messages stops at 2: only the first exchange is counted",
		Answer: onArea("conversations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if n, ok := x.(json.Number); ok && k == "total_messages" {
					if i, _ := n.Int64(); i > 2 {
						return 2
					}
				}
				return x
			})
		}))},
	{Name: "computed-file-count-distinct-names", Area: "model", Model: true, Decided: "D-33",
		Breaks: "a dataset's file_count counts distinct file names: a file uploaded again under its name is not counted",
		Answer: onArea("datasets", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				m, ok := x.(map[string]any)
				files, has := m["files"].([]any)
				if !ok || !has || m["file_count"] == nil {
					return x
				}
				names := map[string]bool{}
				for _, f := range files {
					n, _ := dig(f, "name").(string)
					names[n] = true
				}
				m["file_count"] = len(names)
				return x
			})
		}))},
	{Name: "computed-files-failed-zero", Area: "model", Model: true, Decided: "D-16",
		Breaks: "an upload's files_failed is 0 even when failed_files names a file",
		Answer: onOperation(opUploadDatasetFiles, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok && d["files_failed"] != nil {
				d["files_failed"] = 0
			}
			return v
		}))},
	{Name: "computed-per-page-default-10", Area: "model", Model: true, Decided: "D-05",
		Breaks: "the evaluation list says per_page 10 when the request names none (the page holds up to 20)",
		Answer: onOperation(opListEvaluations, func(x *Exchange, a *Answer) {
			if x.Client.URL.Query().Has("per_page") {
				return
			}
			jsonAnswer(func(_ *Exchange, _ int, v any) any {
				if d, ok := dig(v, "data").(map[string]any); ok && d["per_page"] != nil {
					d["per_page"] = 10
				}
				return v
			})(x, a)
		})},
	{Name: "computed-ragas-scores-first-sample", Area: "model", Model: true, Decided: "D-10",
		Breaks: "run-ragas reports the first sample's scores as the evaluation's scores, not their mean",
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				m, ok := x.(map[string]any)
				samples, has := m["samples"].([]any)
				if ok && has && len(samples) > 1 && m["scores"] != nil {
					if first := dig(samples[0], "scores"); first != nil {
						m["scores"] = first
					}
				}
				return x
			})
		}))},

	// ---- what each state allows (D-10, D-23, D-36) ----
	{Name: "state-ragas-while-running", Area: "model", Model: true, Decided: "D-10",
		Breaks: "run-ragas on a running evaluation answers 200 with the evaluation, unchanged",
		Answer: onStatus(http.StatusConflict, func(x *Exchange, a *Answer) {
			if x.is(opRunRagasEvaluation) {
				rec := x.ask(http.MethodGet, pathEvaluations()+"/"+url.PathEscape(x.param("evaluation_id")), nil)
				a.Status, a.Body = rec.Code, rec.Body.Bytes()
			}
		})},
	{Name: "state-update-while-running-refused", Area: "model", Model: true, Decided: "D-36",
		Breaks: "an evaluation's name or description cannot be updated while it runs (409)",
		Request: func(x *Exchange) {
			if !x.is(opUpdateEvaluation) {
				return
			}
			if e, ok := x.askData(x.Req.URL.Path); ok && dig(e, "status") == "running" {
				refuse(x, http.StatusConflict)
			}
		}},
	{Name: "state-inference-while-training-refused", Area: "model", Model: true, Decided: "D-23",
		Breaks: "an inference on a model still pending or training is refused (409)",
		Request: jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
			if m, ok := x.askData(pathModels() + "/" + jsonString(body["model_id"])); ok {
				if s := dig(m, "status"); s == "pending" || s == "training" {
					refuse(x, http.StatusConflict)
				}
			}
			return false
		})},
	{Name: "state-conversation-on-pending-model-refused", Area: "model", Model: true, Decided: "D-36",
		Breaks: "a conversation cannot be opened on a model that is still pending (422)",
		Request: jsonRequest(opCreateConversation, func(x *Exchange, body map[string]any) bool {
			if m, ok := x.askData(pathModels() + "/" + jsonString(body["model_id"])); ok && dig(m, "status") == "pending" {
				refuse(x, http.StatusUnprocessableEntity)
			}
			return false
		})},

	// ---- ids and keys close to real ones ----
	{Name: "near-key-last-character-ignored", Area: "model", Model: true,
		Breaks: "a key that differs from a real one only in its last character is accepted",
		Request: func(x *Exchange) {
			_, token, _ := strings.Cut(x.Req.Header.Get("Authorization"), " ")
			for _, k := range x.opts.Keys {
				if token != k && len(token) == len(k) && len(k) > 1 && token[:len(k)-1] == k[:len(k)-1] {
					x.Req.Header.Set("Authorization", "Bearer "+k)
				}
			}
		}},
	{Name: "near-id-rounds-down", Area: "model", Model: true,
		Breaks: "an evaluation id no evaluation has is served as the one before it",
		Request: func(x *Exchange) {
			n, err := strconv.ParseInt(x.param("evaluation_id"), 10, 64)
			if !x.is(opGetEvaluation) || err != nil {
				return
			}
			if rec := x.ask(http.MethodGet, x.Req.URL.Path, nil); rec.Code == http.StatusNotFound {
				x.Req.URL.Path = pathEvaluations() + "/" + strconv.FormatInt(n-1, 10)
			}
		}},
	{Name: "near-uuid-prefix-matched", Area: "model", Model: true,
		Breaks: "a conversation id that differs from a real one in its last character reaches that conversation's messages",
		Request: func(x *Exchange) {
			id := x.param("conversation_id")
			if !x.is(opListMessages) || len(id) < 2 {
				return
			}
			if rec := x.ask(http.MethodGet, x.Req.URL.Path, nil); rec.Code != http.StatusNotFound {
				return
			}
			if real := x.conversationLike(id[:len(id)-1]); real != "" {
				x.Req.URL.Path = pathConversations() + "/" + real + "/messages"
			}
		}},
	{Name: "near-other-account-dataset-served", Area: "model", Model: true,
		Breaks: "a dataset id of the other account is served (the lookup falls back to every account)",
		Request: func(x *Exchange) {
			if !x.is(opGetDataset) {
				return
			}
			if rec := x.ask(http.MethodGet, x.Req.URL.Path, nil); rec.Code != http.StatusNotFound {
				return
			}
			for _, k := range x.opts.Keys {
				probe := x.Req.Clone(x.Req.Context())
				probe.Header.Set("Authorization", "Bearer "+k)
				if rec := x.askAs(probe); rec.Code == http.StatusOK {
					x.Req.Header.Set("Authorization", "Bearer "+k)
					return
				}
			}
		}},

	// ---- values the reference names, refused ----
	{Name: "named-length-detailed-refused", Area: "model", Model: true,
		Breaks: `an inference with response_length_preference "detailed" (a value §4.4 names) is refused (422)`,
		Request: jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
			if body["response_length_preference"] == "detailed" {
				refuse(x, http.StatusUnprocessableEntity)
			}
			return false
		})},
	{Name: "named-status-failed-refused", Area: "model", Model: true,
		Breaks: "the evaluation list filtered by status failed (a value §3.1 names) is refused (422)",
		Request: func(x *Exchange) {
			if x.is(opListEvaluations) && x.Req.URL.Query().Get("status") == "failed" {
				refuse(x, http.StatusUnprocessableEntity)
			}
		}},
	{Name: "named-temperature-one-refused", Area: "model", Model: true,
		Breaks: "an inference with temperature 1 (the top of the range §8.1 states) is refused (422)",
		Request: func(x *Exchange) {
			jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
				if n, ok := body["temperature"].(json.Number); ok {
					if f, err := n.Float64(); err == nil && f == 1 {
						refuse(x, http.StatusUnprocessableEntity)
					}
				}
				return false
			})(x)
		}},
	// Decided, not declared: that the name is free, so nothing else can be
	// refused, is D-19's reading.
	{Name: "named-benchmark-beir-refused", Area: "model", Model: true, Decided: "D-19",
		Breaks:  `an evaluation create naming benchmark_type "beir" (the value §4.5 shows) is refused (422)`,
		Request: refuseJSON(func(body map[string]any) bool { return body["benchmark_type"] == "beir" }),
		Answer:  refusedAnswer},
}

// Modelled returns the mutants only the reference model kills and the
// variants where the model has latitude, sorted by name: the entries of
// List marked Model.
func Modelled() []Mutant {
	out := slices.Concat(modelled, latitude, defaulted, inputMutants, unseenMutants, inputLatitude, transportMutants, transportVariants,
		modelledOf(seedFormMutants), seedFormLatitude)
	slices.SortFunc(out, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// refuse sends the request to a path the mock does not have, so nothing
// happens, and notes the status refusedWith answers; a request without a
// valid key is left to the mock (its 401 comes first, §5.3).
func refuse(x *Exchange, status int) {
	if x.keyed() {
		x.Note, x.Req.URL.Path = status, refusedPath
	}
}

// refusedWith answers a refused request with the status refuse noted
// (the wrapper calls it for every request sent to refusedPath).
func refusedWith(x *Exchange, a *Answer) {
	if status, ok := x.Note.(int); ok {
		a.Status, a.Body = status, []byte(`{"status":"error","message":"not accepted by this server"}`)
		a.Header.Set("Content-Type", "application/json")
	}
}

// askAs sends r through the wrapped handler as it is.
func (x *Exchange) askAs(r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	x.next.ServeHTTP(rec, r)
	return rec
}

// conversationLike finds a conversation of the caller's account whose id
// starts with prefix, "" when none does.
func (x *Exchange) conversationLike(prefix string) string {
	models, _ := x.askData(pathModels())
	list, _ := models.([]any)
	for _, m := range list {
		data, _ := x.askData(pathConversations() + "?limit=100&model_id=" + url.QueryEscape(jsonString(dig(m, "id"))))
		convs, _ := data.([]any)
		for _, c := range convs {
			if id, _ := dig(c, "id").(string); strings.HasPrefix(id, prefix) {
				return id
			}
		}
	}
	return ""
}
