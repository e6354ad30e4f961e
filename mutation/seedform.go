package mutation

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"contractkit/spec"
)

// seedFormMutants are servers that fail a rule the reference declares
// only when a request is sent in the reference's own form, one fault at a
// time, or meets a resource with relations: faults of servers written
// blind that the suite once let pass as decided differences (a check
// that sent D-08's comma-joined URLs, a deleted id that always came with
// a value the server refused first) or never sent (a lenient reading, a
// delete of a model that has conversations). The written-check ones run
// with the written checks; those marked Model with the Explore area.
var seedFormMutants = []Mutant{
	// ---- the seed's own form: one URL, no file part (§4.3) ----
	{Name: "dataset-urls-only-500", Area: "datasets",
		Breaks: "a dataset created from URLs alone, with no file part, is answered 500 (the handler reads the first file part unconditionally)",
		Request: func(x *Exchange) {
			if !x.is(opCreateDatasetOnly) || !x.keyed() {
				return
			}
			if _, files, ok := formParts(x); ok && len(files) == 0 {
				refuse(x, http.StatusInternalServerError)
			}
		}},

	// ---- a refusal the seed names, sent alone (§4.2, §4.4) ----
	{Name: "inference-deleted-conversation-continued", Area: "model", Model: true,
		Breaks: "an inference naming a deleted conversation is served as a new one (conversations are looked up with their deleted rows); the server also holds the tuning fields whose ranges the reference does not show to its own limits (top_k and max_tokens at least 16, image sizes at least 64, steps at least 10, session, user, tenant and thread ids UUIDs) and refuses others with 422 first",
		Request: func(x *Exchange) {
			if x.is(opDeleteConvs) {
				return // noted by the answer
			}
			jsonRequest(opRunInference, func(x *Exchange, body map[string]any) bool {
				if !x.keyed() {
					return false
				}
				if tuningRefused(body) {
					refuse(x, http.StatusUnprocessableEntity)
					return false
				}
				id, _ := body["conversation_id"].(string)
				if id == "" || !goneConversations.has(strings.ToLower(id)) {
					return false
				}
				delete(body, "conversation_id")
				return true
			})(x)
		},
		Answer: func(x *Exchange, a *Answer) {
			if x.is(opDeleteConvs) && a.Status == http.StatusOK && x.keyed() {
				goneConversations.add(strings.ToLower(x.param("conversation_id")))
			}
		}},

	// ---- a lenient reading answered another way than the plain request (D-21, §2.4) ----
	{Name: "conversation-model-id-string-echoed", Area: "model", Model: true,
		Breaks: "a conversation created with model_id sent as the string \"4\" (a reading D-21 lets a server give) is served, and its answer echoes model_id as that string where §2.4 says integer",
		Request: jsonRequest(opCreateConversation, func(x *Exchange, body map[string]any) bool {
			if s, ok := body["model_id"].(string); ok && x.keyed() {
				x.Note = s
			}
			return false
		}),
		Answer: onOperation(opCreateConversation, jsonAnswer(func(x *Exchange, status int, v any) any {
			s, ok := x.Note.(string)
			if d, isObj := dig(v, "data").(map[string]any); ok && isObj && status/100 == 2 {
				d["model_id"] = s
			}
			return v
		}))},

	// ---- relations before a delete (§4.1, §4.3) ----
	{Name: "delete-model-with-conversations-500", Area: "models",
		Breaks: "deleting a model that has conversations is answered 500 (a foreign key from the conversations table, the error not handled)",
		Request: func(x *Exchange) {
			if x.is(opDeleteModel) && x.keyed() && x.modelHas("conversations") {
				refuse(x, http.StatusInternalServerError)
			}
		}},
	{Name: "delete-model-with-evaluations-500", Area: "models",
		Breaks: "deleting a model that has evaluations is answered 500 (a foreign key from the evaluations table, the error not handled)",
		Request: func(x *Exchange) {
			if x.is(opDeleteModel) && x.keyed() && x.modelHas("evaluations") {
				refuse(x, http.StatusInternalServerError)
			}
		}},
	{Name: "delete-dataset-with-models-500", Area: "datasets",
		Breaks: "deleting a dataset that models were built from is answered 500 (a foreign key from the models table, the error not handled)",
		Request: func(x *Exchange) {
			if x.is(opDeleteDatasetOnly) && x.keyed() && x.datasetHasModels() {
				refuse(x, http.StatusInternalServerError)
			}
		}},
}

// seedFormVariants are servers within the reference where the seed shows
// nothing: the suite must pass them.
var seedFormVariants = []Mutant{
	{Name: "valid-delete-empty-envelope", Area: "variant", Valid: true,
		Breaks: "a model, conversation or dataset delete answers 200 with the bare success envelope {\"status\":\"success\",\"data\":{}} (§4.1-§4.3: the success body is not shown)",
		Answer: onOperation(opBodilessDeletes, func(_ *Exchange, a *Answer) {
			if a.Status/100 == 2 {
				a.Status, a.Body = http.StatusOK, []byte(`{"status":"success","data":{}}`)
				a.Header.Set("Content-Type", "application/json")
			}
		})},
}

