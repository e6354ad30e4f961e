package conformance

import (
	"net/http"
	"strconv"
	"testing"

	"contractkit/conformance/exchange"
)

// The verdict cache may only spare work: a pass it remembers never hides a
// different answer's violation, an answer whose headers the contract
// documents (429) is never remembered, nor one that broke off.
func TestVerdictCacheKeepsOnlyPassesOfTheSameAnswer(t *testing.T) {
	const op = "getEvaluation"
	good := `{"status":"success","data":{"id":5,"name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`
	bad := `{"status":"success","data":{"id":"x","name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`
	passedCache.Lock()
	clear(passedCache.seen)
	passedCache.Unlock()
	cached := func(x *exchange.Exchange) bool {
		k, ok := answerKey(op, x)
		if !ok {
			return false
		}
		passedCache.Lock()
		defer passedCache.Unlock()
		_, seen := passedCache.seen[k]
		return seen
	}

	first := recorded("GET", "/api/v1/evaluations/5", 200, good)
	if decl, dec := AnswerProblems(first, op, nil, false); len(decl)+len(dec) != 0 {
		t.Fatalf("a conforming answer got %v %v", decl, dec)
	}
	if !cached(first) {
		t.Fatal("a conforming answer was not remembered")
	}
	again := recorded("GET", "/api/v1/evaluations/5", 200, good)
	if decl, dec := AnswerProblems(again, op, nil, false); len(decl)+len(dec) != 0 {
		t.Fatalf("the same answer again got %v %v", decl, dec)
	}

	broken := recorded("GET", "/api/v1/evaluations/5", 200, bad)
	if decl, _ := AnswerProblems(broken, op, nil, false); len(decl) == 0 {
		t.Fatal("a broken answer after a cached pass of the same operation was not reported")
	}
	if cached(broken) {
		t.Fatal("a broken answer was remembered as a pass")
	}

	asText := recorded("GET", "/api/v1/evaluations/5", 200, good)
	asText.ResponseHeader = http.Header{"Content-Type": {"text/plain"}}
	if k1, _ := answerKey(op, first); k1 == func() passKey { k, _ := answerKey(op, asText); return k }() {
		t.Fatal("the same bytes under another content type share a key")
	}

	limited := recorded("GET", "/api/v1/evaluations/5", 429, `{"status":"error","message":"slow down"}`)
	if _, ok := answerKey(op, limited); ok {
		t.Fatal("a 429, whose headers the contract documents, is cacheable")
	}
	cut := recorded("GET", "/api/v1/evaluations/5", 200, good)
	cut.Error = "unexpected EOF"
	if _, ok := answerKey(op, cut); ok {
		t.Fatal("an answer that broke off is cacheable")
	}
	if _, ok := answerKey("", first); ok {
		t.Fatal("an answer outside the contract is cacheable")
	}
}

// The cache stays within its bound however many distinct answers pass.
func TestVerdictCacheIsBounded(t *testing.T) {
	passedCache.Lock()
	clear(passedCache.seen)
	passedCache.Unlock()
	for i := range passedCacheSize + 10 {
		x := recorded("GET", "/api/v1/evaluations/5", 200,
			`{"status":"success","data":{"id":`+strconv.Itoa(i+1)+`,"name":"n","type":"ragas","model_id":1,"status":"pending","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}}`)
		if !strictPasses("getEvaluation", x) {
			t.Fatalf("answer %d did not pass", i)
		}
	}
	passedCache.Lock()
	n := len(passedCache.seen)
	passedCache.Unlock()
	if n > passedCacheSize {
		t.Fatalf("the cache holds %d answers, bound %d", n, passedCacheSize)
	}
}
