package mutation

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"contractkit/spec"
)

// latencyMS is a done chunk's integer latency_ms.
var latencyMS = regexp.MustCompile(`"latency_ms":(\d+)`)

// mutants is every deliberate violation, and every valid variant, a wrapped
// mock can show (mockserver --break NAME). Adding one is adding an entry
// here; `make mutation` runs the conformance suite against each of them.
// No entry may read the mock's error messages: they are not the contract.
var mutants = []Mutant{
	// ---- auth (seed §5) ----
	{Name: "auth-missing-key-accepted", Area: "auth", Breaks: "a request without Authorization is served",
		Request: func(x *Exchange) {
			if !strings.HasPrefix(x.Req.URL.Path, adminPrefix) && x.Req.Header.Get("Authorization") == "" {
				x.useFirstKey()
			}
		}},
	{Name: "auth-unknown-key-accepted", Area: "auth", Breaks: "any Bearer key is accepted",
		Request: func(x *Exchange) {
			scheme, token, _ := strings.Cut(x.Req.Header.Get("Authorization"), " ")
			if !strings.HasPrefix(x.Req.URL.Path, adminPrefix) && strings.EqualFold(scheme, "Bearer") &&
				!slices.Contains(x.opts.Keys, strings.TrimSpace(token)) {
				x.useFirstKey()
			}
		}},
	{Name: "auth-403-not-401", Area: "auth", Breaks: "a bad key is answered 403 instead of 401",
		Answer: onStatus(http.StatusUnauthorized, func(_ *Exchange, a *Answer) { a.Status = http.StatusForbidden })},

	// ---- isolation (seed §4.1 "the caller's account", §5) ----
	// Every valid key reaches the first key's account: each key still
	// authenticates, but the accounts are one.
	{Name: "accounts-shared", Area: "isolation", Breaks: "every valid key is served the first key's account",
		Request: func(x *Exchange) {
			scheme, token, _ := strings.Cut(x.Req.Header.Get("Authorization"), " ")
			if len(x.opts.Keys) > 1 && strings.EqualFold(scheme, "Bearer") && slices.Contains(x.opts.Keys[1:], strings.TrimSpace(token)) {
				x.useFirstKey()
			}
		}},

	// ---- envelope (seed §1) ----
	{Name: "envelope-status-missing", Area: "envelope", Breaks: "success bodies lack status",
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any { return dropKey(v, "status") })},
	{Name: "envelope-status-ok", Area: "envelope", Breaks: `status is "ok" instead of "success"`,
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any { return setTop(v, "status", "success", "ok") })},
	{Name: "error-without-message", Area: "envelope", Breaks: "error bodies lack message",
		Answer: jsonAnswer(func(_ *Exchange, status int, v any) any {
			if status >= 400 {
				return dropKey(v, "message")
			}
			return v
		})},
	{Name: "data-not-wrapped", Area: "envelope", Breaks: "success answers are the bare data, without the envelope",
		Answer: jsonAnswer(func(_ *Exchange, status int, v any) any {
			if m, ok := v.(map[string]any); ok && status < 300 {
				if d, ok := m["data"]; ok {
					return d
				}
			}
			return v
		})},
	{Name: "json-as-text-plain", Area: "envelope", Breaks: "JSON answers are labelled text/plain",
		Answer: func(_ *Exchange, a *Answer) {
			if strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") {
				a.Header.Set("Content-Type", "text/plain; charset=utf-8")
			}
		}},

	// ---- types and shapes (seed §2) ----
	{Name: "ids-as-strings", Area: "shapes", Breaks: "integer ids are sent as strings",
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if n, ok := x.(json.Number); ok && (k == "id" || k == "model_id" || k == "dataset_id") {
					return n.String()
				}
				return x
			})
		})},
	{Name: "timestamps-not-iso8601", Area: "shapes", Breaks: "timestamps are not ISO 8601",
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if s, ok := x.(string); ok && strings.HasSuffix(k, "_at") {
					if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
						return t.Format("02/01/2006 15:04")
					}
				}
				return x
			})
		})},
	{Name: "booleans-as-strings", Area: "shapes", Breaks: `booleans are sent as "true"/"false"`,
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if b, ok := x.(bool); ok {
					return strconv.FormatBool(b)
				}
				return x
			})
		})},
	{Name: "model-name-missing", Area: "models", Breaks: "a model lacks its required name",
		Answer: onArea("models", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["graph_status"] != nil {
					delete(m, "name")
				}
				return x
			})
		}))},
	{Name: "evaluation-status-outside-enum", Area: "evaluations", Breaks: `a new evaluation's status is "queued"`,
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if k == "status" && x == "pending" {
					return "queued"
				}
				return x
			})
		}))},
	{Name: "dataset-list-as-object", Area: "datasets", Breaks: "the dataset list is an object, not an array",
		Answer: onOperation(ops(spec.OpListDatasets), jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if m, ok := v.(map[string]any); ok {
				m["data"] = map[string]any{"items": m["data"]}
			}
			return v
		}))},
	{Name: "paging-fields-missing", Area: "evaluations", Breaks: "the evaluation list lacks page, per_page and total",
		Answer: onOperation(opListEvaluations, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				delete(d, "page")
				delete(d, "per_page")
				delete(d, "total")
			}
			return v
		}))},

	// ---- behaviour ----
	{Name: "status-filter-ignored", Area: "evaluations", Decided: "D-05", Breaks: "the evaluation list ignores its status filter",
		Request: func(x *Exchange) {
			if x.is(opListEvaluations) {
				q := x.Req.URL.Query()
				q.Del("status")
				x.Req.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "not-found-as-200", Area: "errors", Breaks: "an unknown id is answered 200",
		Answer: onStatus(http.StatusNotFound, func(_ *Exchange, a *Answer) {
			a.Status, a.Body = http.StatusOK, []byte(`{"status":"success","data":{}}`)
		})},
	{Name: "not-found-as-500", Area: "errors", Breaks: "an unknown id is answered 500",
		Answer: onStatus(http.StatusNotFound, func(_ *Exchange, a *Answer) {
			a.Status, a.Body = http.StatusInternalServerError, []byte(`{"status":"error","message":"Internal server error"}`)
		})},
	// The mock accepts the body because the wrapper completes it from the
	// operation's example: to the client, the missing field was accepted.
	{Name: "required-field-not-enforced", Area: "validation", Breaks: "a body missing a required field is accepted",
		Request: func(x *Exchange) {
			if x.Req.Method == http.MethodPost || x.Req.Method == http.MethodPatch || x.Req.Method == http.MethodPut {
				jsonRequest(nil, fillRequired)(x)
			}
		}},
	{Name: "temperature-not-enforced", Area: "validation", Breaks: "temperature 1.5 is accepted",
		Request: jsonRequest(opRunInference, clamp("temperature"))},
	// The rename is done (so a bad title is still refused), then undone with
	// the title the conversation had: the answer shows the old title.
	{Name: "rename-ignored", Area: "conversations", Breaks: "a rename answers 200 but keeps the old title",
		Request: func(x *Exchange) {
			if x.is(opRenameConversation) {
				if title, ok := x.conversationTitle(x.param("conversation_id")); ok {
					x.Note = title
				}
			}
		},
		Answer: func(x *Exchange, a *Answer) {
			if old, ok := x.Note.(string); ok && a.Status == http.StatusOK {
				rec := x.ask(http.MethodPatch, x.Client.URL.Path, map[string]any{"title": old})
				a.Status, a.Body = rec.Code, rec.Body.Bytes()
			}
		}},
	{Name: "messages-not-kept", Area: "conversations", Breaks: "inference in a conversation stores no messages",
		Request: jsonRequest(opRunInference, func(_ *Exchange, body map[string]any) bool {
			_, had := body["conversation_id"]
			delete(body, "conversation_id")
			return had
		})},
	{Name: "upload-counts-wrong", Area: "datasets", Breaks: "files_uploaded counts one file too many",
		Answer: onOperation(ops(spec.OpUploadDatasetFiles), jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				if n, ok := d["files_uploaded"].(json.Number); ok {
					i, _ := n.Int64()
					d["files_uploaded"] = i + 1
				}
			}
			return v
		}))},
	// The DELETE reaches the mock as a GET: the model stays, and its answer
	// becomes the one a delete gives.
	{Name: "deleted-model-still-served", Area: "models", Breaks: "a deleted model is still served",
		Request: func(x *Exchange) {
			if x.is(opDeleteModel) {
				x.Req.Method = http.MethodGet
			}
		},
		Answer: func(x *Exchange, a *Answer) {
			if !x.is(opDeleteModel) || a.Status != http.StatusOK {
				return
			}
			v, _ := decode(a.Body)
			body, err := json.Marshal(map[string]any{"status": "success",
				"data": map[string]any{"message": "Model deleted", "id": jsonString(dig(dig(v, "data"), "id"))}})
			if err == nil {
				a.Body = body
			}
		}},

	// ---- streams (seed §4.4) ----
	{Name: "stream-wrong-content-type", Area: "inference", Breaks: "the stream is labelled application/octet-stream",
		Stream: func(_ *Exchange, h http.Header) StreamFilter {
			h.Set("Content-Type", "application/octet-stream")
			return StreamFilter{}
		}},
	{Name: "stream-without-done", Area: "inference", Breaks: "the stream does not end with data: [DONE]",
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			if bytes.Contains(p, []byte("[DONE]")) {
				return nil
			}
			return p
		})},
	{Name: "stream-chunks-not-json", Area: "inference", Breaks: "token chunks are plain text, not JSON",
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			var c struct{ Type, Content string }
			if bytes.HasPrefix(p, []byte("data: {")) && json.Unmarshal(bytes.TrimSpace(p[6:]), &c) == nil && c.Type == "token" {
				return []byte("data: " + c.Content + "\n\n")
			}
			return p
		})},
	{Name: "stream-lines-without-data", Area: "inference", Breaks: "events lack the data: field name",
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			return bytes.ReplaceAll(p, []byte("data: "), nil)
		})},
	// A blind-written server's fault: the written checks read the stream,
	// and the stream judge holds a done chunk's result fields to §2.11.
	{Name: "stream-done-latency-fraction", Area: "inference",
		Breaks: "the stream's done chunk carries latency_ms as fractional milliseconds (103.482, seconds × 1000), so the result a client assembles from the stream has a latency_ms that is not an integer; the JSON answer keeps an integer",
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			return latencyMS.ReplaceAll(p, []byte(`"latency_ms":${1}.482`))
		})},

	{Name: "stream-stalls", Area: "inference", Breaks: "the stream stops after the first token and never ends",
		Stream: func(x *Exchange, _ http.Header) StreamFilter {
			return StreamFilter{Write: func(out StreamOut, p []byte) error {
				if bytes.Contains(p, []byte(`"type":"token"`)) {
					<-x.Client.Context().Done() // hold the connection until the client gives up
					return x.Client.Context().Err()
				}
				_, err := out.Write(p)
				return err
			}}
		}},

	// ---- state (seed §3.1) ----
	{Name: "delete-running-evaluation-accepted", Area: "evaluations", Breaks: "deleting a running evaluation answers 200",
		Answer: onOperation(opDeleteEvaluation, onStatus(http.StatusConflict, func(_ *Exchange, a *Answer) {
			a.Status, a.Body = http.StatusOK, []byte(`{"status":"success","data":{"message":"Evaluation deleted"}}`)
		}))},
	{Name: "evaluation-never-finishes", Area: "evaluations", Breaks: "a started evaluation never leaves running",
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if k == "status" && (x == "completed" || x == "failed") {
					return "running"
				}
				return x
			})
		}))},

	// ---- valid variants: a conforming server may do these; the suite must pass ----
	{Name: "valid-extra-properties", Area: "variant", Valid: true, Breaks: "every object carries extra properties",
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok {
					m["x_vendor_extension"] = map[string]any{"note": "extra"}
				}
				return x
			})
		}),
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte {
			return bytes.Replace(p, []byte(`data: {"type"`), []byte(`data: {"x_trace":"abc","type"`), 1)
		})},
	{Name: "valid-delete-running-422", Area: "variant", Valid: true, Breaks: "the running-evaluation refusal is 422, not 409",
		Answer: onOperation(opDeleteEvaluation, onStatus(http.StatusConflict, func(_ *Exchange, a *Answer) {
			a.Status = http.StatusUnprocessableEntity
		}))},
	{Name: "valid-stream-comments-crlf", Area: "variant", Valid: true, Breaks: "events carry comments, event: and id: fields and CRLF line ends",
		Stream: eachWrite(func(_ *Exchange, n int, p []byte) []byte {
			if len(p) == 0 {
				return p
			}
			body := bytes.TrimRight(p, "\n")
			return []byte(": keep-alive\r\nevent: message\r\nid: " + strconv.Itoa(n) + "\r\n" + string(body) + "\r\n\r\n")
		})},
	{Name: "valid-json-charset", Area: "variant", Valid: true, Breaks: "JSON answers say application/json; charset=utf-8",
		Answer: func(_ *Exchange, a *Answer) {
			if a.Header.Get("Content-Type") == "application/json" {
				a.Header.Set("Content-Type", "application/json; charset=utf-8")
			}
		}},
	{Name: "valid-slow-answers", Area: "variant", Valid: true, Breaks: "every answer takes 40ms longer",
		Request: func(x *Exchange) {
			t := time.NewTimer(40 * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-x.Req.Context().Done():
			}
		}},
	{Name: "valid-model-status-completed", Area: "variant", Valid: true, Breaks: `a trained model's status is "completed" (a value real clients accept)`,
		Answer: onArea("models", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["status"] == "ready" && m["graph_status"] != nil {
					m["status"] = "completed"
				}
				return x
			})
		}))},
}

// jsonString is an id as the mock's delete answers carry it: a string.
func jsonString(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	s, _ := v.(string)
	return s
}

// useFirstKey makes the request carry the wrapped server's first key, so
// the server serves what the client sent without a valid one.
func (x *Exchange) useFirstKey() {
	if len(x.opts.Keys) > 0 {
		x.Req.Header.Set("Authorization", "Bearer "+x.opts.Keys[0])
	}
}
