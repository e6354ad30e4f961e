package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The model's other transports go out for real: a body chunked without a
// Content-Length, Expect: 100-continue (the body sent once the server
// reads it), a query string as given (a space %20), a path id written
// percent-encoded kept so on the wire.
func TestRequestsCarriedOtherwise(t *testing.T) {
	type seen struct {
		Length   int64
		Chunked  bool
		Expect   string
		RawPath  string
		Path     string
		RawQuery string
		Body     string
	}
	var got seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = seen{Length: r.ContentLength, Chunked: len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked",
			Expect: r.Header.Get("Expect"), RawPath: r.URL.RawPath, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Body: string(body)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	x := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/v1/user/model/%34", JSON: map[string]any{"a": 1}, Chunked: true, Continue: true,
		RawQuery: "name=a%20b"})
	if x.Status != http.StatusOK {
		t.Fatalf("%s: %s", x.Line(), x.Error)
	}
	if got.Length != -1 || !got.Chunked || got.Expect != "100-continue" || got.Body != `{"a":1}` {
		t.Errorf("body: %+v, want chunked after Expect: 100-continue", got)
	}
	if got.RawPath != "/api/v1/user/model/%34" || got.Path != "/api/v1/user/model/4" || got.RawQuery != "name=a%20b" {
		t.Errorf("URL: %+v", got)
	}
	if !strings.Contains(x.Curl, "Transfer-Encoding: chunked") || !strings.Contains(x.Curl, "%34") {
		t.Errorf("curl does not say how it was sent: %s", x.Curl)
	}
	c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/v1/user/model/4", JSON: map[string]any{"a": 1}})
	if got.Length != 7 || got.Chunked || got.Expect != "" || got.RawPath != "" {
		t.Errorf("a plain request: %+v", got)
	}
}
