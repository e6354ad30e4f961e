package judge

import (
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"contractkit/exchange"
	"contractkit/spec"
)

// The verdict cache may only spare work: a verdict it remembers is the
// same answer's (a pass never hides a different answer's violation, a
// broken answer is described again in full), an answer whose headers the
// contract documents (429) is never remembered, nor one that broke off.
func TestVerdictCacheKeepsTheSameAnswersVerdict(t *testing.T) {
	const op = "getEvaluation"
	good := `{"status":"success","data":{"id":5,"name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`
	bad := `{"status":"success","data":{"id":"x","name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`
	j := New(spec.Strict(), spec.Declared())
	cached := func(x *exchange.Exchange) bool {
		k, ok := j.keyOf(op, x)
		if !ok {
			return false
		}
		j.cache.mu.Lock()
		defer j.cache.mu.Unlock()
		_, seen := j.cache.seen[k]
		return seen
	}

	first := answered("GET", "/api/v1/evaluations/5", 200, good)
	if fs := j.Verdict(first, nil, false).Side(Server); len(fs) != 0 {
		t.Fatalf("a conforming answer got %q", fs.Lines())
	}
	if !cached(first) {
		t.Fatal("a conforming answer was not remembered")
	}
	again := answered("GET", "/api/v1/evaluations/5", 200, good)
	if fs := j.Verdict(again, nil, false).Side(Server); len(fs) != 0 {
		t.Fatalf("the same answer again got %q", fs.Lines())
	}

	broken := answered("GET", "/api/v1/evaluations/5", 200, bad)
	first1 := j.Verdict(broken, nil, false).Side(Server)
	if !first1.Has(Server, Declared) {
		t.Fatal("a broken answer after a cached pass of the same operation was not reported")
	}
	if !cached(broken) {
		t.Fatal("a broken answer's verdict was not remembered")
	}
	if again := j.Verdict(answered("GET", "/api/v1/evaluations/5", 200, bad), nil, false).Side(Server); !reflect.DeepEqual(again, first1) {
		t.Fatalf("the same broken answer again: %q, the first time %q", again.Lines(), first1.Lines())
	}

	asText := answered("GET", "/api/v1/evaluations/5", 200, good)
	asText.ResponseHeader = http.Header{"Content-Type": {"text/plain"}}
	if k1, _ := j.keyOf(op, first); k1 == func() answerKey { k, _ := j.keyOf(op, asText); return k }() {
		t.Fatal("the same bytes under another content type share a key")
	}

	limited := answered("GET", "/api/v1/evaluations/5", 429, `{"status":"error","message":"slow down"}`)
	if _, ok := j.keyOf(op, limited); ok {
		t.Fatal("a 429, whose headers the contract documents, is cacheable")
	}
	cut := answered("GET", "/api/v1/evaluations/5", 200, good)
	cut.Error = "unexpected EOF"
	if _, ok := j.keyOf(op, cut); ok {
		t.Fatal("an answer that broke off is cacheable")
	}
	if _, ok := j.keyOf("", first); ok {
		t.Fatal("an answer outside the contract is cacheable")
	}
}

// The cache stays within its bound however many distinct answers pass.
func TestVerdictCacheIsBounded(t *testing.T) {
	j := New(spec.Strict(), spec.Declared())
	for i := range verdictCacheSize + 10 {
		x := answered("GET", "/api/v1/evaluations/5", 200,
			`{"status":"success","data":{"id":`+strconv.Itoa(i+1)+`,"name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`)
		w, _ := j.Start(x)
		w.Headers(x)
		if fs := w.End(x, false, nil); len(fs) != 0 {
			t.Fatalf("answer %d did not pass", i)
		}
	}
	j.cache.mu.Lock()
	n := len(j.cache.seen)
	j.cache.mu.Unlock()
	if n > verdictCacheSize {
		t.Fatalf("the cache holds %d answers, bound %d", n, verdictCacheSize)
	}
}

// A request's verdict is remembered under everything Request reads of it:
// the same request again gets the same findings; one that differs in its
// path, query, body, Content-Type or key gets its own.
func TestRequestVerdictsKeyOnWhatRequestReads(t *testing.T) {
	j := New(spec.Strict(), spec.Declared())
	const op = "createConversation"
	req := func(mod func(x *exchange.Exchange)) *exchange.Exchange {
		x := answered("POST", "/api/v1/user/conversations", 0, "")
		x.RequestHeader.Set("Content-Type", "application/json")
		x.Sent = []byte(`{"model_id":"9","title":"t"}`)
		if mod != nil {
			mod(x)
		}
		return x
	}
	first := j.Request(op, req(nil))
	if len(first) == 0 {
		t.Fatal("a lenient model_id got no finding")
	}
	if again := j.Request(op, req(nil)); !reflect.DeepEqual(again, first) {
		t.Fatalf("the same request again: %q, the first time %q", again.Lines(), first.Lines())
	}
	k0, _ := j.requestKey(op, req(nil))
	for name, mod := range map[string]func(x *exchange.Exchange){
		"body":         func(x *exchange.Exchange) { x.Sent = []byte(`{"model_id":9,"title":"t"}`) },
		"query":        func(x *exchange.Exchange) { x.RawQuery = "a=1" },
		"path":         func(x *exchange.Exchange) { x.Path += "/" },
		"path, query":  func(x *exchange.Exchange) { x.Path, x.RawQuery = x.Path+"\n", "" },
		"content type": func(x *exchange.Exchange) { x.RequestHeader.Set("Content-Type", "text/plain") },
		"no key":       func(x *exchange.Exchange) { x.RequestHeader.Del("Authorization") },
		"cut":          func(x *exchange.Exchange) { x.SentCut = true },
		"method":       func(x *exchange.Exchange) { x.Method = "PUT" },
	} {
		x := req(mod)
		k, ok := j.requestKey(op, x)
		if !ok || k == k0 {
			t.Errorf("%s: shares the first request's key (or none)", name)
		}
		if got, want := j.Request(op, x), j.request(op, x); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, uncached %q", name, got.Lines(), want.Lines())
		}
	}
	if _, ok := j.requestKey("", req(nil)); ok {
		t.Error("a request outside the contract is cacheable")
	}
}
