package judge

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"contractkit/exchange"
)

// sent is a request of method on path (with its query) carrying body as
// contentType, with a key.
func sent(method, target, contentType, body string) *exchange.Exchange {
	path, query, _ := strings.Cut(target, "?")
	h := http.Header{"Authorization": {"Bearer <redacted:api-key>"}}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	x := &exchange.Exchange{Method: method, URL: "http://x" + target, Path: path, RawQuery: query, RequestHeader: h}
	if body != "" {
		x.Sent = []byte(body)
	}
	return x
}

// form is a multipart body with text fields and one file part per name in
// files.
func form(t *testing.T, fields map[string]string, files ...string) (contentType, body string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range files {
		fw, err := w.CreateFormFile(name, "notes.txt")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte("The warranty period is 24 months.\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), b.String()
}

// The client's side of an exchange: a break the declared contract refuses
// is Declared, a departure the contract's lenient readings read (x-lenient,
// D-21) is Decided, and nothing else is found.
func TestRequestFindings(t *testing.T) {
	ct, withFile := form(t, map[string]string{"dataset_name": "d"}, "file")
	_, declared := form(t, map[string]string{"dataset_name": "d"}, "files")
	noKey := sent("GET", "/api/v1/user/model", "", "")
	noKey.RequestHeader.Del("Authorization")
	cut := sent("POST", "/api/v1/user/inference", "application/json", "")
	cut.SentCut = true
	tests := []struct {
		name, op string
		x        *exchange.Exchange
		want     []string
	}{
		{"a valid request", "runInference", sent("POST", "/api/v1/user/inference", "application/json", `{"model_id":4,"query":"q","temperature":0}`), nil},
		{"no key", "listModels", noKey, []string{"declared header:Authorization: auth: want Bearer <API key>, got missing (§5.1)"}},
		{"a value of the wrong type", "runInference", sent("POST", "/api/v1/user/inference", "application/json", `{"model_id":4,"query":"q","temperature":"hot"}`),
			[]string{`declared /temperature: schema: want number, got string`}},
		{"a missing required field", "runInference", sent("POST", "/api/v1/user/inference", "application/json", `{"model_id":4}`),
			[]string{"declared /query: schema: want present (required), got missing"}},
		{"a field whose requiredness is decided (D-09)", "createEvaluation", sent("POST", "/api/v1/evaluations", "application/json", `{"name":"e"}`), nil},
		{"an integer dataset_id, read as its string", "createModel", sent("POST", "/api/v1/user/model", "application/json", `{"model_name":"m","dataset_id":12}`),
			[]string{"decided /dataset_id: lenient: want a string, got 12 (D-21)"}},
		{"the seed's other spelling", "createModel", sent("POST", "/api/v1/user/model", "application/json", `{"name":"m","dataset":12}`),
			[]string{"decided /dataset: lenient: want dataset_id, got dataset (D-21)", "decided /name: lenient: want model_name, got name (D-21)", "decided /dataset_id: lenient: want a string, got 12 (D-21)"}},
		{"a reading and a break", "createModel", sent("POST", "/api/v1/user/model", "application/json", `{"model_name":"m","dataset_id":12,"base_model_id":"three"}`),
			[]string{"decided /dataset_id: lenient: want a string, got 12 (D-21)", `declared /base_model_id: schema: want integer, got string`}},
		{"a string model_id, read as its integer", "createConversation", sent("POST", "/api/v1/user/conversations", "application/json", `{"model_id":"7","title":"t"}`),
			[]string{"decided /model_id: lenient: want an integer, got \"7\" (D-21)"}},
		{"a string model_id that holds no integer", "createConversation", sent("POST", "/api/v1/user/conversations", "application/json", `{"model_id":"seven"}`),
			[]string{`declared /model_id: schema: want integer, got string`}},
		{"a reading the contract does not mark", "createEvaluation", sent("POST", "/api/v1/evaluations", "application/json", `{"name":"e","model_id":"7"}`),
			[]string{`declared /model_id: schema: want integer, got string`}},
		{"JSON to a multipart operation", "createDataset", sent("POST", "/api/v1/user/dataset", "application/json", `{"dataset_name":"x"}`),
			[]string{`declared header:Content-Type: content-type: want multipart/form-data, got "application/json" (§1.3)`}},
		{"a file part for files", "createDataset", sent("POST", "/api/v1/user/dataset", ct, withFile),
			[]string{"decided part:file: lenient: want files, got file (D-21)"}},
		{"the declared form", "createDataset", sent("POST", "/api/v1/user/dataset", ct, declared), nil},
		{"title as a query parameter (a parameter of the document, D-21)", "renameConversation", sent("PATCH", "/api/v1/user/conversations/c1?title=New", "", ""), nil},
		{"a query parameter out of its declared type", "listConversations", sent("GET", "/api/v1/user/conversations?model_id=4&limit=many", "", ""),
			[]string{"declared query:limit: schema: want Value 'many' is not a valid integer"}},
		{"a body over the holder's bound: its parameters only", "runInference", cut, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := tj.Request(tt.op, tt.x)
			var got []string
			for _, f := range fs {
				if f.Side != Client || f.Operation != tt.op {
					t.Errorf("not the client's, of %s: %+v", tt.op, f)
				}
				got = append(got, f.Class.String()+" "+f.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("finding %d = %s, want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// What an answer breaks depends on what its request broke: serving a
// request the declared contract refuses is the server's violation,
// serving one only the readings read is allowed.
func TestAnswerToItsRequest(t *testing.T) {
	model := `{"status":"success","data":{"id":9,"name":"m","status":"training"}}`
	lenient := sent("POST", "/api/v1/user/model", "application/json", `{"model_name":"m","dataset_id":12}`)
	lenient.Status, lenient.ResponseHeader, lenient.Raw = 200, http.Header{"Content-Type": {"application/json"}}, []byte(model)
	if fs := tj.Verdict(lenient, nil, false); fs.Has(Server, Declared) || fs.Has(Server, Decided) || !fs.Has(Client, Decided) {
		t.Errorf("a lenient request served: %q", fs.Lines())
	}
	invalid := sent("POST", "/api/v1/user/model", "application/json", `{"model_name":"m"}`)
	invalid.Status, invalid.ResponseHeader, invalid.Raw = 200, http.Header{"Content-Type": {"application/json"}}, []byte(model)
	served := tj.Verdict(invalid, nil, false).Side(Server)
	if len(served) != 1 || served[0].Rule != RuleServedInvalid || served[0].Class != Declared ||
		!strings.Contains(served[0].Got, "200 to a request that breaks /dataset_id: schema: want present (required)") {
		t.Errorf("an invalid request served: %q", served.Lines())
	}
	invalid.Status, invalid.Raw = 422, []byte(`{"status":"error","message":"dataset_id is required"}`)
	if fs := tj.Verdict(invalid, nil, false).Side(Server); len(fs) != 0 {
		t.Errorf("an invalid request refused: %q", fs.Lines())
	}
	broke := answered("GET", "/api/v1/user/model/4", 200, `{"status":"succ`)
	broke.Error = "reading the body: unexpected EOF"
	if fs := answerOf(broke, false); !reflect.DeepEqual(fs.Lines(), []string{"answer: want the whole answer, got reading the body: unexpected EOF"}) {
		t.Errorf("an answer that broke off: %q", fs.Lines())
	}
	big := answered("GET", "/api/v1/user/model/4", 200, `{"status":"succ`)
	big.ResponseHeader.Set("Content-Type", "text/html")
	if fs := answerOf(big, true); len(fs) != 1 || fs[0].Rule != RuleContentType {
		t.Errorf("an answer over the reader's bound is judged by its headers: %q", fs.Lines())
	}
}
