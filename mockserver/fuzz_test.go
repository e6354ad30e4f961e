package mockserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"contractkit/spec"
)

// FuzzRequests holds the mock to "bad input of any kind gets a 4xx
// envelope; never a 5xx, never a crash": any body, content type, path id and
// query sent to any operation. `go test` runs the seed corpus; `go test
// -fuzz FuzzRequests ./mockserver/` explores further.
func FuzzRequests(f *testing.F) {
	ts := newTestServer(f)
	ops := spec.Strict().Operations
	for i := range ops {
		f.Add(uint8(i), "application/json", "7", "", `{"query":"q","model_id":7}`)
		f.Add(uint8(i), "application/json", "%2e%2e", "limit=-1&page=0", `{"a":[[[[[[[[1]]]]]]]]}`)
		f.Add(uint8(i), "multipart/form-data; boundary=x", "1", "permanent=maybe", "--x\r\nContent-Disposition: form-data; name=\"files\"; filename=\"../../etc/passwd\"\r\n\r\nhello\r\n--x--\r\n")
		f.Add(uint8(i), "text/plain", "99999999999999999999", "status=done", "\x00\xff")
		f.Add(uint8(i), "application/json", "-1", "name="+strings.Repeat("n", 300), `{"model_name":"","dataset_id":{},"temperature":"hot","samples":[{}]}`)
	}
	f.Fuzz(func(t *testing.T, opIndex uint8, contentType, id, query, body string) {
		op := ops[int(opIndex)%len(ops)]
		path := op.Path
		for _, p := range []string{"{model_id}", "{conversation_id}", "{dataset_id}", "{evaluation_id}"} {
			path = strings.ReplaceAll(path, p, pathSegment(id))
		}
		req := httptest.NewRequest(op.Method, path, strings.NewReader(body))
		req.URL.RawQuery = url.QueryEscape(query)
		if v, err := url.ParseQuery(query); err == nil {
			req.URL.RawQuery = v.Encode()
		}
		req.Header.Set("Authorization", "Bearer "+testKey1)
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s (%q): got %d %s", op.Method, req.URL, contentType, rec.Code, rec.Body)
		}
		if rec.Code == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			return
		}
		var env map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || (env["status"] != "success" && env["status"] != "error") {
			t.Fatalf("%s %s: %d answer is not the envelope: %s", op.Method, req.URL, rec.Code, rec.Body)
		}
	})
}

// pathSegment makes fuzzed text usable as one path segment.
func pathSegment(s string) string {
	if s == "" {
		return "x"
	}
	return url.PathEscape(s)
}
