package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"contractkit/spec"
)

// latitude are valid variants where the reference model has latitude: a
// server may differ from the mock there and the model must not object.
// The runner runs them with the Explore area only (Model).
// opListDatasets is the list whose order a latitude variant reverses.
var opListDatasets = ops(spec.OpListDatasets)

var latitude = []Mutant{
	{Name: "valid-rate-limited-one-in-five", Area: "variant", Valid: true, Model: true,
		Breaks: "one API request in five is answered 429 with Retry-After: 1 before anything is done (§8.4)",
		Serve:  oneInFive},
	{Name: "valid-datasets-newest-first", Area: "variant", Valid: true, Model: true,
		Breaks: "the dataset list is newest first (its order is not decided)",
		Answer: onOperation(opListDatasets, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if list, ok := dig(v, "data").([]any); ok {
				for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
					list[i], list[j] = list[j], list[i]
				}
			}
			return v
		}))},
	{Name: "valid-ids-scrambled", Area: "variant", Valid: true, Model: true,
		Breaks:  "model, dataset and evaluation ids are large and in no order (opaque numbers, not a sequence)",
		Request: unscrambleRequest,
		Answer: jsonAnswer(func(x *Exchange, _ int, v any) any {
			deletes := x.Client.Method == http.MethodDelete && x.route().area != "conversations"
			return walkJSON(v, func(k string, val any) any {
				switch id := val.(type) {
				case json.Number:
					if k == "id" || k == "model_id" || k == "dataset_id" {
						return scrambled(id.String())
					}
				case string:
					if k == "id" && deletes {
						return scrambled(id).String()
					}
				}
				return val
			})
		})},
	{Name: "valid-unicode-escaped", Area: "variant", Valid: true, Model: true,
		Breaks: `every character outside ASCII in a JSON answer or a stream chunk is written as a \u escape`,
		Answer: func(_ *Exchange, a *Answer) {
			if strings.HasPrefix(a.Header.Get("Content-Type"), "application/json") {
				a.Body = asciiJSON(a.Body)
			}
		},
		Stream: eachWrite(func(_ *Exchange, _ int, p []byte) []byte { return asciiJSON(p) })},
	{Name: "valid-timestamps-other-zone", Area: "variant", Valid: true, Model: true,
		Breaks: "timestamps are written in the +01:00 zone with nanoseconds (the same instants)",
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			zone := time.FixedZone("", 3600)
			return walkJSON(v, func(_ string, val any) any {
				if s, ok := val.(string); ok && len(s) >= 20 && s[4] == '-' && s[10] == 'T' {
					if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
						return t.In(zone).Format("2006-01-02T15:04:05.000000000Z07:00")
					}
				}
				return val
			})
		})},
}

// The scrambled ids: a multiplication modulo 2^40 by an odd number, a
// bijection on the ids the mock gives (below 2^40) with a known inverse.
const (
	scrambleFactor = 0x5DEECE66D
	scrambleMask   = 1<<40 - 1
)

// scrambleInverse is scrambleFactor's inverse modulo 2^40 (Newton's
// iteration doubles the correct low bits at each step).
var scrambleInverse = func() uint64 {
	inv := uint64(scrambleFactor)
	for range 6 {
		inv *= 2 - scrambleFactor*inv
	}
	return inv & scrambleMask
}()

// scrambled maps a real id (decimal text) to the id the variant shows;
// text that is not a positive id is left as it is.
func scrambled(id string) json.Number {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n > scrambleMask {
		return json.Number(id)
	}
	return json.Number(strconv.FormatUint(n*scrambleFactor&scrambleMask, 10))
}

// unscrambled maps an id the variant showed back to the real one.
func unscrambled(id string) string {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n > scrambleMask {
		return id
	}
	return strconv.FormatUint(n*scrambleInverse&scrambleMask, 10)
}

// unscrambleRequest rewrites the ids a client sends back to the mock's:
// numeric path segments, the model_id query parameter, model_id and
// dataset_id in a JSON body (dataset too, the name D-21 reads as
// dataset_id) or a form.
func unscrambleRequest(x *Exchange) {
	r := x.Req
	segs := strings.Split(r.URL.Path, "/")
	for i, s := range segs {
		if _, err := strconv.ParseUint(s, 10, 64); err == nil && i > 0 {
			segs[i] = unscrambled(s)
		}
	}
	r.URL.Path = strings.Join(segs, "/")
	if q := r.URL.Query(); q.Has("model_id") {
		q.Set("model_id", unscrambled(q.Get("model_id")))
		r.URL.RawQuery = q.Encode()
	}
	if r.Method == http.MethodGet {
		return
	}
	jsonRequest(nil, func(_ *Exchange, body map[string]any) bool {
		changed := false
		for _, k := range []string{"model_id", "dataset_id", "dataset"} {
			switch id := body[k].(type) {
			case json.Number:
				body[k], changed = json.Number(unscrambled(id.String())), true
			case string:
				body[k], changed = unscrambled(id), true
			}
		}
		return changed
	})(x)
	rewriteFormField(x, "dataset_id", unscrambled)
}

// rewriteFormField rewrites one field of a multipart request body.
func rewriteFormField(x *Exchange, field string, f func(string) string) {
	r := x.Req
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || r.Body == nil {
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRewrittenBody()+1))
	if err != nil || int64(len(raw)) > maxRewrittenBody() {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), r.Body))
		return
	}
	var out bytes.Buffer
	w := multipart.NewWriter(&out)
	if w.SetBoundary(params["boundary"]) != nil {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		return
	}
	mr := multipart.NewReader(bytes.NewReader(raw), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		part, err := w.CreatePart(p.Header)
		if err != nil {
			break
		}
		data, _ := io.ReadAll(p)
		if p.FormName() == field && p.FileName() == "" {
			data = []byte(f(string(data)))
		}
		_, _ = part.Write(data)
	}
	_ = w.Close()
	r.Body = io.NopCloser(bytes.NewReader(out.Bytes()))
	r.ContentLength = int64(out.Len())
	r.Header.Del("Content-Length")
}

// asciiJSON writes every character of JSON text outside ASCII as a \u
// escape (a pair of them beyond the Basic Multilingual Plane): outside
// strings JSON has no such characters, so every one is inside a string.
func asciiJSON(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r < utf8.RuneSelf:
			out.WriteByte(b[0])
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out.Bytes()
}

// limited counts the API requests of valid-rate-limited-one-in-five (one
// mock serves one variant).
var limited atomic.Int64

// oneInFive answers every fifth API request itself: 429, Retry-After:
// 1 and the error envelope, the request not passed on (a refused request
// did nothing, §8.4).
func oneInFive(x *Exchange, w http.ResponseWriter) bool {
	if !strings.HasPrefix(x.Client.URL.Path, "/api/") || limited.Add(1)%5 != 0 {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"status":"error","message":"rate limit exceeded, retry in 1 s"}`))
	return true
}
