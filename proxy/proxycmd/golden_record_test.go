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
	"sync"
	"testing"
	"time"

	"contractkit/judge"
	"contractkit/mutation"
	"contractkit/proxy"
)

// The recording of the exchanges the golden test replays (go test
// -run TestRecordedFindingsUnchanged -record): a script of requests to
// every operation, valid and not, sent through the proxy to the mock and
// to every mutant of the catalogue but the hostile ones; of the clean mock
// every exchange is kept, of a mutant those the proxy found something in.

// recorded is one exchange as the proxy saw it pass: what the client sent
// and what the target answered.
type recorded struct {
	Name     string      `json:"name"`
	Method   string      `json:"method"`
	Path     string      `json:"path"`
	RawQuery string      `json:"query,omitempty"`
	Header   http.Header `json:"header"`
	Body     []byte      `json:"body,omitempty"`
	Status   int         `json:"status"`
	Answer   http.Header `json:"answer_header"`
	Response []byte      `json:"response,omitempty"`
	// Broken: the target broke the answer off after Response.
	Broken bool `json:"broken,omitempty"`
	// Verdict is what the proxy found while recording (not stored).
	Verdict judge.Findings `json:"-"`
}

// scriptStep is one request of the recording script; ids are filled from
// the answers before it.
type scriptStep struct {
	name, method, path, contentType, accept string
	body                                    func(ids map[string]string) []byte
	noKey                                   bool
}

func jsonBody(format string, keys ...string) func(map[string]string) []byte {
	return func(ids map[string]string) []byte {
		args := make([]any, len(keys))
		for i, k := range keys {
			args[i] = ids[k]
		}
		return []byte(fmt.Sprintf(format, args...))
	}
}

// formBody is a multipart body with fields and one text file; its content
// type carries a fixed boundary, so a recording is reproducible.
func formBody(fields map[string]string, part string) func(map[string]string) []byte {
	return func(ids map[string]string) []byte {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.SetBoundary(goldenBoundary)
		for _, k := range []string{"dataset_name", "dataset_id", "description"} {
			if v, ok := fields[k]; ok {
				_ = mw.WriteField(k, strings.NewReplacer("{dataset}", ids["dataset"]).Replace(v))
			}
		}
		fw, _ := mw.CreateFormFile(part, "notes.txt")
		_, _ = io.WriteString(fw, "The standard warranty lasts 24 months and covers parts and labour.\n")
		_ = mw.Close()
		return b.Bytes()
	}
}

const goldenBoundary = "golden-boundary-0123456789"

