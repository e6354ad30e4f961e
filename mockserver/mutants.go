package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"contractkit/mockserver/apierr"
)

// mutants is every deliberate violation, and every valid variant, the mock
// can show (mockserver --break NAME). Adding one is adding an entry here;
// `make mutation` runs the conformance suite against each of them.
var mutants = []*mutant{
	// ---- auth (seed §5) ----
	{Name: "auth-missing-key-accepted", Area: "auth", Breaks: "a request without Authorization is served",
		AcceptKey: func(r *http.Request, _ error) bool { return r.Header.Get("Authorization") == "" }},
	{Name: "auth-unknown-key-accepted", Area: "auth", Breaks: "any Bearer key is accepted",
		AcceptKey: func(r *http.Request, _ error) bool {
			return strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "bearer ")
		}},
	{Name: "auth-403-not-401", Area: "auth", Breaks: "a bad key is answered 403 instead of 401",
		Rewrite: onStatus(http.StatusUnauthorized, func(_ *http.Request, _ int, b []byte) (int, []byte) { return http.StatusForbidden, b })},

	// ---- envelope (seed §1) ----
	{Name: "envelope-status-missing", Area: "envelope", Breaks: "success bodies lack status",
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any { return dropKey(v, "status") })},
	{Name: "envelope-status-ok", Area: "envelope", Breaks: `status is "ok" instead of "success"`,
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any { return setTop(v, "status", "success", "ok") })},
	{Name: "error-without-message", Area: "envelope", Breaks: "error bodies lack message",
		Rewrite: jsonRewrite(func(_ *http.Request, status int, v any) any {
			if status >= 400 {
				return dropKey(v, "message")
			}
			return v
		})},
	{Name: "data-not-wrapped", Area: "envelope", Breaks: "success answers are the bare data, without the envelope",
		Rewrite: jsonRewrite(func(_ *http.Request, status int, v any) any {
			if m, ok := v.(map[string]any); ok && status < 300 {
				if d, ok := m["data"]; ok {
					return d
				}
			}
			return v
		})},
	{Name: "json-as-text-plain", Area: "envelope", Breaks: "JSON answers are labelled text/plain",
		Rewrite: func(_ *http.Request, status int, h http.Header, b []byte) (int, []byte) {
			if strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				h.Set("Content-Type", "text/plain; charset=utf-8")
			}
			return status, b
		}},

	// ---- types and shapes (seed §2) ----
	{Name: "ids-as-strings", Area: "shapes", Breaks: "integer ids are sent as strings",
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if n, ok := x.(json.Number); ok && (k == "id" || k == "model_id" || k == "dataset_id") {
					return n.String()
				}
				return x
			})
		})},
	{Name: "timestamps-not-iso8601", Area: "shapes", Breaks: "timestamps are not ISO 8601",
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any {
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
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if b, ok := x.(bool); ok {
					if b {
						return "true"
					}
					return "false"
				}
				return x
			})
		})},
	{Name: "model-name-missing", Area: "models", Breaks: "a model lacks its required name",
		Rewrite: onPath("/api/v1/user/model", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["graph_status"] != nil {
					delete(m, "name")
				}
				return x
			})
		}))},
	{Name: "evaluation-status-outside-enum", Area: "evaluations", Breaks: `a new evaluation's status is "queued"`,
		Rewrite: onPath("/api/v1/evaluations", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if k == "status" && x == "pending" {
					return "queued"
				}
				return x
			})
		}))},
	{Name: "dataset-list-as-object", Area: "datasets", Breaks: "the dataset list is an object, not an array",
		Rewrite: onOperation("GET", "/api/v1/user/dataset", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			if m, ok := v.(map[string]any); ok {
				m["data"] = map[string]any{"items": m["data"]}
			}
			return v
		}))},
	{Name: "paging-fields-missing", Area: "evaluations", Breaks: "the evaluation list lacks page, per_page and total",
		Rewrite: onOperation("GET", "/api/v1/evaluations", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				delete(d, "page")
				delete(d, "per_page")
				delete(d, "total")
			}
			return v
		}))},

	// ---- behaviour ----
	{Name: "status-filter-ignored", Area: "evaluations", Decided: "D-05", Breaks: "the evaluation list ignores its status filter",
		Request: func(r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/api/v1/evaluations" {
				q := r.URL.Query()
				q.Del("status")
				r.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "not-found-as-200", Area: "errors", Breaks: "an unknown id is answered 200",
		Rewrite: onStatus(http.StatusNotFound, func(_ *http.Request, _ int, _ []byte) (int, []byte) {
			return http.StatusOK, []byte(`{"status":"success","data":{}}`)
		})},
	{Name: "not-found-as-500", Area: "errors", Breaks: "an unknown id is answered 500",
		Rewrite: onStatus(http.StatusNotFound, func(_ *http.Request, _ int, _ []byte) (int, []byte) {
			return http.StatusInternalServerError, []byte(`{"status":"error","message":"Internal server error"}`)
		})},
	{Name: "required-field-not-enforced", Area: "validation", Breaks: "a body missing a required field is accepted",
		SkipValidation: func(_ *call, err error) bool { return strings.Contains(err.Error(), "missing property") }},
	{Name: "temperature-not-enforced", Area: "validation", Breaks: "temperature 1.5 is accepted",
		SkipValidation: func(_ *call, err error) bool { return strings.HasPrefix(errMessage(err), "temperature:") }},
	{Name: "rename-ignored", Area: "conversations", Breaks: "a rename answers 200 but keeps the old title",
		Wrap: func(op string, next handler) handler {
			if op != "renameConversation" {
				return next
			}
			return func(c *call) (any, error) { return c.account.Conversation(c.params["conversation_id"]) }
		}},
	{Name: "messages-not-kept", Area: "conversations", Breaks: "inference in a conversation stores no messages",
		Wrap: func(op string, next handler) handler {
			if op != "runInference" {
				return next
			}
			return func(c *call) (any, error) {
				var body map[string]any
				if json.Unmarshal(c.body, &body) == nil {
					delete(body, "conversation_id")
					c.body, _ = json.Marshal(body)
				}
				return next(c)
			}
		}},
	{Name: "upload-counts-wrong", Area: "datasets", Breaks: "files_uploaded counts one file too many",
		Rewrite: onOperation("POST", "/api/v1/user/dataset/upload", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				if n, ok := d["files_uploaded"].(json.Number); ok {
					i, _ := n.Int64()
					d["files_uploaded"] = i + 1
				}
			}
			return v
		}))},
	{Name: "deleted-model-still-served", Area: "models", Breaks: "a deleted model is still served",
		Wrap: func(op string, next handler) handler {
			if op != "deleteModel" {
				return next
			}
			return func(c *call) (any, error) {
				m, err := c.account.Model(c.params["model_id"])
				if err != nil {
					return nil, err
				}
				return map[string]any{"message": "Model deleted", "id": m.ID}, nil
			}
		}},

	// ---- streams (seed §4.4) ----
	{Name: "stream-wrong-content-type", Area: "inference", Breaks: "the stream is labelled application/octet-stream",
		Stream: func(_ *http.Request, n int, h http.Header, p []byte) []byte {
			if n < 0 {
				h.Set("Content-Type", "application/octet-stream")
			}
			return p
		}},
	{Name: "stream-without-done", Area: "inference", Breaks: "the stream does not end with data: [DONE]",
		Stream: func(_ *http.Request, _ int, _ http.Header, p []byte) []byte {
			if bytes.Contains(p, []byte("[DONE]")) {
				return nil
			}
			return p
		}},
	{Name: "stream-chunks-not-json", Area: "inference", Breaks: "token chunks are plain text, not JSON",
		Stream: func(_ *http.Request, _ int, _ http.Header, p []byte) []byte {
			var c chunk
			if bytes.HasPrefix(p, []byte("data: {")) && json.Unmarshal(bytes.TrimSpace(p[6:]), &c) == nil && c.Type == "token" {
				return []byte("data: " + c.Content + "\n\n")
			}
			return p
		}},
	{Name: "stream-lines-without-data", Area: "inference", Breaks: "events lack the data: field name",
		Stream: func(_ *http.Request, _ int, _ http.Header, p []byte) []byte {
			return bytes.ReplaceAll(p, []byte("data: "), nil)
		}},
	{Name: "stream-stalls", Area: "inference", Breaks: "the stream stops after the first token and never ends",
		Stream: func(r *http.Request, _ int, _ http.Header, p []byte) []byte {
			if bytes.Contains(p, []byte(`"type":"token"`)) {
				<-r.Context().Done() // hold the connection until the client gives up
				return nil
			}
			return p
		}},

	// ---- state (seed §3.1) ----
	{Name: "delete-running-evaluation-accepted", Area: "evaluations", Breaks: "deleting a running evaluation answers 200",
		Rewrite: onStatus(http.StatusConflict, func(r *http.Request, status int, b []byte) (int, []byte) {
			if r.Method == http.MethodDelete {
				return http.StatusOK, []byte(`{"status":"success","data":{"message":"Evaluation deleted"}}`)
			}
			return status, b
		})},
	{Name: "evaluation-never-finishes", Area: "evaluations", Breaks: "a started evaluation never leaves running",
		Rewrite: onPath("/api/v1/evaluations", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if k == "status" && (x == "completed" || x == "failed") {
					return "running"
				}
				return x
			})
		}))},

	// ---- valid variants: a conforming server may do these; the suite must pass ----
	{Name: "valid-extra-properties", Area: "variant", Valid: true, Breaks: "every object carries extra properties",
		Rewrite: jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok {
					m["x_vendor_extension"] = map[string]any{"note": "extra"}
				}
				return x
			})
		}),
		Stream: func(_ *http.Request, _ int, _ http.Header, p []byte) []byte {
			return bytes.Replace(p, []byte(`data: {"type"`), []byte(`data: {"x_trace":"abc","type"`), 1)
		}},
	{Name: "valid-delete-running-422", Area: "variant", Valid: true, Breaks: "the running-evaluation refusal is 422, not 409",
		Rewrite: onStatus(http.StatusConflict, func(r *http.Request, status int, b []byte) (int, []byte) {
			if r.Method == http.MethodDelete {
				return http.StatusUnprocessableEntity, b
			}
			return status, b
		})},
	{Name: "valid-stream-comments-crlf", Area: "variant", Valid: true, Breaks: "events carry comments, event: and id: fields and CRLF line ends",
		Stream: func(_ *http.Request, n int, _ http.Header, p []byte) []byte {
			if n < 0 || len(p) == 0 {
				return p
			}
			body := bytes.TrimRight(p, "\n")
			return []byte(": keep-alive\r\nevent: message\r\nid: " + strconv.Itoa(n) + "\r\n" + string(body) + "\r\n\r\n")
		}},
	{Name: "valid-json-charset", Area: "variant", Valid: true, Breaks: "JSON answers say application/json; charset=utf-8",
		Rewrite: func(_ *http.Request, status int, h http.Header, b []byte) (int, []byte) {
			if h.Get("Content-Type") == "application/json" {
				h.Set("Content-Type", "application/json; charset=utf-8")
			}
			return status, b
		}},
	{Name: "valid-slow-answers", Area: "variant", Valid: true, Breaks: "every answer takes 40ms longer",
		Request: func(r *http.Request) {
			t := time.NewTimer(40 * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
			}
		}},
	{Name: "valid-model-status-completed", Area: "variant", Valid: true, Breaks: `a trained model's status is "completed" (a value real clients accept)`,
		Rewrite: onPath("/api/v1/user/model", jsonRewrite(func(_ *http.Request, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if m, ok := x.(map[string]any); ok && m["status"] == "ready" && m["graph_status"] != nil {
					m["status"] = "completed"
				}
				return x
			})
		}))},
}

