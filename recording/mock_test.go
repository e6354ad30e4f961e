package recording_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver"
	"contractkit/mockserver/lifecycle"
	"contractkit/recording"
	"contractkit/spec/spectest"
)

// Keys of the test accounts: long enough to be unmistakable in a file.
const (
	key1 = "rec-test-key-one-5d2c9a"
	key2 = "rec-test-key-two-8e41f7"
)

var epoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// serve serves h on 127.0.0.1 until the test ends.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL
}

// startMock starts an in-process mock with both keys and the fixtures given
// (nil: none), on a fake clock.
func startMock(t *testing.T, fx *fixtures.Bundle) (string, *lifecycle.FakeClock) {
	t.Helper()
	clock := lifecycle.NewFakeClock(epoch)
	srv, err := mockserver.New(mockserver.Config{
		Keys: []string{key1, key2}, Seed: 11, Clock: clock, Fixtures: fx,
		TrainDuration: 30 * time.Second, EvalDuration: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return serve(t, srv), clock
}

// forwarder is a test-only stand-in for the proxy: it forwards each request
// to target, answers with what came back, and hands the exchange to rec.
func forwarder(t *testing.T, target string, rec *recording.Recorder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("forwarder: read request: %v", err)
			return
		}
		req, err := http.NewRequest(r.Method, target+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			t.Errorf("forwarder: %v", err)
			return
		}
		req.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("forwarder: %v", err)
			return
		}
		defer res.Body.Close()
		answer, err := io.ReadAll(res.Body)
		if err != nil {
			t.Errorf("forwarder: read answer: %v", err)
		}
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(answer)
		rec.Observe(recording.Exchange{
			Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, RequestHeader: r.Header.Clone(),
			RequestBody: body, Status: res.StatusCode, ResponseHeader: res.Header.Clone(), ResponseBody: answer,
		})
	})
}

// client talks to one base URL with one key; every answer it reads, from
// the mock or through the forwarder, is held to the contract (spectest).
type client struct {
	t         *testing.T
	base, key string
}

type filePart struct {
	name string
	data []byte
}

func (c client) do(method, path, contentType string, body []byte) (int, []byte, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := spectest.NewClient(c.t, nil).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return res.StatusCode, out, res.Header
}

// call sends a JSON body (nil: none), wants 200 and decodes `data` into out.
func (c client) call(method, path string, body any, out any) {
	c.t.Helper()
	var raw []byte
	ct := ""
	if body != nil {
		raw, _ = json.Marshal(body)
		ct = "application/json"
	}
	c.want(method, path, ct, raw, out)
}

func (c client) want(method, path, ct string, raw []byte, out any) {
	c.t.Helper()
	status, answer, _ := c.do(method, path, ct, raw)
	if status != http.StatusOK {
		c.t.Fatalf("%s %s: status %d: %s", method, path, status, answer)
	}
	if out == nil {
		return
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(answer, &env); err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		c.t.Fatalf("%s %s: data: %v", method, path, err)
	}
}

// form sends a multipart body.
func (c client) form(path string, fields [][2]string, files []filePart, out any) {
	c.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	for _, f := range files {
		p, _ := mw.CreateFormFile("files", f.name)
		_, _ = p.Write(f.data)
	}
	_ = mw.Close()
	c.want(http.MethodPost, path, mw.FormDataContentType(), buf.Bytes(), out)
}

// ask streams an inference answer and returns the joined token text.
func (c client) ask(modelID int64, conversationID, query string) string {
	c.t.Helper()
	raw, _ := json.Marshal(map[string]any{"query": query, "model_id": modelID, "conversation_id": conversationID})
	status, answer, h := c.do(http.MethodPost, "/api/v1/user/inference", "application/json", raw)
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		c.t.Fatalf("inference: status %d, %s: %s", status, h.Get("Content-Type"), answer)
	}
	var text strings.Builder
	for _, line := range strings.Split(string(answer), "\n") {
		var ch struct{ Type, Content string }
		if d, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(d), &ch) == nil && ch.Type == "token" {
			text.WriteString(ch.Content)
		}
	}
	return text.String()
}

func file(t *testing.T, name string) filePart {
	t.Helper()
	data, err := fixtures.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return filePart{name: name, data: data}
}

func idPath(format string, id any) string { return fmt.Sprintf(format, id) }