var recordingScript = []scriptStep{
	{name: "list models", method: "GET", path: "/api/v1/user/model"},
	{name: "get a model", method: "GET", path: "/api/v1/user/model/{model}"},
	{name: "get a missing model", method: "GET", path: "/api/v1/user/model/999999"},
	{name: "get a model by a bad id", method: "GET", path: "/api/v1/user/model/not-a-number"},
	{name: "create a model", method: "POST", path: "/api/v1/user/model", contentType: "application/json",
		body: jsonBody(`{"model_name":"Golden bot","dataset_id":"%s","description":"recorded"}`, "dataset")},
	{name: "create a model without its dataset", method: "POST", path: "/api/v1/user/model", contentType: "application/json",
		body: jsonBody(`{"model_name":"Golden bot"}`)},
	{name: "create a model the lenient way", method: "POST", path: "/api/v1/user/model", contentType: "application/json",
		body: jsonBody(`{"name":"Golden bot","dataset_id":%s}`, "dataset")},
	{name: "delete a model", method: "DELETE", path: "/api/v1/user/model/{newmodel}"},
	{name: "list conversations", method: "GET", path: "/api/v1/user/conversations?model_id={model}"},
	{name: "list conversations without model_id", method: "GET", path: "/api/v1/user/conversations"},
	{name: "create a conversation", method: "POST", path: "/api/v1/user/conversations", contentType: "application/json",
		body: jsonBody(`{"model_id":%s,"title":"Warranty questions"}`, "model")},
	{name: "create a conversation as text", method: "POST", path: "/api/v1/user/conversations", contentType: "text/plain",
		body: jsonBody(`{"model_id":%s,"title":"Warranty questions"}`, "model")},
	{name: "rename a conversation", method: "PATCH", path: "/api/v1/user/conversations/{conversation}", contentType: "application/json",
		body: jsonBody(`{"title":"Renamed"}`)},
	{name: "list messages", method: "GET", path: "/api/v1/user/conversations/{conversation}/messages"},
	{name: "delete a conversation", method: "DELETE", path: "/api/v1/user/conversations/{conversation}"},
	{name: "list datasets", method: "GET", path: "/api/v1/user/dataset"},
	{name: "get a dataset", method: "GET", path: "/api/v1/user/dataset/{dataset}"},
	{name: "create a dataset", method: "POST", path: "/api/v1/user/dataset", contentType: "multipart/form-data; boundary=" + goldenBoundary,
		body: formBody(map[string]string{"dataset_name": "Golden set", "description": "recorded"}, "files")},
	{name: "create a dataset with a file part", method: "POST", path: "/api/v1/user/dataset", contentType: "multipart/form-data; boundary=" + goldenBoundary,
		body: formBody(map[string]string{"dataset_name": "Golden set"}, "file")},
	{name: "add files", method: "POST", path: "/api/v1/user/dataset/upload", contentType: "multipart/form-data; boundary=" + goldenBoundary,
		body: formBody(map[string]string{"dataset_id": "{dataset}"}, "files")},
	{name: "delete a dataset", method: "DELETE", path: "/api/v1/user/dataset/{newdataset}"},
	{name: "an inference stream", method: "POST", path: "/api/v1/user/inference", contentType: "application/json", accept: "text/event-stream",
		body: jsonBody(`{"query":"What is the standard warranty period?","model_id":%s,"response_length_preference":"detailed"}`, "model")},
	{name: "an inference as JSON", method: "POST", path: "/api/v1/user/inference", contentType: "application/json", accept: "application/json",
		body: jsonBody(`{"query":"What does the warranty cover?","model_id":%s,"temperature":0,"max_tokens":800}`, "model")},
	{name: "an inference too hot", method: "POST", path: "/api/v1/user/inference", contentType: "application/json",
		body: jsonBody(`{"query":"q","model_id":%s,"temperature":"hot"}`, "model")},
	{name: "list evaluations", method: "GET", path: "/api/v1/evaluations"},
	{name: "list running evaluations", method: "GET", path: "/api/v1/evaluations?status=running"},
	{name: "create an evaluation", method: "POST", path: "/api/v1/evaluations", contentType: "application/json",
		body: jsonBody(`{"name":"Golden eval","type":"ragas","model_id":%s,"benchmark_type":"beir","question_count":5,"description":"recorded"}`, "model")},
	{name: "get an evaluation", method: "GET", path: "/api/v1/evaluations/{evaluation}"},
	{name: "update an evaluation", method: "PUT", path: "/api/v1/evaluations/{evaluation}", contentType: "application/json",
		body: jsonBody(`{"name":"Golden eval, renamed","description":"updated"}`)},
	{name: "check a name", method: "GET", path: "/api/v1/evaluations/check-name?name=Golden%20eval"},
	{name: "start an evaluation", method: "POST", path: "/api/v1/evaluations/{evaluation}/start"},
	{name: "run RAGAS", method: "POST", path: "/api/v1/evaluations/{evaluation}/run-ragas", contentType: "application/json",
		body: jsonBody(`{"samples":[],"selected_questions":[]}`)},
	{name: "delete an evaluation", method: "DELETE", path: "/api/v1/evaluations/{evaluation}"},
	{name: "list models without a key", method: "GET", path: "/api/v1/user/model", noKey: true},
	{name: "a path outside the contract", method: "GET", path: "/api/v1/user/nowhere"},
}

// recorder keeps the exchanges a proxy passes.
type recorder struct {
	mu  sync.Mutex
	got []*proxy.Exchange
}

func (r *recorder) Observe(x *proxy.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, x)
}

func (*recorder) ObserveEvent(string, string, []byte) {}

// recordingClient sends exactly the headers a step sets (no compression
// asked for by the transport), so a replay sends the same.
func recordingClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second}
}