// ---- rewriting helpers ----

type rewriteFunc = func(r *http.Request, status int, h http.Header, body []byte) (int, []byte)

// jsonRewrite decodes a JSON answer (numbers kept exact), lets f change it,
// and encodes it again; other answers pass unchanged.
func jsonRewrite(f func(r *http.Request, status int, v any) any) rewriteFunc {
	return func(r *http.Request, status int, h http.Header, body []byte) (int, []byte) {
		if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			return status, body
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return status, body
		}
		out, err := json.Marshal(f(r, status, v))
		if err != nil {
			return status, body
		}
		return status, out
	}
}

// onStatus applies f only to answers with the given status.
func onStatus(want int, f func(r *http.Request, status int, body []byte) (int, []byte)) rewriteFunc {
	return func(r *http.Request, status int, _ http.Header, body []byte) (int, []byte) {
		if status != want {
			return status, body
		}
		return f(r, status, body)
	}
}

// onPath applies f to answers of requests under prefix.
func onPath(prefix string, f rewriteFunc) rewriteFunc {
	return func(r *http.Request, status int, h http.Header, body []byte) (int, []byte) {
		if !strings.HasPrefix(r.URL.Path, prefix) {
			return status, body
		}
		return f(r, status, h, body)
	}
}

// onOperation applies f to answers of exactly method and path.
func onOperation(method, path string, f rewriteFunc) rewriteFunc {
	return func(r *http.Request, status int, h http.Header, body []byte) (int, []byte) {
		if r.Method != method || r.URL.Path != path {
			return status, body
		}
		return f(r, status, h, body)
	}
}

// walkJSON calls f on every value (with its key, "" in arrays), depth first,
// replacing each by f's result.
func walkJSON(v any, f func(key string, v any) any) any {
	var walk func(k string, v any) any
	walk = func(k string, v any) any {
		switch x := v.(type) {
		case map[string]any:
			for key, val := range x {
				x[key] = walk(key, val)
			}
		case []any:
			for i, val := range x {
				x[i] = walk("", val)
			}
		}
		return f(k, v)
	}
	return walk("", v)
}

func dropKey(v any, key string) any {
	if m, ok := v.(map[string]any); ok {
		delete(m, key)
	}
	return v
}

func setTop(v any, key string, from, to any) any {
	if m, ok := v.(map[string]any); ok && m[key] == from {
		m[key] = to
	}
	return v
}

func dig(v any, key string) any {
	if m, ok := v.(map[string]any); ok {
		return m[key]
	}
	return nil
}

func errMessage(err error) string {
	if e, ok := err.(*apierr.Error); ok {
		return e.Message
	}
	return err.Error()
}
