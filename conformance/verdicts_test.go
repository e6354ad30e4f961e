package conformance

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

	"contractkit/conformance/client"
	"contractkit/conformance/explore"
	"contractkit/exchange"
	"contractkit/judge"
	"contractkit/proxy"
)

// One exchange, one verdict, whoever judges it: recorded exchanges — JSON
// and streams, good and broken — are replayed by a server and judged by
// the written checks' adapter (verdict), by the explore phase's
// (explore.Verdict) and by the validating proxy in front of the server;
// the findings, class by class, are the same, and are the ones the case
// expects.

// recordedExchange is a request and the answer a server gave it.
type recordedExchange struct {
	name string
	// The request: method, path (with its query), body and its type; a key
	// unless noKey.
	method, path, contentType, body string
	noKey                           bool
	// The answer: status, content type and body (an event stream is
	// written as it is, then the connection ends).
	status     int
	answerType string
	answer     string
	// want are the findings the one judge must find, as "side class rule
	// pointer [decision]".
	want []string
}

const (
	aModel       = `{"status":"success","data":{"id":9,"name":"Support bot","status":"training"}}`
	aStream      = "data: {\"type\":\"token\",\"content\":\"24 \"}\n\ndata: {\"type\":\"token\",\"content\":\"months\"}\n\ndata: {\"type\":\"done\",\"thread_id\":\"t\"}\n\ndata: [DONE]\n\n"
	aRefusal     = `{"status":"error","message":"temperature: want a number"}`
	streamType   = "text/event-stream"
	jsonType     = "application/json"
	inferencePth = "/api/v1/user/inference"
)

var recordedExchanges = []recordedExchange{
	{name: "a conforming exchange", method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType, answer: aModel},
	{name: "served lenient: an integer dataset_id (D-21)", method: "POST", path: "/api/v1/user/model", contentType: jsonType,
		body: `{"model_name":"Support bot","dataset_id":12}`, status: 200, answerType: jsonType, answer: aModel,
		want: []string{"client decided lenient /dataset_id D-21"}},
	{name: "served lenient: a string model_id (D-21)", method: "POST", path: "/api/v1/user/conversations", contentType: jsonType,
		body: `{"model_id":"9","title":"t"}`, status: 200, answerType: jsonType,
		answer: `{"status":"success","data":{"id":"3f2b8c1e-8d4a-4c49-9a51-0d6c8f1e2a77","model_id":9,"title":"t","total_messages":0,"created_at":"2026-03-02T09:15:00Z","updated_at":"2026-03-02T09:15:00Z"}}`,
		want:   []string{"client decided lenient /model_id D-21"}},
	{name: "refused invalid", method: "POST", path: inferencePth, contentType: jsonType,
		body: `{"model_id":9,"query":"q","temperature":"hot"}`, status: 422, answerType: jsonType, answer: aRefusal,
		want: []string{"client declared schema /temperature"}},
	{name: "served invalid", method: "POST", path: "/api/v1/user/model", contentType: jsonType,
		body: `{"model_name":"Support bot"}`, status: 200, answerType: jsonType, answer: aModel,
		want: []string{"client declared schema /dataset_id", "server declared served-invalid status"}},
	{name: "served invalid, as a stream", method: "POST", path: inferencePth, contentType: jsonType,
		body: `{"model_id":9,"query":"q","temperature":"hot"}`, status: 200, answerType: streamType, answer: aStream,
		want: []string{"client declared schema /temperature", "server declared served-invalid status"}},
	{name: "served without a key", method: "GET", path: "/api/v1/user/model", noKey: true, status: 200, answerType: jsonType,
		answer: `{"status":"success","data":[]}`,
		want:   []string{"client declared auth header:Authorization", "server declared served-invalid status"}},
	{name: "a body under a content type the operation does not take, refused", method: "POST", path: "/api/v1/user/dataset",
		contentType: jsonType, body: `{"dataset_name":"x"}`, status: 400, answerType: jsonType, answer: `{"status":"error","message":"multipart/form-data expected"}`,
		want: []string{"client declared content-type header:Content-Type"}},
	{name: "an undocumented status (D-17)", method: "GET", path: "/api/v1/evaluations/5", status: 418, answerType: jsonType,
		answer: `{"status":"error","message":"teapot"}`,
		want:   []string{"server decided status status D-17"}},
	{name: "a broken envelope", method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType,
		answer: `{"status":"ok","data":{"id":9,"name":"Support bot"}}`,
		want:   []string{"server declared envelope /status", "server declared schema /status"}},
	{name: "a success as text/plain", method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: "text/plain", answer: aModel,
		want: []string{"server declared content-type header:Content-Type", "server declared contract"}},
	{name: "a decided difference (D-11)", method: "GET", path: "/api/v1/user/model/9", status: 200, answerType: jsonType,
		answer: `{"status":"success","data":{"id":9,"name":"Support bot","status":"completed"}}`,
		want:   []string{"server decided schema /data/status D-11"}},
	{name: "a conforming stream", method: "POST", path: inferencePth, contentType: jsonType, body: `{"model_id":9,"query":"q"}`,
		status: 200, answerType: streamType, answer: aStream},
	{name: "a cut stream", method: "POST", path: inferencePth, contentType: jsonType, body: `{"model_id":9,"query":"q"}`,
		status: 200, answerType: streamType, answer: "data: {\"type\":\"token\",\"content\":\"24 \"}\n\ndata: {\"type\":\"token\",\"content\":\"mon",
		want: []string{"server declared stream stream:end", "server decided chunk stream:end D-03", "server declared stream stream:2"}},
	{name: "a stream with a bad event and a chunk of D-03's types", method: "POST", path: inferencePth, contentType: jsonType,
		body: `{"model_id":9,"query":"q"}`, status: 200, answerType: streamType,
		answer: "data: not json\n\ndata: {\"type\":\"weird\"}\n\n" + aStream,
		want:   []string{"server declared stream stream:1", "server decided chunk stream:2 D-03"}},
}