// runScript sends the script through a proxy to target and returns the
// exchanges the proxy saw, each named after its step.
func runScript(t *testing.T, target string, ids map[string]string) []recorded {
	u, _ := url.Parse(target)
	rec := &recorder{}
	p := proxy.New(u, proxy.NewLog(io.Discard), rec)
	p.SetBounds(proxy.Bounds{Answer: proxy.DefaultMaxAnswer, StreamIdle: 2 * time.Second, StreamDuration: 5 * time.Second, AnswerTimeout: 5 * time.Second})
	front := httptest.NewServer(p)
	defer front.Close()
	c := recordingClient()
	var out []recorded
	for _, st := range recordingScript {
		path := st.path
		for k, v := range ids {
			path = strings.ReplaceAll(path, "{"+k+"}", v)
		}
		var body []byte
		if st.body != nil {
			body = st.body(ids)
		}
		req, _ := http.NewRequest(st.method, front.URL+path, bytes.NewReader(body))
		if body == nil {
			req.Body = nil
		}
		if !st.noKey {
			req.Header.Set("Authorization", "Bearer "+testKey)
		}
		if st.contentType != "" {
			req.Header.Set("Content-Type", st.contentType)
		}
		if st.accept != "" {
			req.Header.Set("Accept", st.accept)
		}
		resp, err := c.Do(req)
		if err == nil {
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			learnIDs(st.name, answer, ids)
		}
		if !p.Wait(10 * time.Second) {
			t.Fatalf("%s: the proxy did not settle", st.name)
		}
		rec.mu.Lock()
		xs := rec.got
		rec.got = nil
		rec.mu.Unlock()
		for _, x := range xs {
			if x.LeftByClient || x.Status == 0 {
				continue
			}
			out = append(out, recorded{Name: st.name, Method: x.Method, Path: x.Path, RawQuery: x.RawQuery,
				Header: x.RequestHeader, Body: x.RequestBody, Status: x.Status, Answer: x.ResponseHeader,
				Response: x.ResponseBody, Broken: x.Error != "", Verdict: x.Verdict})
		}
	}
	return out
}

// learnIDs reads the ids later steps use from an answer.
func learnIDs(step string, answer []byte, ids map[string]string) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(answer, &env) != nil {
		return
	}
	var one struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(env.Data, &one)
	id := strings.Trim(string(one.ID), `"`)
	if id == "" {
		return
	}
	switch step {
	case "create a model":
		ids["newmodel"] = id
	case "create a conversation":
		ids["conversation"] = id
	case "create a dataset":
		ids["newdataset"] = id
	case "create an evaluation":
		ids["evaluation"] = id
	}
}

// recordExchanges runs the script against the clean mock and every mutant
// but the hostile ones.
func recordExchanges(t *testing.T) []recorded {
	baseIDs := func() map[string]string {
		return map[string]string{"model": "1", "dataset": "1", "newmodel": "999998", "conversation": "00000000-0000-4000-8000-000000000000",
			"newdataset": "999997", "evaluation": "999996"}
	}
	ids := baseIDs()
	clean := newMock(t, "", 0)
	learnReady(t, clean.URL, ids)
	out := runScript(t, clean.URL, ids)
	seen := map[string]bool{}
	for _, r := range out {
		seen[r.key()] = true
	}
	for _, m := range mutation.List() {
		mock := newMock(t, m.Name, 0)
		mids := baseIDs()
		learnReady(t, mock.URL, mids)
		kept := 0
		for _, r := range runScript(t, mock.URL, mids) {
			if len(r.Verdict) == 0 || seen[r.key()] || kept >= 4 {
				continue
			}
			seen[r.key()] = true
			r.Name = m.Name + ": " + r.Name
			out = append(out, r)
			kept++
		}
	}
	for i := range out {
		out[i].Verdict = nil
	}
	return out
}

// learnReady finds a ready model and a dataset of the mock's fixtures.
func learnReady(t *testing.T, base string, ids map[string]string) {
	for _, list := range []struct{ path, key string }{{"/api/v1/user/model", "model"}, {"/api/v1/user/dataset", "dataset"}} {
		req, _ := http.NewRequest("GET", base+list.path, nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := recordingClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Data []struct {
				ID     json.Number `json:"id"`
				Status string      `json:"status"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		for _, d := range env.Data {
			if list.key == "dataset" || d.Status == "ready" {
				ids[list.key] = d.ID.String()
				break
			}
		}
	}
}

// key is what makes two recorded exchanges the same.
func (r recorded) key() string {
	return r.Method + " " + r.Path + "?" + r.RawQuery + "\x00" + string(r.Body) + "\x00" + fmt.Sprint(r.Status) + "\x00" +
		r.Answer.Get("Content-Type") + "\x00" + string(r.Response)
}