// seedFormLatitude are servers the reference model must pass with no
// finding at all (Model).
var seedFormLatitude = []Mutant{
	{Name: "valid-lenient-readings-refused", Area: "variant", Valid: true, Model: true,
		Breaks: "every reading D-21 lets a server give is refused 422 instead (name for model_name or dataset_name, dataset for dataset_id, an integer dataset_id, a string model_id, a file part for files): a server may refuse a request that departs from the seed's table",
		Request: func(x *Exchange) {
			if x.keyed() && x.route().kin != nil && readsLeniently(x) {
				refuse(x, http.StatusUnprocessableEntity)
			}
		}},
}

var (
	opCreateDatasetOnly = ops(spec.OpCreateDataset)
	opBodilessDeletes   = ops(spec.OpDeleteModel, spec.OpDeleteConversation, spec.OpDeleteDataset)
	// goneConversations are the conversations one mutant's mock deleted
	// (lower case).
	goneConversations idSet
	uuidForm          = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// tuningRefused reports whether an inference body has a tuning field a
// server with limits of its own refuses: a number under its least, an
// id that is not a UUID.
func tuningRefused(body map[string]any) bool {
	below := func(v any, least float64) bool {
		n, ok := v.(json.Number)
		f, err := n.Float64()
		return ok && err == nil && f < least
	}
	if below(body["top_k"], 16) || below(body["max_tokens"], 16) {
		return true
	}
	if p, ok := body["image_parameters"].(map[string]any); ok {
		if below(p["width"], 64) || below(p["height"], 64) || below(p["steps"], 10) {
			return true
		}
	}
	for _, f := range []string{"session_id", "user_id", "tenant_id", "thread_id"} {
		if s, ok := body[f].(string); ok && !uuidForm.MatchString(s) {
			return true
		}
	}
	return false
}

// modelHas reports whether the model the path names has items in the
// collection named (its conversations, or evaluations of it).
func (x *Exchange) modelHas(what string) bool {
	id := x.param("model_id")
	switch what {
	case "conversations":
		data, _ := x.askData(pathConversations() + "?" + url.Values{"model_id": {id}}.Encode())
		list, _ := data.([]any)
		return len(list) > 0
	case "evaluations":
		const maxPages = 50
		for page := 1; page <= maxPages; page++ {
			data, _ := x.askData(pathEvaluations() + "?" + url.Values{"page": {strconv.Itoa(page)}, "per_page": {"100"}}.Encode())
			list, _ := dig(data, "evaluations").([]any)
			for _, e := range list {
				if jsonString(dig(e, "model_id")) == id {
					return true
				}
			}
			if len(list) < 100 {
				break
			}
		}
	}
	return false
}

// datasetHasModels reports whether a model of the account was built from
// the dataset the path names.
func (x *Exchange) datasetHasModels() bool {
	id := x.param("dataset_id")
	data, _ := x.askData(pathModels())
	list, _ := data.([]any)
	for _, m := range list {
		if jsonString(dig(m, "dataset_id")) == id {
			return true
		}
	}
	return false
}

// readsLeniently reports whether the request departs from the declared
// body only as one of the operation's x-lenient readings says (D-21): a
// field under another name, a value of another JSON type, a part under
// another name.
func readsLeniently(x *Exchange) bool {
	rs := spec.Strict().Readings(x.route().op)
	if len(rs) == 0 {
		return false
	}
	fields, files, isForm := formParts(x)
	var body map[string]any
	if !isForm {
		jsonRequest(nil, func(_ *Exchange, b map[string]any) bool {
			body = b
			return false
		})(x)
		if body == nil {
			return false
		}
	}
	has := func(name string) bool {
		if isForm {
			_, ok := fields[name]
			return ok || slices.Contains(files, name)
		}
		_, ok := body[name]
		return ok
	}
	for _, r := range rs {
		switch {
		case r.Alias != "" && has(r.Alias) && !has(r.Field):
			return true
		case r.Type != "" && !isForm:
			switch v := body[r.Field].(type) {
			case json.Number:
				if r.Type == "integer" {
					return true
				}
			case string:
				if _, err := strconv.ParseInt(v, 10, 64); err == nil && r.Type == "string" {
					return true
				}
			}
		}
	}
	return false
}

// formParts reads a multipart request's parts (put back for the mock):
// its text fields by name, and the field names of its file parts; ok is
// false when the request is not a readable form.
func formParts(x *Exchange) (fields map[string][]string, files []string, ok bool) {
	mt, params, err := mime.ParseMediaType(x.Req.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, nil, false
	}
	raw := peekBody(x, 64<<20)
	fields = map[string][]string{}
	mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return fields, files, err == io.EOF
		}
		if p.FileName() != "" {
			files = append(files, p.FormName())
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(p, 1<<20))
		fields[p.FormName()] = append(fields[p.FormName()], string(b))
	}
}

// modelledOf are the entries of a table marked Model.
func modelledOf(table []Mutant) []Mutant {
	var out []Mutant
	for _, m := range table {
		if m.Model {
			out = append(out, m)
		}
	}
	return out
}
