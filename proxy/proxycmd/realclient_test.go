package proxycmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"contractkit/mockserver"
	"contractkit/mockserver/lifecycle"
)

// A real client's flow — as public scripts drive the production service —
// through the proxy to the kit's own mock: the proxy exits 0, prints no
// VIOLATION, and its CLIENT lines name only the client's own deviations (an
// integer dataset_id, a reading the contract decides, D-21).
func TestARealClientsFlowThroughTheProxyPasses(t *testing.T) {
	clock := lifecycle.NewFakeClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	srv, err := mockserver.New(mockserver.Config{Keys: []string{testKey}, Clock: clock,
		TrainDuration: 5 * time.Second, EvalDuration: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mock := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Shutdown()
		mock.Close()
		srv.Close()
	})
	code, out, _ := runProxy(t, mock.URL, func(base string) {
		(&realClient{t: t, base: base + "/api/v1", clock: clock}).flow()
	})
	if code != ExitPass {
		t.Errorf("exit status %d, want %d", code, ExitPass)
	}
	var client []string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "VIOLATION "), strings.HasPrefix(line, "DECIDED "):
			t.Errorf("a finding against the kit's own mock: %s", line)
		case strings.HasPrefix(line, "CLIENT "):
			client = append(client, line)
		}
	}
	if len(client) != 1 || !strings.HasPrefix(client[0], "CLIENT createModel: /dataset_id: lenient: want a string, got ") || !strings.Contains(client[0], "(D-21)") {
		t.Errorf("CLIENT lines: want the integer dataset_id alone (D-21), got:\n%s", strings.Join(client, "\n"))
	}
	if !strings.Contains(out, "0 declared violation(s), 0 decided difference(s), 1 client fault(s)") {
		t.Errorf("the summary:\n%s", out)
	}
	if t.Failed() {
		t.Logf("the proxy's console:\n%s", out)
	}
}

// realClient does what the public clients of the service do, in their
// order and with their fields.
type realClient struct {
	t     *testing.T
	base  string
	clock *lifecycle.FakeClock
}

// call sends a request with the key and returns the status and the
// envelope's data (the body itself when there is no envelope).
func (c *realClient) call(method, path string, header http.Header, body io.Reader) (int, json.RawMessage) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &env) == nil && env.Status == "success" {
		return resp.StatusCode, env.Data
	}
	return resp.StatusCode, raw
}

func (c *realClient) json(method, path string, v any) (int, json.RawMessage) {
	c.t.Helper()
	var body io.Reader
	h := http.Header{}
	if v != nil {
		b, _ := json.Marshal(v)
		body = bytes.NewReader(b)
		h.Set("Content-Type", "application/json")
	}
	return c.call(method, path, h, body)
}

// form sends a multipart form: fields, then a `files` part per file.
func (c *realClient) form(path string, fields map[string]string, files map[string]string) (int, json.RawMessage) {
	c.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for name, text := range files {
		fw, _ := w.CreateFormFile("files", name)
		_, _ = io.WriteString(fw, text)
	}
	_ = w.Close()
	return c.call("POST", path, http.Header{"Content-Type": {w.FormDataContentType()}}, &b)
}

// want fails the flow when a step did not succeed as the client needs.
func (c *realClient) want(step string, status int, data json.RawMessage, into any) {
	c.t.Helper()
	if status/100 != 2 {
		c.t.Fatalf("%s: %d %s", step, status, data)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			c.t.Fatalf("%s: %v in %s", step, err, data)
		}
	}
}

type withID struct {
	ID json.Number `json:"id"`
}

