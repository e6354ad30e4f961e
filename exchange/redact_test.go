package exchange

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestRedactorPrefersTheLongerKey(t *testing.T) {
	r := NewRedactor("abc", "abcdef")
	if got, want := r.String("x abcdef y abc"), "x <redacted:api-key-2> y <redacted:api-key>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := r.ShellValue("Authorization: Bearer abcdef"), `"Authorization: Bearer $CONFORMANCE_API_KEY_2"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := r.ShellValue(`say "$x" abc`), `"say \"\$x\" $CONFORMANCE_API_KEY"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// An observed exchange shows neither the key its client sent nor the
// connection's own headers, and its curl reads the key from the
// environment.
func TestObservedExchangeIsRedacted(t *testing.T) {
	const key = "sk-observed-SECRET"
	o := Observed{
		Method: "POST", Target: "http://127.0.0.1:9/base/", Path: "/api/v1/user/model", RawQuery: "k=" + key,
		RequestHeader: http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}, "Connection": {"keep-alive"}},
		RequestBody:   []byte(`{"model_name":"` + key + `"}`),
		Status:        200, ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody: []byte(`{"status":"success","data":{"name":"` + key + `"}}`),
	}
	x := o.Exchange()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, shown := range []string{x.String(), x.Line(), x.Curl, string(b)} {
		if strings.Contains(shown, key) {
			t.Errorf("the key is shown:\n%s", shown)
		}
	}
	if !strings.Contains(x.Curl, `"Authorization: Bearer $CONFORMANCE_API_KEY"`) || strings.Contains(x.Curl, "Connection") {
		t.Errorf("curl = %s", x.Curl)
	}
	if x.Path != o.Path || x.RawQuery != o.RawQuery || string(x.Sent) != string(o.RequestBody) || string(x.Raw) != string(o.ResponseBody) {
		t.Errorf("the judges' fields: %+v", x)
	}
	if got := PartNames(http.Header{"Content-Type": {"application/json"}}, o.RequestBody); got != nil {
		t.Errorf("the parts of a JSON body: %q", got)
	}
}

// WithAnswer makes, from the exchange of the request alone, the very
// exchange Exchange makes of the whole: at the answer's headers, at its
// end, with an error, without an answer.
func TestWithAnswerIsTheWholeExchange(t *testing.T) {
	const key = "sk-answered-SECRET"
	req := Observed{
		Method: "POST", Target: "http://127.0.0.1:9", Path: "/api/v1/user/conversations", RawQuery: "q=" + key,
		RequestHeader: http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}},
		RequestBody:   []byte(`{"title":"` + key + `"}`),
	}
	before := req.Exchange()
	for name, o := range map[string]Observed{
		"headers": func(o Observed) Observed {
			o.Status, o.ResponseHeader = 200, http.Header{"Content-Type": {"application/json"}, "X-Echo": {key}}
			return o
		}(req),
		"end": func(o Observed) Observed {
			o.Status, o.ResponseHeader = 200, http.Header{"Content-Type": {"application/json"}}
			o.ResponseBody, o.Duration = []byte(`{"status":"success","data":{"title":"`+key+`"}}`), 3
			return o
		}(req),
		"broken": func(o Observed) Observed {
			o.Status, o.ResponseHeader, o.ResponseBody = 200, http.Header{}, []byte(`{"sta`)
			o.Error = "reading the answer: " + key
			return o
		}(req),
		"no answer": func(o Observed) Observed { o.Error = "the target gave no answer: " + key; return o }(req),
	} {
		want, err := json.Marshal(o.Exchange())
		if err != nil {
			t.Fatal(err)
		}
		x := o.WithAnswer(before)
		got, _ := json.Marshal(x)
		if string(got) != string(want) || string(x.Raw) != string(o.ResponseBody) || x.Line() != o.Exchange().Line() {
			t.Errorf("%s: got\n  %s\nwant\n  %s", name, got, want)
		}
	}
}
