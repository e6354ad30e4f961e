package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"contractkit/conformance/client"
	"contractkit/spec"
)

// sentTo records the requests a test server received, each validated
// against the contract as written.
type sentTo struct {
	mu       sync.Mutex
	problems map[string][]string // by "METHOD path"
}

func (s *sentTo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, _, _, ok := spec.Strict().Find(r)
	key := r.Method + " " + r.URL.Path
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.problems[key] = append(s.problems[key], "no operation of the contract")
	} else if valid, errs := spec.Strict().Request(op.OperationID).Validate(r); !valid {
		s.problems[key] = append(s.problems[key], spec.Describe(errs)...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"success","data":{}}`))
}

// send sends every request through the suite's client to a server that
// validates each against the contract as written, and returns what it
// found wrong, one line each.
func send(t *testing.T, rs []client.Request) []string {
	t.Helper()
	rec := &sentTo{problems: map[string][]string{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := client.New(u, testKey, testKey2, 5*time.Second)
	var out []string
	for _, r := range rs {
		x := c.Do(context.Background(), r)
		if x.Status != http.StatusOK {
			out = append(out, x.Line()+": not sent")
		}
	}
	for k, ps := range rec.problems {
		for _, p := range ps {
			out = append(out, k+": "+p)
		}
	}
	slices.Sort(out)
	return out
}

// Every operation's sample request is one the contract as written accepts,
// with the ids no resource has and with the ids of resources a check made.
func TestEverySampleRequestIsValid(t *testing.T) {
	e := newEnv(Config{})
	made := map[string]string{"model_id": "7", "dataset_id": "12", "evaluation_id": "41",
		"conversation_id": "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77"}
	var rs []client.Request
	for _, op := range spec.Strict().Operations {
		if _, err := sampleOf(spec.Strict(), op); err != nil {
			t.Errorf("no sample request: %v", err)
			continue
		}
		rs = append(rs, e.sampleRequest(op, nil), e.sampleRequest(op, made))
	}
	for _, p := range send(t, rs) {
		t.Error(p)
	}
}

func TestSampleRequestsFillTheIDsTheyName(t *testing.T) {
	e := newEnv(Config{})
	e.prefix = "ck-test-"
	sample := func(id string, ids map[string]string) client.Request {
		op, ok := spec.Strict().Operation(id)
		if !ok {
			t.Fatalf("no operation %s", id)
		}
		return e.sampleRequest(op, ids)
	}
	body := func(r client.Request) map[string]any { b, _ := r.JSON.(map[string]any); return b }

	r := sample("createModel", map[string]string{"dataset_id": "55", "model_id": "9"})
	if got := body(r)["dataset_id"]; got != "55" {
		t.Errorf("createModel dataset_id = %#v, want \"55\" (a string, as the body's schema says)", got)
	}
	if got, _ := body(r)["model_name"].(string); !strings.HasPrefix(got, "ck-test-model-") {
		t.Errorf("createModel model_name = %q, want a name of the run (x-stored as name)", got)
	}
	if got := body(r)["description"]; got != "Answers customer questions" {
		t.Errorf("createModel description = %#v, want the example's", got)
	}

	r = sample("runInference", map[string]string{"model_id": "7", "conversation_id": "c"})
	if got := body(r)["model_id"]; got != int64(7) {
		t.Errorf("runInference model_id = %#v, want the integer 7", got)
	}
	if _, sent := body(r)["conversation_id"]; sent {
		t.Error("runInference sends the optional conversation_id; a sample names only what it must")
	}
	if body(r)["query"] == nil {
		t.Error("runInference: no query from the example")
	}

	if r := sample("listMessages", map[string]string{"conversation_id": "abc"}); r.Path != "/api/v1/user/conversations/abc/messages" || r.Method != "GET" {
		t.Errorf("listMessages: %s %s", r.Method, r.Path)
	}
	if r := sample("listMessages", nil); !uuidForm.MatchString(strings.Split(r.Path, "/")[5]) {
		t.Errorf("an unknown conversation id is not a UUID (D-20): %s", r.Path)
	}
	if r := sample("deleteModel", nil); r.Path != "/api/v1/user/model/"+e.unknownID {
		t.Errorf("an unknown model id: %s, want %s", r.Path, e.unknownID)
	}
	if r := sample("listConversations", map[string]string{"model_id": "7"}); r.Query.Get("model_id") != "7" || len(r.Query) != 1 {
		t.Errorf("listConversations query = %v, want model_id=7 only", r.Query)
	}
	if r := sample("checkEvaluationName", nil); !strings.HasPrefix(r.Query.Get("name"), "ck-test-") {
		t.Errorf("checkEvaluationName name = %q, want a name of the run", r.Query.Get("name"))
	}
	if r := sample("startEvaluation", nil); r.JSON != nil || r.Form != nil {
		t.Errorf("startEvaluation takes no body; got %#v %#v", r.JSON, r.Form)
	}

	r = sample("createDataset", nil)
	var files, fields []string
	for _, f := range r.Form.Files {
		files = append(files, f.Field+"="+f.Name)
		if len(f.Content) == 0 || f.Source != "fixtures/files/"+f.Name {
			t.Errorf("file part %s: %d bytes from %q", f.Name, len(f.Content), f.Source)
		}
	}
	for _, f := range r.Form.Fields {
		fields = append(fields, f.Name)
	}
	if want := []string{"files=employee-handbook.md", "files=warranty-policy.pdf"}; !slices.Equal(files, want) {
		t.Errorf("createDataset files %v, want %v", files, want)
	}
	if want := []string{"dataset_name", "description", "tags"}; !slices.Equal(fields, want) {
		t.Errorf("createDataset fields %v, want %v", fields, want)
	}
	r = sample("uploadDatasetFiles", map[string]string{"dataset_id": "12"})
	if len(r.Form.Fields) != 1 || r.Form.Fields[0] != (struct{ Name, Value string }{"dataset_id", "12"}) {
		t.Errorf("uploadDatasetFiles fields %v, want dataset_id=12", r.Form.Fields)
	}

	// The example is copied, never shared: a check that changes its
	// request leaves the next one alone.
	a := body(sample("runRagasEvaluation", nil))
	a["samples"].([]any)[0].(map[string]any)["question"] = "changed"
	b, _ := json.Marshal(body(sample("runRagasEvaluation", nil)))
	if strings.Contains(string(b), "changed") {
		t.Error("a sample request shares the contract's example")
	}
}

// sampleOf names what the contract lacks for an operation's sample.
func TestSampleOfNamesWhatTheContractLacks(t *testing.T) {
	for _, tc := range []struct{ name, from, to, op, want string }{
		{"a JSON body without an example",
			"            examples:\n              rename:\n                summary: A new title\n                value: { title: Warranty and returns }\n", "",
			"renameConversation", "renameConversation: its application/json request body has no example object"},
		{"a form example naming no fixture",
			"files: [release-notes.txt]", "files: [no-such-file.txt]",
			"uploadDatasetFiles", "uploadDatasetFiles: the example of the file field files names no-such-file.txt, which is no file of fixtures/files"},
		{"a required query parameter without an example",
			"        - name: name\n          in: query\n          required: true\n          description: 'The name to check.",
			"        - name: label\n          in: query\n          required: true\n          description: 'The name to check.",
			"checkEvaluationName", "checkEvaluationName: the query parameter label names no resource and has no example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := strings.Replace(string(spec.Document), tc.from, tc.to, 1)
			if raw == string(spec.Document) {
				t.Fatal("the contract no longer has the text this test changes")
			}
			c, err := spec.Build([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			op, _ := c.Operation(tc.op)
			_, err = sampleOf(c, op)
			if err == nil || err.Error() != tc.want {
				t.Errorf("sampleOf: %v, want %q", err, tc.want)
			}
			if _, err := sampleOf(spec.Strict(), op); err != nil {
				t.Errorf("the contract as it is: %v", err)
			}
		})
	}
}