func (c *realClient) flow() {
	// A dataset from files, then more files added to it.
	var ds withID
	st, data := c.form("/user/dataset", map[string]string{"dataset_name": "Handbook"},
		map[string]string{"handbook.md": "# Leave\n\nEmployees get 25 days of paid leave a year.\n"})
	c.want("dataset create", st, data, &ds)
	st, data = c.form("/user/dataset/upload", map[string]string{"dataset_id": ds.ID.String()},
		map[string]string{"warranty.txt": "The standard warranty period is 24 months.\n"})
	c.want("upload", st, data, nil)

	// A model: dataset_id sent as an integer first (D-21), then the
	// declared spelling.
	var first, model withID
	dsID, _ := ds.ID.Int64()
	st, data = c.json("POST", "/user/model", map[string]any{"model_name": "HR bot", "dataset_id": dsID, "description": "leave questions"})
	c.want("model create (integer dataset_id)", st, data, &first)
	st, data = c.json("POST", "/user/model", map[string]any{"model_name": "HR bot 2", "dataset_id": ds.ID.String(), "description": "leave questions"})
	c.want("model create", st, data, &model)

	// Readiness polled by GET: training, then (the clock moved) ready.
	var m struct {
		Status string `json:"status"`
	}
	st, data = c.json("GET", "/user/model/"+model.ID.String(), nil)
	c.want("model poll", st, data, &m)
	if m.Status == "ready" {
		c.t.Fatalf("the model is ready before its training time: %s", data)
	}
	c.clock.Advance(6 * time.Second)
	st, data = c.json("GET", "/user/model/"+model.ID.String(), nil)
	c.want("model poll", st, data, &m)
	if m.Status != "ready" {
		c.t.Fatalf("the model is not ready after its training time: %s", data)
	}

	// An inference as the client sends it, asking for one JSON answer.
	modelID, _ := model.ID.Int64()
	b, _ := json.Marshal(map[string]any{"query": "How many days of paid leave do employees get?", "model_id": modelID,
		"temperature": 0, "enable_web_search": false, "max_tokens": 800, "response_length_preference": "balanced",
		"thread_id": "6f1c2a9e-3b7d-4e15-9c2a-8d4e5f6a7b8c"})
	var answer struct {
		Response string `json:"response"`
	}
	st, data = c.call("POST", "/user/inference", http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, bytes.NewReader(b))
	c.want("inference", st, data, &answer)
	if answer.Response == "" {
		c.t.Fatalf("inference: no response text in %s", data)
	}

	// Conversations: create (the id read as a string), list, messages,
	// rename with title as a query parameter.
	var conv struct {
		ID string `json:"id"`
	}
	st, data = c.json("POST", "/user/conversations", map[string]any{"title": "Leave", "model_id": modelID})
	c.want("conversation create", st, data, &conv)
	st, data = c.json("GET", "/user/conversations?"+url.Values{"model_id": {model.ID.String()}, "limit": {"20"}, "offset": {"0"}}.Encode(), nil)
	c.want("conversation list", st, data, nil)
	st, data = c.json("GET", "/user/conversations/"+conv.ID+"/messages?limit=50&offset=0", nil)
	c.want("messages", st, data, nil)
	st, data = c.json("PATCH", "/user/conversations/"+conv.ID+"?title="+url.QueryEscape("Leave questions"), nil)
	c.want("rename", st, data, nil)

	// Evaluations: create, check a name, score with RAGAS, start, list;
	// the run ends with the clock.
	var ev withID
	st, data = c.json("POST", "/evaluations", map[string]any{"name": "Leave quality", "model_id": modelID, "type": "ragas", "description": "weekly"})
	c.want("evaluation create", st, data, &ev)
	st, data = c.json("GET", "/evaluations/check-name?name="+url.QueryEscape("Leave quality 2"), nil)
	c.want("check-name", st, data, nil)
	st, data = c.json("POST", "/evaluations/"+ev.ID.String()+"/run-ragas", map[string]any{"samples": []any{}, "selected_questions": []any{}})
	c.want("run-ragas", st, data, nil)
	st, data = c.json("POST", "/evaluations/"+ev.ID.String()+"/start", nil)
	c.want("start", st, data, nil)
	st, data = c.json("GET", "/evaluations?status=running", nil)
	c.want("evaluation list", st, data, nil)
	c.clock.Advance(6 * time.Second)

	// And everything deleted.
	for _, p := range []string{"/user/conversations/" + conv.ID, "/evaluations/" + ev.ID.String(),
		"/user/model/" + model.ID.String(), "/user/model/" + first.ID.String(), "/user/dataset/" + ds.ID.String()} {
		st, data = c.json("DELETE", p, nil)
		c.want(fmt.Sprintf("delete %s", p), st, data, nil)
	}
}