// replay serves rec's answer to any request.
func replay(t *testing.T, rec recordedExchange) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", rec.answerType)
		w.WriteHeader(rec.status)
		_, _ = io.WriteString(w, rec.answer)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

// send sends rec's request to base and reads the answer as the suite
// does: an event stream event by event, anything else whole.
func (rec recordedExchange) send(t *testing.T, base *url.URL) (*exchange.Exchange, *judge.Stream) {
	t.Helper()
	path, query, _ := strings.Cut(rec.path, "?")
	q, _ := url.ParseQuery(query)
	r := client.Request{Method: rec.method, Path: path, Query: q}
	if rec.body != "" {
		r.Body, r.ContentType = []byte(rec.body), rec.contentType
	}
	if rec.noKey {
		r.Auth = client.AuthNone
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	x, s := readAnswer(ctx, cancel, client.New(base, testKey, "", 10*time.Second), r, 5*time.Second)
	if x.Status != rec.status {
		t.Fatalf("%s: answered %d, want the recorded %d: %s", rec.name, x.Status, rec.status, x.Error)
	}
	return x, s
}

// canonical renders findings for comparison, sorted: every field.
func canonical(fs []judge.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s %s | got %s", f.Side, f.Class, f.Key(), f.Got)
	}
	slices.Sort(out)
	return out
}

// summary renders findings as the cases' want does.
func summary(fs []judge.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = strings.TrimSpace(fmt.Sprintf("%s %s %s %s %s", f.Side, f.Class, f.Rule, f.Pointer, f.Decision))
	}
	slices.Sort(out)
	return out
}

func TestOneVerdictWhoeverJudges(t *testing.T) {
	for _, rec := range recordedExchanges {
		t.Run(rec.name, func(t *testing.T) {
			upstream := replay(t, rec)
			path, _, _ := strings.Cut(rec.path, "?")
			op, _, _ := judge.Operation(rec.method, path)

			// The written checks' path: the suite's client, then verdict.
			x, s := rec.send(t, upstream)
			written := verdict(x, s)

			// The explore phase's path: the same exchange through its
			// adapter (a stream the phase read to its end is not cut).
			x, s = rec.send(t, upstream)
			explored := explore.Verdict(op, x, s, false)

			// The proxy's path: the proxy in front of the server, judging
			// the exchange as it passes.
			lg := proxy.NewLog(io.Discard)
			p := proxy.New(upstream, lg)
			front := httptest.NewServer(p)
			defer front.Close()
			u, _ := url.Parse(front.URL)
			rec.send(t, u)
			if !p.Wait(10 * time.Second) {
				t.Fatal("the proxy did not settle the exchange")
			}
			var proxied []judge.Finding
			for _, f := range lg.Findings() {
				proxied = append(proxied, f.Finding)
			}

			want := slices.Clone(rec.want)
			slices.Sort(want)
			for _, v := range []struct {
				path string
				fs   []judge.Finding
			}{{"the written checks", written}, {"explore", explored}, {"the proxy", proxied}} {
				if got := summary(v.fs); !slices.Equal(got, want) {
					t.Errorf("%s found\n  %s\nwant\n  %s\n(%s)", v.path, strings.Join(got, "\n  "), strings.Join(want, "\n  "), strings.Join(judge.Findings(v.fs).Lines(), "\n  "))
				}
			}
			w := canonical(written)
			if e := canonical(explored); !slices.Equal(w, e) {
				t.Errorf("the written checks and explore differ:\n  %s\nvs\n  %s", strings.Join(w, "\n  "), strings.Join(e, "\n  "))
			}
			if p := canonical(proxied); !slices.Equal(w, p) {
				t.Errorf("the written checks and the proxy differ:\n  %s\nvs\n  %s", strings.Join(w, "\n  "), strings.Join(p, "\n  "))
			}
		})
	}
}
