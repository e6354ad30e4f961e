package judge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"contractkit/conformance/client"
	"contractkit/judge"
	"contractkit/proxy"
	"contractkit/spec"
)

// One exchange, one verdict, whoever judges it. The suite's client judges
// every answer it reads (the written checks, the reference model's part and
// the property part take that verdict); the validating proxy judges an
// exchange as it passes, event by event. Both call the one judge, so for
// any exchange — any operation, request, status, content type, body, a
// stream whole or broken off — their findings are the same.

// tb is what the helpers need of a test: *testing.T and *rapid.T.
type tb interface {
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// anExchange is a request and the answer a server gives it.
type anExchange struct {
	method, path, contentType, body string
	noKey                           bool
	status                          int
	answerType, answer              string
}

// serve answers every request with x's answer.
func serve(t tb, x anExchange) *url.URL {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", x.answerType)
		w.WriteHeader(x.status)
		_, _ = io.WriteString(w, x.answer)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

// send sends x's request to base through a client that judges with j, reads
// the answer as the suite does (an event stream event by event, anything
// else whole) and returns the client's verdict.
func send(t tb, j *judge.Judge, base *url.URL, x anExchange) judge.Findings {
	path, query, _ := strings.Cut(x.path, "?")
	q, _ := url.ParseQuery(query)
	r := client.Request{Method: x.method, Path: path, Query: q}
	if x.body != "" {
		r.Body, r.ContentType = []byte(x.body), x.contentType
	}
	if x.noKey {
		r.Auth = client.AuthNone
	}
	c := client.New(base, "key-one-verdict", "", 10*time.Second)
	c.SetJudge(j)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, ex := c.Open(ctx, r)
	if resp == nil {
		t.Fatalf("no answer: %s", ex.Error)
	}
	defer resp.Body.Close()
	if judge.IsEventStream(resp.StatusCode, resp.Header) {
		c.FinishStream(ex, judge.ReadStream(resp.Body, 5*time.Second, cancel), false)
	} else {
		body, err := io.ReadAll(resp.Body)
		c.Finish(ex, body, err)
	}
	return c.Verdict(ex)
}

// proxied sends x's request to a validating proxy in front of base and
// returns what the proxy found.
func proxied(t tb, j *judge.Judge, base *url.URL, x anExchange) judge.Findings {
	lg := proxy.NewLog(io.Discard)
	p := proxy.New(base, lg)
	p.SetJudge(j)
	front := httptest.NewServer(p)
	defer front.Close()
	u, _ := url.Parse(front.URL)
	send(t, j, u, x)
	if !p.Wait(10 * time.Second) {
		t.Fatalf("the proxy did not settle the exchange")
	}
	var out judge.Findings
	for _, f := range lg.Findings() {
		out = append(out, f.Finding)
	}
	return out
}

// canonical renders findings for comparison, sorted and once each.
func canonical(fs judge.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Side, f.Class, f.Key()))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// summary renders findings as a case's want does.
func summary(fs judge.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s %s %s", f.Side, f.Class, f.Rule, f.Pointer, f.Decision)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

const (
	aModel     = `{"status":"success","data":{"id":9,"name":"Support bot","status":"training"}}`
	aStream    = "data: {\"type\":\"token\",\"content\":\"24 \"}\n\ndata: {\"type\":\"token\",\"content\":\"months\"}\n\ndata: {\"type\":\"done\",\"thread_id\":\"t\"}\n\ndata: [DONE]\n\n"
	aRefusal   = `{"status":"error","message":"temperature: want a number"}`
	streamType = "text/event-stream"
	jsonType   = "application/json"
	inference  = "/api/v1/user/inference"
)

// Recorded exchanges, good and broken, with the findings the judge must
// find ("side class rule pointer [decision]").
var recorded = []struct {
	name string
	x    anExchange
	want []string
}{
	{"a conforming exchange", anExchange{method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType, answer: aModel}, nil},
	{"served lenient: an integer dataset_id (D-21)", anExchange{method: "POST", path: "/api/v1/user/model", contentType: jsonType,
		body: `{"model_name":"Support bot","dataset_id":12}`, status: 200, answerType: jsonType, answer: aModel},
		[]string{"client decided lenient /dataset_id D-21"}},
	{"served lenient: a string model_id (D-21)", anExchange{method: "POST", path: "/api/v1/user/conversations", contentType: jsonType,
		body: `{"model_id":"9","title":"t"}`, status: 200, answerType: jsonType,
		answer: `{"status":"success","data":{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":9,"title":"t","total_messages":0,"created_at":"2026-03-02T09:15:00Z","updated_at":"2026-03-02T09:15:00Z"}}`},
		[]string{"client decided lenient /model_id D-21"}},
	{"refused invalid", anExchange{method: "POST", path: inference, contentType: jsonType,
		body: `{"model_id":9,"query":"q","temperature":"hot"}`, status: 422, answerType: jsonType, answer: aRefusal},
		[]string{"client declared schema /temperature"}},
	{"served invalid", anExchange{method: "POST", path: "/api/v1/user/model", contentType: jsonType,
		body: `{"model_name":"Support bot"}`, status: 200, answerType: jsonType, answer: aModel},
		[]string{"client declared schema /dataset_id", "server declared served-invalid status"}},
	{"served invalid, as a stream", anExchange{method: "POST", path: inference, contentType: jsonType,
		body: `{"model_id":9,"query":"q","temperature":"hot"}`, status: 200, answerType: streamType, answer: aStream},
		[]string{"client declared schema /temperature", "server declared served-invalid status"}},
	{"served without a key", anExchange{method: "GET", path: "/api/v1/user/model", noKey: true, status: 200, answerType: jsonType,
		answer: `{"status":"success","data":[]}`},
		[]string{"client declared auth header:Authorization", "server declared served-invalid status"}},
	{"a body under a content type the operation does not take, refused", anExchange{method: "POST", path: "/api/v1/user/dataset",
		contentType: jsonType, body: `{"dataset_name":"x"}`, status: 400, answerType: jsonType, answer: `{"status":"error","message":"multipart/form-data expected"}`},
		[]string{"client declared content-type header:Content-Type"}},
	{"an undocumented status (D-17)", anExchange{method: "GET", path: "/api/v1/evaluations/5", status: 418, answerType: jsonType,
		answer: `{"status":"error","message":"teapot"}`},
		[]string{"server decided status status D-17"}},
	{"a broken envelope", anExchange{method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType,
		answer: `{"status":"ok","data":{"id":9,"name":"Support bot"}}`},
		[]string{"server declared envelope /status", "server declared schema /status"}},
	{"a success as text/plain", anExchange{method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: "text/plain", answer: aModel},
		[]string{"server declared content-type header:Content-Type", "server declared contract"}},
	{"a decided difference (D-11)", anExchange{method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType,
		answer: `{"status":"success","data":{"id":9,"name":"Support bot","status":"completed"}}`},
		[]string{"server decided schema /data/status D-11"}},
	{"an evaluation status outside the four of §2.8 (declared, whoever reads it)", anExchange{method: "GET", path: "/api/v1/evaluations/5", status: 200, answerType: jsonType,
		answer: `{"status":"success","data":{"id":5,"name":"n","type":"ragas","model_id":1,"status":"paused","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`},
		[]string{"server declared schema /data/status"}},
	{"a conforming stream", anExchange{method: "POST", path: inference, contentType: jsonType, body: `{"model_id":9,"query":"q"}`,
		status: 200, answerType: streamType, answer: aStream}, nil},
	{"a cut stream", anExchange{method: "POST", path: inference, contentType: jsonType, body: `{"model_id":9,"query":"q"}`,
		status: 200, answerType: streamType, answer: "data: {\"type\":\"token\",\"content\":\"24 \"}\n\ndata: {\"type\":\"token\",\"content\":\"mon"},
		[]string{"server declared stream stream:end", "server decided chunk stream:end D-03", "server declared stream stream:2"}},
	{"a stream with a bad event and a chunk of D-03's types", anExchange{method: "POST", path: inference, contentType: jsonType,
		body: `{"model_id":9,"query":"q"}`, status: 200, answerType: streamType,
		answer: "data: not json\n\ndata: {\"type\":\"weird\"}\n\n" + aStream},
		[]string{"server declared stream stream:1", "server decided chunk stream:2 D-03"}},
}

func TestRecordedExchangesGetTheirVerdictWhoeverJudges(t *testing.T) {
	j := judge.New(spec.Strict(), spec.Declared())
	for _, rec := range recorded {
		t.Run(rec.name, func(t *testing.T) {
			upstream := serve(t, rec.x)
			read := send(t, j, upstream, rec.x)
			passed := proxied(t, j, upstream, rec.x)
			want := slices.Clone(rec.want)
			slices.Sort(want)
			for _, v := range []struct {
				who string
				fs  judge.Findings
			}{{"the suite's client", read}, {"the proxy", passed}} {
				if got := summary(v.fs); !slices.Equal(got, want) {
					t.Errorf("%s found\n  %s\nwant\n  %s\n(%s)", v.who, strings.Join(got, "\n  "), strings.Join(want, "\n  "), strings.Join(v.fs.Lines(), "\n  "))
				}
			}
			if r, p := canonical(read), canonical(passed); !slices.Equal(r, p) {
				t.Errorf("the suite and the proxy differ:\n  %s\nvs\n  %s", strings.Join(r, "\n  "), strings.Join(p, "\n  "))
			}
		})
	}
}

// Any exchange, one verdict: requests of every operation (valid, with a
// field of the wrong type, a lenient reading, no key, a body of the wrong
// type) answered with any status, content type and body (a valid envelope,
// a broken one, an undocumented shape, a stream whole, with a bad event or
// broken off).
func TestAnyExchangeGetsOneVerdict(t *testing.T) {
	j := judge.New(spec.Strict(), spec.Declared())
	ops := spec.Strict().Operations
	rapid.Check(t, func(rt *rapid.T) {
		op := ops[rapid.IntRange(0, len(ops)-1).Draw(rt, "op")]
		path := strings.NewReplacer("{model_id}", "9", "{dataset_id}", "4", "{conversation_id}", "3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77",
			"{evaluation_id}", "5").Replace(op.Path)
		x := anExchange{method: strings.ToUpper(op.Method), path: path, noKey: rapid.IntRange(0, 5).Draw(rt, "noKey") == 0}
		if x.method == "POST" || x.method == "PUT" || x.method == "PATCH" {
			x.contentType = rapid.SampledFrom([]string{jsonType, jsonType + "; charset=utf-8", "text/plain"}).Draw(rt, "contentType")
			x.body = rapid.SampledFrom([]string{
				`{"model_id":9,"query":"q","title":"t","name":"n","model_name":"m","dataset_id":"4","description":"d"}`,
				`{"model_id":"9","query":"q","model_name":"m","dataset_id":4}`,
				`{"model_id":9,"query":"q","temperature":"hot"}`,
				`{}`, `[1,2]`, `{"query":`,
			}).Draw(rt, "body")
		}
		x.status = rapid.SampledFrom([]int{200, 200, 201, 204, 400, 401, 404, 409, 418, 422, 429, 500}).Draw(rt, "status")
		x.answerType = rapid.SampledFrom([]string{jsonType, jsonType + "; charset=utf-8", streamType, "text/plain", "text/html"}).Draw(rt, "answerType")
		x.answer = rapid.SampledFrom([]string{
			aModel, aRefusal, aStream, `{"status":"success","data":[]}`, `{"status":"success","data":{"evaluations":[],"page":1,"per_page":20,"total":0}}`,
			`{"status":"ok"}`, `{"status":"error"}`, `{"status":"success","data":{"id":"x","name":3}}`, `not json`, ``,
			"data: {\"type\":\"token\",\"content\":\"a\"}\n\ndata: {\"type\":\"weird\"}\n\ndata: oops\n\n",
			"data: {\"type\":\"token\",\"content\":\"24 \"}\n\ndata: {\"type\":\"tok",
			aStream + "data: after\n\n",
		}).Draw(rt, "answer")
		upstream := serve(rt, x)
		read, passed := canonical(send(rt, j, upstream, x)), canonical(proxied(rt, j, upstream, x))
		if !slices.Equal(read, passed) {
			rt.Fatalf("%+v\nthe suite's client found\n  %s\nthe proxy\n  %s", x, strings.Join(read, "\n  "), strings.Join(passed, "\n  "))
		}
	})
}
