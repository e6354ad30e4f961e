package exchange

import (
	"encoding/json"
	"net/http"
	"reflect"
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

// Judged is the exchange a judge reads, the same as Exchange's but for
// what only a rendering shows (the excerpts, the curl, which CurlOf
// makes the same); JudgedWithAnswer makes it from the request's alone: at
// the answer's headers, at its end, with an error, without an answer.
func TestJudgedIsTheWholeExchangeAsJudged(t *testing.T) {
	const key = "sk-answered-SECRET"
	req := Observed{
		Method: "POST", Target: "http://127.0.0.1:9/", Path: "/api/v1/user/conversations", RawQuery: "q=" + key,
		RequestHeader: http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}, "Connection": {"close"}, "X-Empty": {}},
		RequestBody:   []byte(`{"title":"` + key + `"}`),
	}
	before := req.Judged()
	for name, o := range map[string]Observed{
		"request": req,
		"cut":     func(o Observed) Observed { o.RequestBody, o.RequestBodyCut = nil, true; return o }(req),
		"multipart": func(o Observed) Observed {
			o.RequestHeader = http.Header{"Content-Type": {"multipart/form-data; boundary=b"}}
			o.RequestBody = []byte("--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nx\r\n--b--\r\n")
			return o
		}(req),
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
		whole := o.Exchange()
		if o.CurlOf() != whole.Curl {
			t.Errorf("%s: CurlOf %q, Exchange's %q", name, o.CurlOf(), whole.Curl)
		}
		whole.RequestBody, whole.ResponseBody, whole.Curl = "", "", ""
		at := o.JudgedWithAnswer(before)
		for how, x := range map[string]*Exchange{"Judged": o.Judged(), "JudgedWithAnswer": at, "JudgedAtEnd": o.JudgedAtEnd(before, at)} {
			if how != "Judged" && name != "headers" && name != "end" && name != "broken" && name != "no answer" {
				continue // another request than before's
			}
			if !reflect.DeepEqual(x, whole) {
				t.Errorf("%s, %s: got\n  %+v\nwant\n  %+v", name, how, x, whole)
			}
		}
	}
}
