package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"

	"contractkit/spec"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---- answer rewriters ----

type answerFunc = func(x *Exchange, a *Answer)

// jsonAnswer decodes a JSON answer (numbers kept exact), lets f change it,
// and encodes it again; other answers pass unchanged.
func jsonAnswer(f func(x *Exchange, status int, v any) any) answerFunc {
	return func(x *Exchange, a *Answer) {
		if !strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") {
			return
		}
		v, ok := decode(a.Body)
		if !ok {
			return
		}
		if out, err := json.Marshal(f(x, a.Status, v)); err == nil {
			a.Body = out
		}
	}
}

// onStatus applies f only to answers with the given status.
func onStatus(want int, f answerFunc) answerFunc {
	return func(x *Exchange, a *Answer) {
		if a.Status == want {
			f(x, a)
		}
	}
}

// onArea applies f to answers of every operation of an area: the
// operations the contract tags with it ("models", "evaluations", ...).
func onArea(area string, f answerFunc) answerFunc {
	return func(x *Exchange, a *Answer) {
		if x.route().area == area {
			f(x, a)
		}
	}
}

// onOperation applies f to answers of the operations of s.
func onOperation(s opSet, f answerFunc) answerFunc {
	return func(x *Exchange, a *Answer) {
		if x.is(s) {
			f(x, a)
		}
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

func decode(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// ---- request rewriters ----

// maxRewrittenBody bounds the JSON request bodies a rewriter reads: the
// contract's JSON body bound (D-15, x-request-limits). A larger body passes
// unchanged, and the mock behind refuses it with 413 as the contract says.
// A function, not a package variable: read at init, it would build the
// contract in every program that links the wrappers (the mock does for
// --break, and builds it later anyway; the runner's tests start their
// fakes from a test binary that links them), half a second each, three
// under the race detector.
func maxRewrittenBody() int64 { return spec.RequestLimits().JSONBodyBytes }

// jsonRequest lets f change the JSON object body of requests to the
// operations of s (nil: every request). f reports whether it changed
// anything.
func jsonRequest(s opSet, f func(x *Exchange, body map[string]any) bool) func(x *Exchange) {
	return func(x *Exchange) {
		r := x.Req
		if s != nil && !x.is(s) || r.Body == nil || r.Body == http.NoBody ||
			!strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "application/json") {
			return
		}
		raw, err := io.ReadAll(io.LimitReader(r.Body, maxRewrittenBody()+1))
		rest := r.Body
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), rest)) // unchanged unless rewritten below
		if err != nil || int64(len(raw)) > maxRewrittenBody() {
			return
		}
		v, ok := decode(raw)
		body, isObject := v.(map[string]any)
		if !ok || !isObject || !f(x, body) {
			return
		}
		out, err := json.Marshal(body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
		r.Header.Del("Content-Length")
	}
}

// fillRequired adds every required property missing from body with its
// value in the operation's request example, which the contract proves
// valid; nested objects are filled the same way.
func fillRequired(x *Exchange, body map[string]any) bool {
	op := x.route().kin
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return false
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return false
	}
	var example any
	names := make([]string, 0, len(media.Examples))
	for name := range media.Examples {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if ex := media.Examples[name]; ex != nil && ex.Value != nil {
			example = ex.Value.Value
			break
		}
	}
	return fill(body, media.Schema.Value, example)
}

func fill(v map[string]any, s *openapi3.Schema, example any) bool {
	ex, _ := example.(map[string]any)
	schemas := []*openapi3.Schema{s}
	for _, sub := range s.AllOf {
		if sub.Value != nil {
			schemas = append(schemas, sub.Value)
		}
	}
	changed := false
	for _, s := range schemas {
		for _, name := range s.Required {
			if _, present := v[name]; !present && ex != nil && ex[name] != nil {
				v[name] = ex[name]
				changed = true
			}
		}
		for name, prop := range s.Properties {
			if child, ok := v[name].(map[string]any); ok && prop.Value != nil && fill(child, prop.Value, ex[name]) {
				changed = true
			}
		}
	}
	return changed
}

// clamp holds a numeric property of body within the bounds its schema in
// the operation gives.
func clamp(property string) func(x *Exchange, body map[string]any) bool {
	return func(x *Exchange, body map[string]any) bool {
		n, ok := body[property].(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil {
			return false
		}
		op := x.route().kin
		if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
			return false
		}
		media := op.RequestBody.Value.Content.Get("application/json")
		if media == nil || media.Schema == nil || media.Schema.Value == nil || media.Schema.Value.Properties[property] == nil {
			return false
		}
		s := media.Schema.Value.Properties[property].Value
		switch {
		case s.Max != nil && f > *s.Max:
			body[property] = *s.Max
		case s.Min != nil && f < *s.Min:
			body[property] = *s.Min
		default:
			return false
		}
		return true
	}
}

// ---- stream rewriters ----

type streamFunc = func(x *Exchange, h http.Header) StreamFilter

// eachWrite rewrites every write of a stream by f; n counts the writes from
// 0. An empty result writes nothing.
func eachWrite(f func(x *Exchange, n int, p []byte) []byte) streamFunc {
	return func(x *Exchange, _ http.Header) StreamFilter {
		n := 0
		return StreamFilter{Write: func(out StreamOut, p []byte) error {
			q := f(x, n, p)
			n++
			if len(q) == 0 {
				return nil
			}
			_, err := out.Write(q)
			return err
		}}
	}
}

// ---- asking the wrapped handler ----

// ask sends a request through the wrapped handler with the client's
// credentials and returns the whole answer.
func (x *Exchange) ask(method, target string, body any) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	r := httptest.NewRequestWithContext(x.Client.Context(), method, target, rd)
	r.RemoteAddr, r.Host = x.Client.RemoteAddr, x.Client.Host
	if auth := x.Req.Header.Get("Authorization"); auth != "" {
		r.Header.Set("Authorization", auth)
	}
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	x.next.ServeHTTP(rec, r)
	return rec
}

// askData GETs target through the wrapped handler and returns the data of
// a success answer.
func (x *Exchange) askData(target string) (any, bool) {
	rec := x.ask(http.MethodGet, target, nil)
	if rec.Code != http.StatusOK {
		return nil, false
	}
	v, ok := decode(rec.Body.Bytes())
	return dig(v, "data"), ok
}

// conversationTitle finds a conversation's title by listing the account's
// models and each model's conversations (there is no GET of one
// conversation).
func (x *Exchange) conversationTitle(id string) (string, bool) {
	const maxPages = 100
	models, _ := x.askData(collectionOf("model_id"))
	list, _ := models.([]any)
	for _, m := range list {
		for p := range maxPages {
			target, page := listPage("conversation_id", p, url.Values{"model_id": {fmt.Sprint(dig(m, "id"))}})
			data, _ := x.askData(target)
			convs, _ := data.([]any)
			for _, c := range convs {
				if dig(c, "id") == id {
					title, ok := dig(c, "title").(string)
					return title, ok
				}
			}
			if page == 0 || len(convs) < page {
				break
			}
		}
	}
	return "", false
}
