package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

// session is a client's traffic over most operations: lists, records, a
// creation, an upload, a refusal, an inference stream.
func session(t *testing.T, th *through) {
	t.Helper()
	steps := []struct{ method, path, ct, body string }{
		{"GET", "/api/v1/user/model", "", ""},
		{"GET", "/api/v1/user/model/4", "", ""},
		{"GET", "/api/v1/user/model/987654321", "", ""}, // a refusal: 404
		{"GET", "/api/v1/user/dataset", "", ""},
		{"GET", "/api/v1/user/conversations?model_id=4", "", ""},
		{"GET", "/api/v1/evaluations", "", ""},
		{"POST", "/api/v1/user/inference", "application/json", inferenceBody},
	}
	for _, s := range steps {
		th.do(t, s.method, s.path, s.ct, s.body)
	}
	// A dataset created with a file, then another file uploaded to it
	// (multipart).
	ct, form := multipartBody(t, map[string]string{"dataset_name": "proxy-test", "description": "d"}, "notes.txt")
	status, body := th.do(t, "POST", "/api/v1/user/dataset", ct, form)
	if status/100 != 2 {
		t.Fatalf("creating a dataset: %d %s", status, body)
	}
	// The id, wherever a broken server put it (data.id, or id in a bare
	// answer); without one the upload is left out.
	var created struct {
		ID   json.Number `json:"id"`
		Data struct {
			ID json.Number `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal([]byte(body), &created)
	id := created.Data.ID
	if id == "" {
		id = created.ID
	}
	if id == "" {
		th.settle(t)
		return
	}
	ct, form = multipartBody(t, map[string]string{"dataset_id": id.String()}, "more.txt")
	if status, body := th.do(t, "POST", "/api/v1/user/dataset/upload", ct, form); status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	th.settle(t)
}

// multipartBody is a form with fields and one text file part named file.
func multipartBody(t *testing.T, fields map[string]string, file string) (contentType, body string) {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("files", file)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte("The warranty period is 24 months.\n"))
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), form.String()
}

func TestConformingTrafficIsSilent(t *testing.T) {
	th := newThrough(t, newMock(t, "", 0).URL).checked(t)
	session(t, th)
	if d, dec, c := th.Log.Counts(); d+dec+c != 0 {
		t.Fatalf("a conforming server and client: %d declared, %d decided, %d client findings:\n%s", d, dec, c, th.Out)
	}
	if out := th.Out.String(); out != "" {
		t.Fatalf("the proxy printed for conforming traffic:\n%s", out)
	}
	ops, _ := th.Log.snapshot()
	if len(ops) < 8 {
		t.Fatalf("%d operations seen, want the session's 8 or more", len(ops))
	}
}

// Each mutant (a deliberately broken mock, package mutation) behind the
// proxy is reported as it happens, as a declared violation naming what it
// breaks.
func TestBrokenUpstreamsAreReported(t *testing.T) {
	cases := []struct {
		mutant, area string
		// want is in a VIOLATION line.
		want string
	}{
		{"envelope-status-ok", "envelope", `/status: envelope: want "success", got "ok"`},
		{"data-not-wrapped", "envelope", "/data: envelope: want present"},
		{"json-as-text-plain", "content type", `header:Content-Type: content-type: want application/json, got "text/plain`},
		{"auth-missing-key-accepted", "status", "status: served-invalid: want a refusal (4xx), got 200 to a request that breaks header:Authorization"},
		{"ids-as-strings", "schema", "/data/id: schema"},
		{"model-name-missing", "schema", "/data/name: schema: want present (required), got missing"},
		{"stream-chunks-not-json", "stream shape", "stream: want JSON data (or [DONE])"},
		{"stream-without-done", "stream end", "stream:end: stream: want `data: [DONE]` last, got the stream ended without it"},
	}
	for _, c := range cases {
		t.Run(c.mutant, func(t *testing.T) {
			th := newThrough(t, newMock(t, c.mutant, 0).URL)
			session(t, th)
			if c.mutant == "auth-missing-key-accepted" {
				resp, err := http.Get(th.URL + "/api/v1/user/model")
				if err != nil {
					t.Fatal(err)
				}
				_, _ = readAll(resp.Body)
				resp.Body.Close()
				th.settle(t)
			}
			out := th.Out.String()
			found := false
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "VIOLATION ") && strings.Contains(line, c.want) {
					found = true
					if !strings.Contains(line, "curl ") {
						t.Errorf("a violation line without its curl: %s", line)
					}
				}
			}
			if !found {
				t.Fatalf("%s (%s): no VIOLATION line with %q:\n%s", c.mutant, c.area, c.want, out)
			}
			if strings.Contains(out, testKey) {
				t.Fatal("the key was printed")
			}
			t.Logf("%s", out)
			if d, _, _ := th.Log.Counts(); d == 0 {
				t.Fatal("no declared violation counted")
			}
		})
	}
}

// A stream is judged as it passes: a bad chunk is reported while the
// upstream still holds the stream open.
func TestStreamJudgedIncrementally(t *testing.T) {
	release := make(chan struct{})
	upstream := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		w.Write([]byte("data: {\"type\":\"token\",\"content\":\"Hello\"}\n\n"))
		rc.Flush()
		w.Write([]byte("data: not json at all\n\n"))
		rc.Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write([]byte("data: {\"type\":\"done\",\"content\":\"\"}\n\ndata: [DONE]\n\n"))
	})
	th := newThrough(t, upstream)
	req, _ := http.NewRequest("POST", th.URL+"/api/v1/user/inference", strings.NewReader(inferenceBody))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Read both events as the client sees them: the stream is passed on
	// as it arrives, not held back.
	br := bufio.NewReader(resp.Body)
	for seen := 0; seen < 2; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream through the proxy: %v", err)
		}
		if strings.HasPrefix(line, "data: ") {
			seen++
		}
	}
	eventually(t, 5*time.Second, "the bad chunk reported before the stream ends", func() bool {
		return strings.Contains(th.Out.String(), `VIOLATION runInference: stream:2: stream: want JSON data (or [DONE]), got "not json at all"`)
	})
	close(release)
	rest, _ := readAll(br)
	if !strings.Contains(rest, "[DONE]") {
		t.Fatalf("the end of the stream did not pass: %q", rest)
	}
	th.settle(t)
	if n := strings.Count(th.Out.String(), "want JSON data"); n != 1 {
		t.Fatalf("the bad chunk reported %d times:\n%s", n, th.Out)
	}
}

// A request the contract refuses is the client's fault: reported as CLIENT,
// never counted against the server, and the refusal that answers it is
// judged like any answer.
func TestClientFaultIsNotAServerViolation(t *testing.T) {
	th := newThrough(t, newMock(t, "", 0).URL).checked(t)
	th.do(t, "POST", "/api/v1/user/dataset", "application/json", `{"dataset_name":"x"}`) // multipart expected
	th.do(t, "POST", "/api/v1/user/inference", "application/json", `{"model_id":4,"query":"q","temperature":"hot"}`)
	th.settle(t)
	out := th.Out.String()
	for _, want := range []string{
		`CLIENT createDataset: header:Content-Type: content-type: want multipart/form-data, got "application/json" (§1.3)`,
		"CLIENT runInference: /temperature: schema: want number, got string",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no line %q:\n%s", want, out)
		}
	}
	if d, dec, c := th.Log.Counts(); d+dec != 0 || c != 2 {
		t.Fatalf("%d declared, %d decided, %d client findings, want 0, 0, 2:\n%s", d, dec, c, out)
	}
}
